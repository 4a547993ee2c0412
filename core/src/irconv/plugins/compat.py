"""Whether a plugin was made for the installed core, decided before the plugin is imported.

A plugin states the core versions it works with in the one place packaging already has for
it: the version range of its ``irconv-core`` requirement (``dependencies =
["irconv-core>=0.2,<0.3"]``). pip honours that range when it installs; the plugin host checks
it again at load time, because an editable or ``--no-deps`` install, or a later upgrade of the
core alone, can leave a plugin beside a core it was never made for. Such a plugin is reported
with one message and left out (fatal under ``--strict-plugins``), instead of failing somewhere
inside a conversion.

The core's version is its API version: the core and the built-in plugins share one version,
and while it is 0.x a new minor release (0.2 -> 0.3) may change the plugin API, so a plugin
declares ``>=0.N,<0.(N+1)``. A plugin that names ``irconv-core`` without a range is taken to
work with any core.
"""

from __future__ import annotations

import importlib.metadata as metadata

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

CORE_DISTRIBUTION = "irconv-core"


def core_version() -> Version | None:
    """The installed core's version, or None when the core runs from a source tree."""
    try:
        return Version(metadata.version(CORE_DISTRIBUTION))
    except (metadata.PackageNotFoundError, InvalidVersion):
        return None


def required_core(distribution: metadata.Distribution) -> SpecifierSet | None:
    """The range of core versions ``distribution`` declares, or None if it declares none."""
    for line in distribution.requires or ():
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue  # the installer accepted it; an odd line elsewhere is not ours to judge
        if canonicalize_name(requirement.name) != CORE_DISTRIBUTION:
            continue
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue  # asked for only by an extra or on another platform
        return requirement.specifier if str(requirement.specifier) else None
    return None


def incompatibility(
    plugin: str, distribution: metadata.Distribution | None, core: Version | None = None
) -> str | None:
    """Why plugin ``plugin`` of ``distribution`` cannot run on the installed core (None: it can).

    ``core`` defaults to the installed core's version; nothing is checked when either the core
    or the plugin is not an installed distribution (a source tree, a plugin registered by hand).
    """
    core = core if core is not None else core_version()
    if distribution is None or core is None:
        return None
    if canonicalize_name(distribution.metadata["Name"]) == CORE_DISTRIBUTION:
        return None
    wanted = required_core(distribution)
    if wanted is None or wanted.contains(core, prereleases=True):
        return None
    name = distribution.metadata["Name"]
    needed = f"{CORE_DISTRIBUTION}{range_text(wanted)}"
    return (
        f"plugin {plugin!r} from {name} {distribution.version} needs {needed}, "
        f"but {CORE_DISTRIBUTION} {core} is installed: install a release of {name} made for "
        f"{CORE_DISTRIBUTION} {core} (pip install --upgrade {name}), or {needed}"
    )


def range_text(specifier: SpecifierSet) -> str:
    """A range as people write it, lower bound first: ``>=0.2,<0.3``."""
    return ",".join(sorted((str(s) for s in specifier), key=lambda s: (not s.startswith(">"), s)))
