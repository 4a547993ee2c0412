"""Calling hook implementations one plugin at a time, guarded.

The registry calls a hook when it first needs the table the hook fills (see
``irconv.plugins.registry``); this module is the one place that calls an implementation,
checks what it returned and turns a failure into the plugin's *failed* status (or a
``PluginError`` under ``strict``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pluggy

from irconv.errors import PluginError

if TYPE_CHECKING:
    from irconv.plugins.manager import PluginInfo


class GuardedHooks:
    """The hook implementations of the active plugins, called on demand.

    An implementation receives the arguments it names (pluggy's rule: hooks only ever gain
    arguments, an old implementation simply does not name the new ones).
    """

    def __init__(
        self,
        pm: pluggy.PluginManager,
        infos: dict[str, PluginInfo],
        *,
        strict: bool,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self._pm = pm
        self.infos = infos
        self.strict = strict
        self._trace = trace  # IRCONV_DEBUG=1: each call and its result

    def implementations(self, hook_name: str) -> list[pluggy.HookImpl]:
        """The active plugins' implementations of ``hook_name``, in plugin-name order."""
        impls = getattr(self._pm.hook, hook_name).get_hookimpls()
        return [
            impl
            for impl in sorted(impls, key=lambda i: i.plugin_name)
            if self.infos[impl.plugin_name].status == "active"
        ]

    def info(self, impl: pluggy.HookImpl) -> PluginInfo:
        return self.infos[impl.plugin_name]

    def call(
        self,
        impl: pluggy.HookImpl,
        hook_name: str,
        kind: type,
        arguments: Mapping[str, Any],
        validate: Callable[[Any], None] | None = None,
    ) -> list[Any] | None:
        """The records ``impl`` returns, each checked to be a ``kind`` (and by ``validate``,
        which raises ``PluginError`` for a bad record); None when the plugin failed (it is
        marked so, with the reason). Under ``strict`` a failure raises."""
        info = self.infos[impl.plugin_name]
        if info.status != "active":
            return None
        try:
            kwargs = {arg: arguments[arg] for arg in impl.argnames if arg in arguments}
            if self._trace is not None:
                self._trace(f"call {hook_name}({', '.join(f'{k}={_short(v)}' for k, v in kwargs.items())}) "
                            f"of plugin {info.name!r} ({info.label()})")
            returned: Any = impl.function(**kwargs)
            records: list[Any] = list(returned or ())
            for record in records:
                if not isinstance(record, kind):
                    expected = "Op classes" if kind is type else f"{kind.__name__} records"
                    raise PluginError(f"{hook_name} returned {record!r}, expected {expected}")
                if validate is not None:
                    validate(record)
        except Exception as exc:
            reason = f"hook {hook_name} failed: {type(exc).__name__}: {exc}"
            if not isinstance(exc, PluginError):
                reason += f" (a bug in {info.label()}: please report it to its authors)"
            if self._trace is not None:
                self._trace(f"  {hook_name} of {info.name!r} failed: {reason}")
            if self.strict:
                raise PluginError(f"plugin {info.name!r} ({info.label()}): {reason}") from exc
            info.status, info.error = "failed", reason
            info.counts = {}
            return None
        if self._trace is not None:
            shown = ", ".join(_short(r) for r in records[:8]) + (", ..." if len(records) > 8 else "")
            self._trace(f"  {hook_name} of {info.name!r} returned {len(records)} record(s): {shown}")
        return records

    def call_all(self, hooks: Mapping[str, type], arguments: Mapping[str, Any]) -> dict[str, dict[str, list[Any]]]:
        """Call each of ``hooks`` for every active plugin: ``{plugin: {hook: records}}``, only
        plugins still active at the end (one that failed in a later hook is left out)."""
        found: dict[str, dict[str, list[Any]]] = {}
        for hook_name, kind in hooks.items():
            for impl in self.implementations(hook_name):
                records = self.call(impl, hook_name, kind, arguments)
                if records is not None:
                    found.setdefault(impl.plugin_name, {})[hook_name] = records
        return {name: per_hook for name, per_hook in found.items() if self.infos[name].status == "active"}


def _short(value: Any) -> str:
    """A record or argument as one short line for the debug trace."""
    text = value.__name__ if isinstance(value, type) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."
