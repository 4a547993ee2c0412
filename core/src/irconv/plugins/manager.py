"""Plugin discovery and bookkeeping: one start-up sequence, one place for failures.

Start-up: add the hookspecs, load the ``irconv`` entry points (a plugin that fails to
import is recorded and skipped, or fatal under ``strict``), then build the registry.
"""

from __future__ import annotations

import difflib
import importlib.metadata as metadata
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy

from irconv.contract import hookspecs
from irconv.errors import PluginError, UsageError
from irconv.plugins import compat
from irconv.plugins.registry import Registry

if TYPE_CHECKING:
    from irconv.plugins.summary import PluginSummary

ENTRY_POINT_GROUP = "irconv"


@dataclass
class PluginInfo:
    """What ``irconv plugins`` shows about one plugin."""

    name: str
    distribution: str
    version: str
    status: str  # "active", "disabled" or "failed" (import failed, or a hook raised)
    error: str = ""
    hooks: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def label(self) -> str:
        return f"{self.distribution} {self.version}".strip()


class PluginHost:
    """Owns the pluggy manager, the plugin list and the registry built from it."""

    def __init__(
        self,
        *,
        autoload: bool = True,
        strict: bool = False,
        disabled: Iterable[str] = (),
    ) -> None:
        self.strict = strict
        self.disabled = set(disabled)
        self._pm = pluggy.PluginManager(hookspecs.PROJECT)
        self._pm.add_hookspecs(hookspecs)
        #: With IRCONV_DEBUG=1, every hook call and what it returned, on stderr.
        self._trace: Callable[[str], None] | None = None
        if os.environ.get("IRCONV_DEBUG") == "1":
            self._pm.trace.root.setwriter(lambda msg: sys.stderr.write(msg))
            self._pm.enable_tracing()
            self._trace = lambda msg: print(f"irconv-debug: {msg}", file=sys.stderr)
        self._infos: dict[str, PluginInfo] = {}
        self._registry: Registry | None = None
        self._entry_points: list[metadata.EntryPoint] = []
        self._unloaded: list[metadata.EntryPoint] = []
        self._registered_by_hand = False
        if autoload:
            # Found now, imported on first use: ``irconv plugins`` may not need to (summary()).
            self._discover()
            if strict:  # an import failure is fatal at once
                self._load_discovered()

    # ------------------------------------------------------------ loading
    def load_entry_points(self) -> None:
        """Import every plugin in the ``irconv`` entry-point group."""
        self._discover()
        self._load_discovered()

    def _discover(self) -> None:
        found = sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
        self._entry_points += found
        self._unloaded += found

    def _load_discovered(self) -> None:
        found, self._unloaded = self._unloaded, []
        for ep in found:
            dist = ep.dist
            dist_name = dist.metadata["Name"] if dist is not None else ep.name
            version = dist.version if dist is not None else ""
            if ep.name in self._infos:
                continue
            if self._is_disabled(ep.name, dist_name):
                self._infos[ep.name] = PluginInfo(ep.name, dist_name, version, "disabled")
                continue
            mismatch = compat.incompatibility(ep.name, dist)  # before importing code made for another core
            if mismatch:
                if self.strict:
                    raise PluginError(mismatch)
                self._infos[ep.name] = PluginInfo(ep.name, dist_name, version, "failed", error=mismatch)
                continue
            try:
                plugin = ep.load()
            except Exception as exc:  # any import failure is the plugin's, not ours
                reason = f"{type(exc).__name__}: {exc}"
                if self.strict:
                    raise PluginError(f"plugin {ep.name!r} from {dist_name} failed to import: {reason}") from exc
                self._infos[ep.name] = PluginInfo(ep.name, dist_name, version, "failed", error=reason)
                continue
            self._register(plugin, ep.name, distribution=dist_name, version=version)

    def register(self, plugin: Any, name: str, *, distribution: str | None = None, version: str = "") -> None:
        """Register a plugin object (a module or any object with hook implementations)."""
        self._load_discovered()
        self._registered_by_hand = True
        self._register(plugin, name, distribution=distribution, version=version)

    def _register(self, plugin: Any, name: str, *, distribution: str | None, version: str) -> None:
        dist_name = distribution or name
        if self._is_disabled(name, dist_name):
            self._infos[name] = PluginInfo(name, dist_name, version, "disabled")
            return
        if isinstance(plugin, type):
            plugin = plugin()
        try:
            self._pm.register(plugin, name=name)
            self._pm.check_pending()
        except pluggy.PluginValidationError as exc:
            # An unknown hook name or an argument the hookspec does not have: this plugin's
            # fault, reported like an import failure, never a crash of every command.
            if self._pm.is_registered(plugin):
                self._pm.unregister(plugin)
            reason = "invalid hook implementation: " + " ".join(str(exc).split())
            if self.strict:
                raise PluginError(f"plugin {name!r} ({dist_name} {version}): {reason}") from exc
            self._infos[name] = PluginInfo(name, dist_name, version, "failed", error=reason)
            return
        hooks = sorted(
            caller.name for caller in self._pm.get_hookcallers(plugin) or () if caller.name in hookspecs.HOOK_NAMES
        )
        self._infos[name] = PluginInfo(name, dist_name, version, "active", hooks=hooks)
        self._registry = None

    def _check_disabled_names(self) -> None:
        """A disabled name no plugin has is a typo that would leave the plugin meant active."""
        found = {n for ep in self._entry_points for n in (ep.name, ep.dist.metadata["Name"] if ep.dist else ep.name)}
        known = sorted(found | {n for info in self._infos.values() for n in (info.name, info.distribution)})
        unknown = sorted(self.disabled.difference(known))
        if not unknown:
            return
        near = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]}?" if near else ""
        raise UsageError(
            f"--disable-plugin {unknown[0]}: no installed plugin (entry point or distribution) has this name{hint} "
            "(`irconv plugins` lists them)"
        )

    def _is_disabled(self, name: str, distribution: str) -> bool:
        return name in self.disabled or distribution in self.disabled

    # ------------------------------------------------------------ queries
    def plugins(self, *, complete: bool = True) -> list[PluginInfo]:
        """Every plugin with its status. ``complete`` (the default) first calls every hook of
        every plugin, so a hook's failure shows and the per-plugin counts are final; without
        it, only what is known so far (import failures, the hooks called until now)."""
        registry = self.registry()  # loads the plugins
        if complete:
            registry.complete(tolerate_clashes=not self.strict)
        return [self._infos[name] for name in sorted(self._infos)]

    def summary(self) -> PluginSummary:
        """What ``irconv plugins`` shows. For a host that holds exactly the installed entry
        points it comes from the cache when the environment has not changed (no plugin
        hook runs, no extractor module is imported), see ``irconv.plugins.summary``."""
        from irconv.plugins import summary

        self._check_disabled_names()  # the cached table would not say that a name matched nothing
        cacheable = self._entry_points and not self._registered_by_hand and self._registry is None
        settings = f"disabled={sorted(self.disabled)} strict={self.strict}"
        key = summary.fingerprint(self._entry_points, settings) if cacheable else ""
        if key and not os.environ.get("IRCONV_NO_CACHE"):
            cached = summary.load(key)
            if cached is not None:
                return cached
        built = summary.PluginSummary.of(self.plugins(), self.registry())
        if key and all(p.status != "failed" for p in built.plugins) and not built.clashes:
            summary.store(key, built)
        return built

    def active(self) -> list[PluginInfo]:
        return [p for p in self.plugins() if p.status == "active"]

    def registry(self) -> Registry:
        """The tables built from every active plugin's records (made once, cached). Each
        table is built on first use, so only the hooks a command needs are called (all at
        once under ``strict``); see ``Registry``."""
        self._load_discovered()
        if self._registry is None:
            self._check_disabled_names()
            self._registry = Registry.build(self._pm, self._infos, strict=self.strict, trace=self._trace)
        return self._registry
