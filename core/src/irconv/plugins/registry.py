"""Tables built from the plugins' records: the core, not registration order, decides.

Conflicts (the same extractor key with overlapping opsets, transform id, loader framework
or emitter format from two plugins) are errors naming both distributions.

The tables are built lazily: the declaration hooks (ops, options) run when the registry is
built, because the command line needs the options; every other table is built the first
time it is used, by calling only the hook that fills it. A conversion thus never calls
``verify_model`` (without ``--verify``) nor ``render_graph``, and asks ``extract_op`` only
for its model's framework. ``Registry.complete()`` builds every table (``irconv plugins``,
``--strict-plugins``).
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import pluggy

from irconv.contract.optable import OpTable
from irconv.contract.option import Option, OptionTable
from irconv.contract.records import (
    BUILTIN_HINTS,
    NEWEST,
    Command,
    Emitter,
    Extractor,
    InstallHint,
    Loader,
    Phase,
    Renderer,
    RuntimeExtension,
    Transform,
    Verifier,
)
from irconv.errors import PluginClash, PluginError, UsageError
from irconv.plugins._hookcalls import GuardedHooks

if TYPE_CHECKING:
    from irconv.ops import Op
    from irconv.plugins.manager import PluginInfo

T = TypeVar("T")

_PHASE_HOOKS = {
    Phase.FRONT: "front_transform",
    Phase.MIDDLE: "middle_transform",
    Phase.BACK: "back_transform",
}
#: The order ``irconv plugins`` lists what a plugin provides in.
_COUNT_ORDER = (
    "options", "ops", "loaders", "extractors", "transforms", "emitters", "verifiers", "renderers", "runtime extensions",
    "commands",
)
ExtractorKey = tuple[str, str, str]


@dataclass(frozen=True)
class Provided(Generic[T]):
    """A record and the plugin that provided it."""

    item: T
    plugin: PluginInfo


class Registry:
    """Ops, options, loaders, extractors, ordered transforms and emitters of the active plugins.

    ``Registry.build`` calls the declaration hooks at once and every other hook when its
    table is first used (see the module docstring): extractors are built per framework,
    an ``extract_op`` implementation naming ``framework`` being asked for that framework
    only, one that does not being called once with its records kept for every framework.
    A conflict is raised when the table holding it is built; a plugin whose hook fails is
    left out of every table, those built before included. ``Registry()`` is an empty
    registry (for tests of transforms).
    """

    def __init__(self) -> None:
        self.ops = OpTable()
        self.options = OptionTable()
        self._loaders: list[Provided[Loader]] = []
        self._emitters: dict[str, Provided[Emitter]] = {}
        self._extractors: dict[ExtractorKey, list[Provided[Extractor]]] = {}
        self._plans: dict[Phase, list[Provided[Transform]]] = {}
        self._verifiers: dict[str, Provided[Verifier]] = {}
        self._renderers: dict[str, Provided[Renderer]] = {}
        self._runtime_extensions: dict[str, Provided[RuntimeExtension]] = {}
        self._hints: list[Provided[InstallHint]] = []
        self._commands: dict[str, Provided[Command]] = {}
        # What lazy building needs; ``_hooks`` is None for a registry made by hand.
        self._hooks: GuardedHooks | None = None
        self._declarations: PerPlugin = {}
        self._reserved_flags: tuple[str, ...] = ()
        self._built: set[str] = set()  # tables built (see _TABLES)
        self._extracted: set[str] = set()  # frameworks whose extractors are in
        self._extracted_all = False
        self._unaware: dict[str, list[Extractor]] = {}  # extract_op results of impls without ``framework``
        self._lock = threading.RLock()  # one builder at a time (a host may serve several threads)
        # Clashes recorded instead of raised (the first provider kept, the second's record
        # left out): declarations' always, the other tables' under ``complete(tolerate_clashes=True)``.
        self._declaration_clashes: list[PluginClash] = []
        self._table_clashes: list[PluginClash] = []
        self._tolerate_clashes = False

    # ------------------------------------------------------------ building
    @classmethod
    def build(
        cls,
        pm: pluggy.PluginManager,
        infos: dict[str, PluginInfo],
        *,
        strict: bool = False,
        reserved_flags: Sequence[str] = (),
        trace: Callable[[str], None] | None = None,
    ) -> Registry:
        """Call the declaration hooks of every active plugin now, the others on first use.

        A plugin whose hook raises (or returns something that is not a record) is marked
        failed with the reason and left out entirely; with ``strict`` it is fatal, and every
        table is built at once, so every hook's failure and every conflict surfaces here.
        Two plugins declaring the same key is always an error naming both.
        """
        for info in infos.values():
            info.counts = {}
        registry = cls()
        registry._hooks = GuardedHooks(pm, infos, strict=strict, trace=trace)
        registry._reserved_flags = tuple(reserved_flags)
        registry._declarations = registry._hooks.call_all(DECLARATION_HOOKS, {})
        registry._declare()
        if strict:
            registry.raise_declaration_clashes()
            registry.complete()
        return registry

    def complete(self, *, tolerate_clashes: bool = False) -> Registry:
        """Build every table now: every hook of every plugin runs, every conflict is found,
        and each plugin's counts are final (what ``irconv plugins`` shows). With
        ``tolerate_clashes`` a clash is recorded in ``clashes`` instead of raised, so the
        whole table can still be shown."""
        self._tolerate_clashes = tolerate_clashes
        try:
            for table in _TABLES:
                self._ensure(table)
                if table == "load_model":
                    self._ensure_extractors(None)
        finally:
            self._tolerate_clashes = False
        if self._hooks is not None:
            for info in self._hooks.infos.values():
                info.counts = {k: info.counts[k] for k in _COUNT_ORDER if k in info.counts}
        return self

    @property
    def clashes(self) -> list[PluginClash]:
        """Every clash recorded so far (see ``complete``)."""
        return [*self._declaration_clashes, *self._table_clashes]

    def _clash(self, clash: PluginClash) -> None:
        if not self._tolerate_clashes:
            raise clash
        self._table_clashes.append(clash)

    def raise_declaration_clashes(self) -> None:
        """Ops and options are declared at start-up for every command, so their clashes are
        only recorded then; a conversion, which needs both tables, raises the first here."""
        if self._declaration_clashes:
            raise self._declaration_clashes[0]

    def _declare(self) -> None:
        """The op and option tables from the active plugins' declarations (again after a
        plugin failed: its declarations go too)."""
        assert self._hooks is not None
        self.ops, self.options = OpTable(), OptionTable()
        self._declaration_clashes = []
        for name, per_hook in self._declarations.items():
            info = self._hooks.infos[name]
            if info.status != "active":
                continue
            for option in per_hook.get("declare_options", ()):
                try:
                    self.options.add(option, info.label(), self._reserved_flags)
                except PluginClash as clash:
                    self._declaration_clashes.append(clash)
            for op in per_hook.get("declare_ops", ()):
                try:
                    self.ops.add(op, info.label())
                except PluginClash as clash:
                    self._declaration_clashes.append(clash)
            for what, hook in (("options", "declare_options"), ("ops", "declare_ops")):
                if per_hook.get(hook):
                    info.counts[what] = len(per_hook[hook])

    def _ensure(self, table: str) -> None:
        """Build ``table`` (a hook name, or ``transforms`` for the three phases) if not yet."""
        if self._hooks is None or table in self._built:
            return
        with self._lock:
            if table in self._built:
                return
            if table == "transforms":
                self._build_plans()
            elif table == "load_model":
                self._loaders = list(self._keyed("load_model", lambda r: r.framework, "loader for", "loaders").values())
            elif table == "emit":
                self._emitters = self._keyed("emit", lambda r: r.format, "emitter format", "emitters")
            elif table == "verify_model":
                self._verifiers = self._keyed("verify_model", lambda r: r.framework, "verifier for", "verifiers")
            elif table == "runtime_extensions":
                self._runtime_extensions = self._keyed(
                    "runtime_extensions", lambda r: r.opset, "runtime extension for", "runtime extensions"
                )
            elif table == "render_graph":
                self._renderers = self._keyed("render_graph", lambda r: r.format, "renderer format", "renderers")
            elif table == "declare_hints":
                self._hints = self._active(self._records("declare_hints"))
            elif table == "cli_command":
                self._commands = self._keyed("cli_command", lambda r: r.name, "command", "commands")
            self._built.add(table)

    def _records(self, hook_name: str, arguments: Mapping[str, Any] | None = None) -> list[Provided[Any]]:
        """Call ``hook_name`` of every active plugin: its records with their plugin."""
        assert self._hooks is not None
        found: list[Provided[Any]] = []
        for impl in self._hooks.implementations(hook_name):
            records = self._hooks.call(impl, hook_name, REGISTRATION_HOOKS[hook_name], arguments or {})
            if records is None:
                self._drop(self._hooks.info(impl))
                continue
            found += [Provided(record, self._hooks.info(impl)) for record in records]
        return found

    @staticmethod
    def _active(provided: list[Provided[T]]) -> list[Provided[T]]:
        return [p for p in provided if p.plugin.status == "active"]

    def _keyed(self, hook_name: str, key: Callable[[Any], str], what: str, count: str) -> dict[str, Provided[Any]]:
        table: dict[str, Provided[Any]] = {}
        for provided in self._active(self._records(hook_name)):
            name = key(provided.item)
            if name in table:
                self._clash(PluginClash(f"{what} {name!r}", table[name].plugin.label(), provided.plugin.label()))
                continue
            table[name] = provided
        for provided in table.values():
            _count(provided.plugin, count)
        return table

    def _build_plans(self) -> None:
        by_phase = [(phase, p) for phase, hook in _PHASE_HOOKS.items() for p in self._records(hook)]
        by_phase.sort(key=lambda entry: entry[1].plugin.name)  # stable: phases in order per plugin
        owner: dict[str, Provided[Transform]] = {}
        provided_by_phase: dict[Phase, list[Provided[Transform]]] = {phase: [] for phase in Phase}
        for phase, provided in by_phase:
            if provided.plugin.status != "active":
                continue
            tid = provided.item.id
            if tid in owner:
                self._clash(PluginClash(f"transform id {tid!r}", owner[tid].plugin.label(), provided.plugin.label()))
                continue
            owner[tid] = provided
            provided_by_phase[phase].append(provided)
        plans = {phase: order_transforms(provided) for phase, provided in provided_by_phase.items()}
        self._plans = plans
        for provided in owner.values():
            _count(provided.plugin, "transforms")

    def _ensure_extractors(self, framework: str | None) -> None:
        """The extractors of ``framework`` (None: of every framework) into the table."""
        if self._hooks is None or self._extracted_all or framework in self._extracted:
            return
        with self._lock:
            if not (self._extracted_all or framework in self._extracted):
                self._build_extractors(framework)

    def _build_extractors(self, framework: str | None) -> None:
        assert self._hooks is not None
        found: list[Provided[Extractor]] = []
        for impl in self._hooks.implementations("extract_op"):
            info = self._hooks.info(impl)
            records: list[Extractor] | None
            if "framework" in impl.argnames:
                records = self._hooks.call(impl, "extract_op", Extractor, {"ops": self.ops, "framework": framework},
                                           self._check_produces)
            elif impl.plugin_name in self._unaware:
                records = self._unaware[impl.plugin_name]
            else:  # written before the hook had ``framework``: everything, once
                records = self._hooks.call(impl, "extract_op", Extractor, {"ops": self.ops}, self._check_produces)
                if records is not None:
                    self._unaware[impl.plugin_name] = records
            if records is None:
                self._drop(info)
                continue
            found += [
                Provided(record, info)
                for record in records
                if (framework is None or record.framework == framework) and record.framework not in self._extracted
            ]
        table: dict[ExtractorKey, list[Provided[Extractor]]] = {}
        for provided in self._active(found):
            try:
                _add_extractor(table, provided)
            except PluginClash as clash:
                self._clash(clash)
        self._extractors.update(table)  # keys hold the framework: none of them was there
        for entries in table.values():
            for provided in entries:
                _count(provided.plugin, "extractors")
        if framework is None:
            self._extracted_all = True
        else:
            self._extracted.add(framework)

    def _check_produces(self, record: Extractor) -> None:
        """Every op class an extractor says it produces must be a declared op. (The
        deprecated free-text form is not checked: it never named classes; nor is an
        extraction-only op, without an opset, which the emitter refuses if it is left.)"""
        for made in record.produces:
            extraction_only = made.version <= 0 and not made.custom_opset
            if not made.__dict__.get("named_only", False) and not extraction_only and self.ops.info(made) is None:
                raise PluginError(f"extractor {record.key_text()} produces {made.__name__} ({made.type}), "
                                  "which no installed plugin declares (declare_ops)")

    def _drop(self, info: PluginInfo) -> None:
        """Leave a plugin whose hook just failed out of every table built so far."""

        def kept(table: dict[str, Provided[T]]) -> dict[str, Provided[T]]:
            return {key: p for key, p in table.items() if p.plugin is not info}

        self._loaders = [p for p in self._loaders if p.plugin is not info]
        self._emitters, self._verifiers, self._renderers = (
            kept(self._emitters),
            kept(self._verifiers),
            kept(self._renderers),
        )
        self._runtime_extensions = kept(self._runtime_extensions)
        self._commands = kept(self._commands)
        self._hints = [p for p in self._hints if p.plugin is not info]
        for key in list(self._extractors):
            self._extractors[key] = [p for p in self._extractors[key] if p.plugin is not info]
            if not self._extractors[key]:
                del self._extractors[key]
        self._plans = {
            phase: order_transforms([p for p in plan if p.plugin is not info]) for phase, plan in self._plans.items()
        }
        self._unaware.pop(info.name, None)
        self._declare()
        info.counts = {}

    # ------------------------------------------------------------ tables
    @property
    def loaders(self) -> list[Provided[Loader]]:
        """The loaders, in plugin-name order."""
        self._ensure("load_model")
        return self._loaders

    @property
    def emitters(self) -> dict[str, Provided[Emitter]]:
        self._ensure("emit")
        return self._emitters

    @property
    def runtime_extensions(self) -> dict[str, Provided[RuntimeExtension]]:
        """OpenVINO extensions by the custom opset they implement."""
        self._ensure("runtime_extensions")
        return self._runtime_extensions

    @property
    def verifiers(self) -> dict[str, Provided[Verifier]]:
        self._ensure("verify_model")
        return self._verifiers

    @property
    def renderers(self) -> dict[str, Provided[Renderer]]:
        self._ensure("render_graph")
        return self._renderers

    @property
    def hints(self) -> list[InstallHint]:
        """The core's install hints, then the plugins' in plugin-name order."""
        self._ensure("declare_hints")
        return [*BUILTIN_HINTS, *(p.item for p in self._hints)]

    @property
    def commands(self) -> dict[str, Provided[Command]]:
        """The command-line subcommands plugins add, by name."""
        self._ensure("cli_command")
        return self._commands

    # ------------------------------------------------------------ lookups
    def find_extractor(self, framework: str, domain: str, op: str, opset: int) -> Extractor | None:
        found = self.find_provided_extractor(framework, domain, op, opset)
        return None if found is None else found.item

    def find_provided_extractor(self, framework: str, domain: str, op: str, opset: int) -> Provided[Extractor] | None:
        """The extractor for ``op`` at ``opset`` with the plugin that provides it."""
        self._ensure_extractors(framework)
        for entry in self._extractors.get((framework, domain, op), ()):
            if opset in entry.item.opsets:
                return entry
        return None

    def failed_plugins(self) -> list[PluginInfo]:
        """The plugins marked failed so far (an import, a hook or a record that went wrong)."""
        if self._hooks is None:
            return []
        return [info for _, info in sorted(self._hooks.infos.items()) if info.status == "failed"]

    def owner_of_op(self, op: type[Op]) -> str:
        """The label (distribution and version) of the plugin that declared ``op``, or ''."""
        declared = self.ops.info(op)
        return "" if declared is None else declared.owner

    def extractors_for(self, framework: str, domain: str, op: str) -> list[Provided[Extractor]]:
        self._ensure_extractors(framework)
        return list(self._extractors.get((framework, domain, op), ()))

    def all_extractors(self, framework: str | None = None) -> list[Provided[Extractor]]:
        self._ensure_extractors(framework)
        result = [e for entries in self._extractors.values() for e in entries]
        if framework is not None:
            result = [e for e in result if e.item.framework == framework]
        return sorted(result, key=lambda e: (e.item.framework, e.item.domain, e.item.op, e.item.opsets.start))

    def frameworks(self) -> list[str]:
        return sorted({loader.item.framework for loader in self.loaders})

    def framework_named(self, name: str) -> str:
        """The installed framework ``name`` means: a loader's framework or one of its
        aliases, in any case. An unknown name is a ``UsageError`` listing the installed ones."""
        wanted = name.strip().lower()
        for provided in self.loaders:
            loader = provided.item
            if wanted in (loader.framework.lower(), *(alias.lower() for alias in loader.aliases)):
                return loader.framework
        installed = ", ".join(self.frameworks()) or "none"
        raise UsageError(f"unknown framework {name!r} (installed: {installed})")

    def plan(self, phase: Phase) -> list[Provided[Transform]]:
        """The ordered transforms of a phase, disabled ones included."""
        self._ensure("transforms")
        return list(self._plans.get(phase, ()))

    def transform_ids(self) -> set[str]:
        self._ensure("transforms")
        return {p.item.id for phase in Phase for p in self._plans.get(phase, ())}

    def renamed_transforms(self) -> dict[str, str]:
        """Former id -> current id, for the transforms that were renamed."""
        self._ensure("transforms")
        return {old: p.item.id for phase in Phase for p in self._plans.get(phase, ()) for old in p.item.former_ids}

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


def _add_extractor(table: dict[ExtractorKey, list[Provided[Extractor]]], provided: Provided[Extractor]) -> None:
    """Add one extractor; an opset range overlapping another plugin's for the same op is a
    ``PluginClash`` (the record is then not added)."""
    extractor, info = provided.item, provided.plugin
    entries = table.setdefault(extractor.key, [])
    for existing in entries:
        overlap = range(
            max(existing.item.opsets.start, extractor.opsets.start),
            min(existing.item.opsets.stop, extractor.opsets.stop),
        )
        if overlap:
            where = f"opset {overlap.start}" if len(overlap) == 1 else f"opsets {overlap.start}-{overlap[-1]}"
            if overlap.stop > NEWEST:
                where = f"opsets {overlap.start}+"
            raise PluginClash(f"{extractor.key_text()} {where}", existing.plugin.label(), info.label())
    entries.append(provided)
    entries.sort(key=lambda p: p.item.opsets.start)


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
    "runtime_extensions": RuntimeExtension,
    "declare_hints": InstallHint,
    "cli_command": Command,
}

#: The tables built on demand, in the order ``complete`` builds them (the extractors, built
#: per framework, come right after the loaders): the order the hooks above are listed in.
_TABLES = (
    "load_model", "transforms", "emit", "verify_model", "render_graph", "declare_hints", "runtime_extensions",
    "cli_command",
)

PerPlugin = dict[str, dict[str, list[Any]]]


def _count(info: PluginInfo, what: str) -> None:
    info.counts[what] = info.counts.get(what, 0) + 1


def order_transforms(provided: list[Provided[Transform]]) -> list[Provided[Transform]]:
    """Topological order over run_after/run_before, ties broken by id.

    Ids that name no installed transform are ignored; a cycle is an error naming
    the transforms in it.
    """
    by_id = {p.item.id: p for p in provided}
    current = {old: p.item.id for p in provided for old in p.item.former_ids}
    after: dict[str, set[str]] = {tid: set() for tid in by_id}  # tid runs after these
    for p in provided:
        t = p.item
        after[t.id].update(current.get(dep, dep) for dep in t.run_after if current.get(dep, dep) in by_id)
        for later in (current.get(tid, tid) for tid in t.run_before):
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
