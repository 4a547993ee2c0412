"""The one-op compile sweep: every op version, and every attribute variant the declarations
allow, emitted by irconv and compiled (then run once) on OpenVINO's CPU plugin.

An IR the runtime reads is not yet one it runs: the CPU plugin lacks some op forms, or some
of them once a shape is dynamic (``Squeeze-15`` with ``allow_axis_skip``). The sweep finds
them before users do. Variants come from the op declarations (``variants``): each enum
member, each ``attr(..., choices=...)`` value and both values of a boolean, one attribute
changed at a time from an input recipe, the ``OpCase`` records of ``tests/cases_*.py`` (every
op class has one). Each is built as a one-op graph with static and with dynamic input
shapes, taken through the back phase and the runtime rules like a converted model, emitted,
read, compiled and run. Outcomes:

- ``compiled``: the runtime read, compiled and ran it;
- ``refused by irconv``: conversion stops with a message (a form the runtime would refuse,
  or a variant this recipe's inputs do not fit);
- ``refused by the runtime``: what the sweep exists to find.

OpenVINO is imported only inside ``run_item``.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irconv.errors import IrconvError
from irconv.ops import Op, format_attr

from irconv_opset.testing import BuiltCase, CaseFile, OpCase, build_case_graph

COMPILED = "compiled"
REFUSED_BY_IRCONV = "refused by irconv"
REFUSED_BY_RUNTIME = "refused by the runtime"


def declared_choices(op_class: type[Op], field: dataclasses.Field[Any]) -> tuple[Any, ...]:
    """The values the declaration allows for ``field``: an enum's members, the ``choices`` of
    ``attr()`` (element types as ``ElementType``), both booleans; () for anything else."""
    hint = typing.get_type_hints(op_class).get(field.name)
    choices = tuple(field.metadata.get("choices", ()))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return tuple(hint(c) for c in choices) if choices else tuple(hint)
    if choices:
        return choices
    if hint is bool:
        return (False, True)
    return ()


def variants(op: Op) -> Iterator[tuple[str, Any]]:
    """``(field, value)`` for each declared value other than ``op``'s own, of each attribute
    ``op`` writes into the IR (an older version that leaves an attribute out has none)."""
    written = op.ir_attributes()
    for field in dataclasses.fields(op):
        if not field.metadata.get("emit", True) or (field.metadata.get("ir") or field.name) not in written:
            continue
        for value in declared_choices(type(op), field):
            if value != getattr(op, field.name):
                yield field.name, value


@dataclass(frozen=True)
class SweepItem:
    """One op form to compile: the recipes of its class (tried in order until irconv accepts
    one), the attribute changed (None: the recipe as written) and whether shapes are dynamic."""

    op_class: type[Op]
    recipes: tuple[OpCase, ...]
    field: str | None
    value: Any
    dynamic: bool

    @property
    def id(self) -> str:
        head = f"{self.op_class.type}-{self.op_class.version}"
        if self.recipes[0].op.custom_opset:
            head = f"{self.op_class.type}-{self.op_class.custom_opset}"
        attribute = (
            f"-{self.recipes[0].id or 'as-written'}"
            if self.field is None
            else (f"-{self.field}={format_attr(self.value)}")
        )
        return f"{head}{attribute}-{'dynamic' if self.dynamic else 'static'}"


@dataclass(frozen=True)
class Outcome:
    item: SweepItem
    status: str
    detail: str = ""
    recipe: str = ""


def sweep_items(files: Sequence[CaseFile]) -> list[SweepItem]:
    """Every op class of the recipes: as written, then each attribute variant, static and
    dynamic (dynamic only where a recipe has a Parameter to make dynamic)."""
    by_class: dict[type[Op], list[OpCase]] = {}
    for file in files:
        for case in file.cases:
            by_class.setdefault(type(case.op), []).append(case)
    items = []
    for op_class, recipes in by_class.items():
        for recipe in recipes:  # each recipe as written: the op's own attribute values
            for dynamic in (False, True) if recipe.has_parameters() else (False,):
                items.append(SweepItem(op_class, (recipe,), None, None, dynamic))
        forms: list[tuple[str, Any]] = []
        for field, value in variants(recipes[0].op):
            if (field, value) not in forms:
                forms.append((field, value))
        dynamic_too = any(r.has_parameters() for r in recipes)
        for field, value in forms:
            for dynamic in (False, True) if dynamic_too else (False,):
                items.append(SweepItem(op_class, tuple(recipes), field, value, dynamic))
    return items


def _with_variant(case: OpCase, item: SweepItem) -> OpCase:
    if item.field is None:
        return case
    return dataclasses.replace(case, op=dataclasses.replace(case.op, **{item.field: item.value}))


def run_item(item: SweepItem, workdir: Path, host: Any, core: Any) -> Outcome:
    """Compile ``item`` with the first recipe irconv accepts with static shapes (a dynamic
    shape hides from irconv an input that does not fit a variant, which the runtime then
    refuses at inference: not what the sweep looks for); run it once on that recipe's inputs.
    ``host`` emits (a ``PluginHost``); ``core`` is an ``openvino.Core``."""
    from irconv.runtime import compile_for_comparison, runtime_reason
    from irconv.testing import finish_graph
    from irconv.testing.runtime import emit_ir

    def converted(case: OpCase, dynamic: bool) -> BuiltCase:
        """The one-op graph as a conversion leaves it: back phase, clean-up, runtime rules."""
        built = build_case_graph(_with_variant(case, item), dynamic)
        finish_graph(built.graph, host.registry())
        return built

    refusals = []
    for case in item.recipes:
        label = case.base_id()
        try:
            if item.dynamic:
                converted(case, False)  # the recipe fits the variant
            built = converted(case, item.dynamic)
            xml, feeds = emit_ir(built.graph, workdir / "sweep.xml", host), built.feeds
        except (IrconvError, ValueError, TypeError) as exc:
            refusals.append(f"{label}: {exc}")
            continue
        try:
            compiled = compile_for_comparison(xml, core=core)
            request = compiled.create_infer_request()
            request.infer({port: feeds[name] for port in compiled.inputs
                           for name in port.get_names() if name in feeds})
        except Exception as exc:  # the runtime's refusal, whatever its type
            return Outcome(item, REFUSED_BY_RUNTIME, runtime_reason(exc), label)
        return Outcome(item, COMPILED, "", label)
    return Outcome(item, REFUSED_BY_IRCONV, refusals[0] if refusals else "no recipe", "")

