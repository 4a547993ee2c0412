"""Tables built from the plugins' records: the core, not registration order, decides.

Conflicts (the same extractor key with overlapping opsets, transform id, loader framework
or emitter format from two plugins) are errors naming both distributions.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import pluggy

from irconv.errors import PluginError
from irconv.plugins.optable import OpTable
from irconv.plugins.option import Option, OptionTable
from irconv.plugins.records import (
    BUILTIN_HINTS,
    NEWEST,
    Emitter,
    Extractor,
    InstallHint,
    Loader,
    Phase,
    Renderer,
    Transform,
    Verifier,
)

if TYPE_CHECKING:
    from irconv.plugins.manager import PluginInfo

T = TypeVar("T")

_PHASE_HOOKS = {
    Phase.FRONT: "front_transform",
    Phase.MIDDLE: "middle_transform",
    Phase.BACK: "back_transform",
}


@dataclass(frozen=True)
class Provided(Generic[T]):
    """A record and the plugin that provided it."""

    item: T
    plugin: PluginInfo


class Registry:
    """Ops, options, loaders, extractors, ordered transforms and emitters of the active plugins."""

    def __init__(self) -> None:
        self.ops = OpTable()
        self.options = OptionTable()
        self.loaders: list[Provided[Loader]] = []
        self.emitters: dict[str, Provided[Emitter]] = {}
        self._extractors: dict[tuple[str, str, str], list[Provided[Extractor]]] = {}
        self._plans: dict[Phase, list[Provided[Transform]]] = {}
        self.verifiers: dict[str, Provided[Verifier]] = {}
        self.renderers: dict[str, Provided[Renderer]] = {}
        self.hints: list[InstallHint] = list(BUILTIN_HINTS)

    # ------------------------------------------------------------ building
    @classmethod
    def build(
        cls,
        pm: pluggy.PluginManager,
        infos: dict[str, PluginInfo],
        *,
        strict: bool = False,
        reserved_flags: Sequence[str] = (),
    ) -> Registry:
        """Call every hook of every active plugin once and build the tables.

        A plugin whose hook raises (or returns something that is not a record) is marked
        failed with the reason and left out entirely; with ``strict`` it is fatal. Two
        plugins declaring the same key is always an error naming both.
        """
        for info in infos.values():
            info.counts = {}
        declarations = _call_hooks(pm, infos, DECLARATION_HOOKS, {}, strict)
        records = _call_hooks(pm, infos, REGISTRATION_HOOKS, {"ops": _op_table(declarations, infos)}, strict)
        registry = cls()
        registry.ops = _op_table(declarations, infos)  # again: a plugin may have failed since
        for name, per_hook in declarations.items():
            info = infos[name]
            if info.status != "active":
                continue
            for option in per_hook.get("declare_options", ()):
                registry.options.add(option, info.label(), reserved_flags)
                _count(info, "options")
            for _ in per_hook.get("declare_ops", ()):
                _count(info, "ops")
        transform_owner: dict[str, Provided[Transform]] = {}
        provided_by_phase: dict[Phase, list[Provided[Transform]]] = {phase: [] for phase in Phase}
        for name, per_hook in records.items():
            info = infos[name]
            for loader in per_hook.get("load_model", ()):
                registry._add_loader(loader, info)
            for extractor in per_hook.get("extract_op", ()):
                registry._add_extractor(extractor, info)
            for phase, hook in _PHASE_HOOKS.items():
                for transform in per_hook.get(hook, ()):
                    if transform.id in transform_owner:
                        other = transform_owner[transform.id].plugin
                        raise PluginError(
                            f"transform id {transform.id!r} provided by {other.label()} and {info.label()}"
                        )
                    entry = Provided(transform, info)
                    transform_owner[transform.id] = entry
                    provided_by_phase[phase].append(entry)
                    _count(info, "transforms")
            for emitter in per_hook.get("emit", ()):
                if emitter.format in registry.emitters:
                    other = registry.emitters[emitter.format].plugin
                    raise PluginError(
                        f"emitter format {emitter.format!r} provided by {other.label()} and {info.label()}"
                    )
                registry.emitters[emitter.format] = Provided(emitter, info)
                _count(info, "emitters")
            for verifier in per_hook.get("verify_model", ()):
                registry._add_keyed(registry.verifiers, verifier.framework, "verifier for", verifier, info)
                _count(info, "verifiers")
            for renderer in per_hook.get("render_graph", ()):
                registry._add_keyed(registry.renderers, renderer.format, "renderer format", renderer, info)
                _count(info, "renderers")
            registry.hints += per_hook.get("declare_hints", ())
        for phase, provided in provided_by_phase.items():
            registry._plans[phase] = order_transforms(provided)
        return registry

    def _add_loader(self, loader: Loader, info: PluginInfo) -> None:
        for existing in self.loaders:
            if existing.item.framework == loader.framework:
                raise PluginError(
                    f"loader for {loader.framework!r} provided by {existing.plugin.label()} and {info.label()}"
                )
        self.loaders.append(Provided(loader, info))
        _count(info, "loaders")

    @staticmethod
    def _add_keyed(table: dict[str, Provided[Any]], key: str, what: str, item: Any, info: PluginInfo) -> None:
        if key in table:
            raise PluginError(f"{what} {key!r} provided by {table[key].plugin.label()} and {info.label()}")
        table[key] = Provided(item, info)

    def _add_extractor(self, extractor: Extractor, info: PluginInfo) -> None:
        entries = self._extractors.setdefault(extractor.key, [])
        for existing in entries:
            overlap = range(
                max(existing.item.opsets.start, extractor.opsets.start),
                min(existing.item.opsets.stop, extractor.opsets.stop),
            )
            if overlap:
                where = f"opset {overlap.start}" if len(overlap) == 1 else f"opsets {overlap.start}-{overlap[-1]}"
                if overlap.stop > NEWEST:
                    where = f"opsets {overlap.start}+"
                raise PluginError(
                    f"{extractor.key_text()} {where} provided by {existing.plugin.label()} and {info.label()}"
                )
        entries.append(Provided(extractor, info))
        entries.sort(key=lambda p: p.item.opsets.start)
        _count(info, "extractors")

    # ------------------------------------------------------------ lookups
    def find_extractor(self, framework: str, domain: str, op: str, opset: int) -> Extractor | None:
        for entry in self._extractors.get((framework, domain, op), ()):
            if opset in entry.item.opsets:
                return entry.item
        return None

    def extractors_for(self, framework: str, domain: str, op: str) -> list[Provided[Extractor]]:
        return list(self._extractors.get((framework, domain, op), ()))

    def all_extractors(self, framework: str | None = None) -> list[Provided[Extractor]]:
        result = [e for entries in self._extractors.values() for e in entries]
        if framework is not None:
            result = [e for e in result if e.item.framework == framework]
        return sorted(result, key=lambda e: (e.item.framework, e.item.domain, e.item.op, e.item.opsets.start))

    def frameworks(self) -> list[str]:
        return sorted({loader.item.framework for loader in self.loaders})

    def plan(self, phase: Phase) -> list[Provided[Transform]]:
        """The ordered transforms of a phase, disabled ones included."""
        return list(self._plans.get(phase, ()))

    def transform_ids(self) -> set[str]:
        return {p.item.id for phase in Phase for p in self._plans.get(phase, ())}

    # ------------------------------------------------------------ install hints
    def distribution_for_framework(self, framework: str) -> str | None:
        """The distribution that provides a loader for ``framework``, when a hint knows it."""
        return next((h.distribution for h in self.hints if framework in h.frameworks), None)

    def framework_for_suffix(self, suffix: str) -> tuple[str, str] | None:
        """``(framework, distribution)`` for a model file suffix, when a hint knows it."""
        for hint in self.hints:
            if suffix.lower() in hint.suffixes:
                return (hint.frameworks[0] if hint.frameworks else "", hint.distribution)
        return None

    def distribution_for_op(self, framework: str, domain: str, op: str) -> str | None:
        """The distribution that extracts ``framework::domain::op``, when a hint knows it."""
        return next((h.distribution for h in self.hints if (framework, domain, op) in h.ops), None)


#: Hooks whose records other hooks may depend on; called first, for every plugin.
DECLARATION_HOOKS: dict[str, type] = {"declare_ops": type, "declare_options": Option}
#: The other registration hooks and the record type each returns.
REGISTRATION_HOOKS: dict[str, type] = {
    "load_model": Loader,
    "extract_op": Extractor,
    "front_transform": Transform,
    "middle_transform": Transform,
    "back_transform": Transform,
    "emit": Emitter,
    "verify_model": Verifier,
    "render_graph": Renderer,
    "declare_hints": InstallHint,
}

PerPlugin = dict[str, dict[str, list[Any]]]


def _count(info: PluginInfo, what: str) -> None:
    info.counts[what] = info.counts.get(what, 0) + 1


def _op_table(declarations: PerPlugin, infos: dict[str, PluginInfo]) -> OpTable:
    table = OpTable()
    for name, per_hook in declarations.items():
        if infos[name].status == "active":
            for op in per_hook.get("declare_ops", ()):
                table.add(op, infos[name].label())
    return table


def _call_hooks(
    pm: pluggy.PluginManager,
    infos: dict[str, PluginInfo],
    hooks: dict[str, type],
    arguments: dict[str, Any],
    strict: bool,
) -> PerPlugin:
    """Call ``hooks`` of each active plugin, guarded: a plugin that fails is marked and skipped.

    A hook implementation receives the arguments it names (hooks only ever gain arguments).
    """
    found: PerPlugin = {}
    for hook_name, kind in hooks.items():
        hook = getattr(pm.hook, hook_name)
        for impl in sorted(hook.get_hookimpls(), key=lambda i: i.plugin_name):
            info = infos[impl.plugin_name]
            if info.status != "active":
                continue
            try:
                kwargs = {arg: arguments[arg] for arg in impl.argnames if arg in arguments}
                records = list(impl.function(**kwargs) or ())
                for record in records:
                    if not isinstance(record, kind):
                        expected = "Op classes" if kind is type else f"{kind.__name__} records"
                        raise PluginError(f"{hook_name} returned {record!r}, expected {expected}")
            except Exception as exc:
                reason = f"hook {hook_name} failed: {type(exc).__name__}: {exc}"
                if strict:
                    raise PluginError(f"plugin {info.name!r} ({info.label()}): {reason}") from exc
                info.status, info.error = "failed", reason
                continue
            found.setdefault(info.name, {})[hook_name] = records
    return {name: per_hook for name, per_hook in found.items() if infos[name].status == "active"}


def order_transforms(provided: list[Provided[Transform]]) -> list[Provided[Transform]]:
    """Topological order over run_after/run_before, ties broken by id.

    Ids that name no installed transform are ignored; a cycle is an error naming
    the transforms in it.
    """
    by_id = {p.item.id: p for p in provided}
    after: dict[str, set[str]] = {tid: set() for tid in by_id}  # tid runs after these
    for p in provided:
        t = p.item
        after[t.id].update(dep for dep in t.run_after if dep in by_id)
        for later in t.run_before:
            if later in by_id:
                after[later].add(t.id)
    users: dict[str, list[str]] = {tid: [] for tid in by_id}
    for tid, deps in after.items():
        for dep in deps:
            users[dep].append(tid)
    waiting = {tid: len(deps) for tid, deps in after.items()}
    ready = [tid for tid, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    ordered: list[str] = []
    while ready:
        tid = heapq.heappop(ready)
        ordered.append(tid)
        for user in users[tid]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, user)
    if len(ordered) != len(by_id):
        cycle = _find_cycle(after, {tid for tid, n in waiting.items() if n > 0})
        raise PluginError("transform order has a cycle: " + " -> ".join(cycle) + " (check their run_after/run_before)")
    return [by_id[tid] for tid in ordered]


def _find_cycle(after: dict[str, set[str]], stuck: set[str]) -> list[str]:
    """Walk dependencies inside ``stuck``: each stuck id waits on another, so a walk repeats."""
    path: list[str] = []
    seen: dict[str, int] = {}
    tid = min(stuck)
    while tid not in seen:
        seen[tid] = len(path)
        path.append(tid)
        tid = min(dep for dep in after[tid] if dep in stuck)
    return path[seen[tid] :] + [tid]
