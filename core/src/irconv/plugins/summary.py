"""What ``irconv plugins`` shows, and a cache of it that spares importing every plugin.

Building the summary means calling every plugin's hooks, which imports every extractor
module of every front end: most of the command's start-up. The summary only changes when
the installed software does, so it is kept in a small JSON file keyed by a fingerprint of
the environment: the installed distributions (names and versions, from the ``*.dist-info``
folder names on ``sys.path``), the ``irconv`` entry points, and the size and mtime of
every file of each plugin's package (editable installs change without a version bump).
A summary with a failed plugin is never cached: the failure is re-checked every time.

The cache folder is ``$IRCONV_CACHE_DIR``, else ``$XDG_CACHE_HOME/irconv``, else
``~/.cache/irconv``; a folder that cannot be written only means no cache.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from irconv.plugins.manager import PluginInfo
    from irconv.plugins.registry import Registry

FORMAT = 1
#: Cache entries kept (several environments may share one cache folder).
KEEP = 8


@dataclass
class PluginSummary:
    """The plugin table, the custom opsets per plugin label, and the front ends one could
    install when no model loader is."""

    plugins: list[PluginInfo]
    custom_opsets: dict[str, list[str]] = field(default_factory=dict)
    missing_front_ends: list[str] = field(default_factory=list)
    #: Clash messages, each naming both distributions and the ``--disable-plugin`` way out.
    clashes: list[str] = field(default_factory=list)
    #: The distributions involved in a clash.
    clashing: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, plugins: list[PluginInfo], registry: Registry) -> PluginSummary:
        custom: dict[str, list[str]] = {}
        for opset, owner in registry.ops.custom_opsets().items():
            custom.setdefault(owner, []).append(opset)
        missing: list[str] = []
        if not any(p.counts.get("loaders") for p in plugins if p.status == "active"):
            fronts = (h.distribution for h in registry.hints if h.frameworks and "ir" not in h.frameworks)
            missing = list(dict.fromkeys(fronts))
        clashes = registry.clashes
        clashing = sorted({d for clash in clashes for d in clash.distributions})
        return cls(plugins, {k: sorted(v) for k, v in custom.items()}, missing, [str(c) for c in clashes], clashing)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "plugins": [dataclasses.asdict(p) for p in self.plugins],
            "custom_opsets": self.custom_opsets,
            "missing_front_ends": self.missing_front_ends,
            "clashes": self.clashes,
            "clashing": self.clashing,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PluginSummary:
        from irconv.plugins.manager import PluginInfo

        return cls(
            [PluginInfo(**p) for p in data["plugins"]],
            {k: list(v) for k, v in data["custom_opsets"].items()},
            list(data["missing_front_ends"]),
            list(data.get("clashes", [])),
            list(data.get("clashing", [])),
        )


def cache_dir() -> Path:
    explicit = os.environ.get("IRCONV_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "irconv"


def fingerprint(entry_points: list[EntryPoint], settings: str = "") -> str:
    """The environment's key; ``settings`` are the host's own (disabled plugins...)."""
    hasher = hashlib.blake2b(digest_size=16)
    hasher.update(f"{FORMAT} {sys.version} {settings}\n".encode())
    for folder in sys.path:
        try:
            names = sorted(e.name for e in os.scandir(folder or ".") if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        hasher.update(f"{folder}\n{' '.join(names)}\n".encode())
    for ep in entry_points:
        hasher.update(f"{ep.name}={ep.value}\n".encode())
        for path, stat in _package_files(ep.value.split(":")[0].split(".")[0]):
            hasher.update(f"{path} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return hasher.hexdigest()


def _package_files(package: str) -> list[tuple[str, os.stat_result]]:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    roots = list(spec.submodule_search_locations or ([spec.origin] if spec.origin else []))
    found = []
    for root in roots:
        if os.path.isfile(root):
            found.append((root, os.stat(root)))
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            found += [(os.path.join(folder, f), os.stat(os.path.join(folder, f))) for f in sorted(files)]
    return found


def load(key: str) -> PluginSummary | None:
    try:
        data = json.loads((cache_dir() / f"plugins-{key}.json").read_text())
        return PluginSummary.from_json(data) if data.get("format") == FORMAT else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: str, summary: PluginSummary) -> None:
    """Write the cache entry (atomically); a failure to write is ignored."""
    folder = cache_dir()
    target = folder / f"plugins-{key}.json"
    temporary = folder / f".plugins-{key}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(summary.to_json()))
        os.replace(temporary, target)
        entries = sorted(folder.glob("plugins-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:  # environments come and go (editable installs change often)
            old.unlink(missing_ok=True)
    except OSError:
        temporary.unlink(missing_ok=True)
