"""Plugin discovery and bookkeeping: one start-up sequence, one place for failures.

Start-up: add the hookspecs, load the ``irconv`` entry points (a plugin that fails to
import is recorded and skipped, or fatal under ``strict``), then build the registry.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from irconv.errors import PluginError
from irconv.plugins import hookspecs
from irconv.plugins.registry import Registry

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
        if os.environ.get("IRCONV_DEBUG") == "1":
            self._pm.trace.root.setwriter(lambda msg: sys.stderr.write(msg))
            self._pm.enable_tracing()
        self._infos: dict[str, PluginInfo] = {}
        self._registry: Registry | None = None
        if autoload:
            self.load_entry_points()

    # ------------------------------------------------------------ loading
    def load_entry_points(self) -> None:
        """Import every plugin in the ``irconv`` entry-point group."""
        found = sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
        for ep in found:
            dist = ep.dist
            dist_name = dist.metadata["Name"] if dist is not None else ep.name
            version = dist.version if dist is not None else ""
            if ep.name in self._infos:
                continue
            if self._is_disabled(ep.name, dist_name):
                self._infos[ep.name] = PluginInfo(ep.name, dist_name, version, "disabled")
                continue
            try:
                plugin = ep.load()
            except Exception as exc:  # any import failure is the plugin's, not ours
                reason = f"{type(exc).__name__}: {exc}"
                if self.strict:
                    raise PluginError(f"plugin {ep.name!r} from {dist_name} failed to import: {reason}") from exc
                self._infos[ep.name] = PluginInfo(ep.name, dist_name, version, "failed", error=reason)
                continue
            self.register(plugin, ep.name, distribution=dist_name, version=version)

    def register(self, plugin: Any, name: str, *, distribution: str | None = None, version: str = "") -> None:
        """Register a plugin object (a module or any object with hook implementations)."""
        dist_name = distribution or name
        if self._is_disabled(name, dist_name):
            self._infos[name] = PluginInfo(name, dist_name, version, "disabled")
            return
        if isinstance(plugin, type):
            plugin = plugin()
        self._pm.register(plugin, name=name)
        self._pm.check_pending()
        hooks = sorted(
            caller.name for caller in self._pm.get_hookcallers(plugin) or () if caller.name in hookspecs.HOOK_NAMES
        )
        self._infos[name] = PluginInfo(name, dist_name, version, "active", hooks=hooks)
        self._registry = None

    def _is_disabled(self, name: str, distribution: str) -> bool:
        return name in self.disabled or distribution in self.disabled

    # ------------------------------------------------------------ queries
    def plugins(self) -> list[PluginInfo]:
        self.registry()  # fills the per-plugin counts
        return [self._infos[name] for name in sorted(self._infos)]

    def active(self) -> list[PluginInfo]:
        return [p for p in self.plugins() if p.status == "active"]

    def registry(self) -> Registry:
        """The tables built from every active plugin's records (built once, cached)."""
        if self._registry is None:
            self._registry = Registry.build(self._pm, self._infos, strict=self.strict)
        return self._registry
