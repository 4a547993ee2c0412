"""Running a phase: the ordered transforms, re-inference, and contract checks."""

from __future__ import annotations

import time
from dataclasses import dataclass

from irconv.contract.context import TransformContext
from irconv.contract.progress import Progress
from irconv.contract.records import Phase, Transform
from irconv.errors import GraphError, IrconvError, PluginFault, quoted
from irconv.graph import Graph
from irconv.graph.infer import reinfer
from irconv.ops import SourceOp
from irconv.plugins.registry import Provided


@dataclass(frozen=True)
class TransformRun:
    """What one transform did: whether it changed the graph, how long it took, node counts."""

    id: str
    changed: bool
    seconds: float
    nodes_before: int
    nodes_after: int


def run_phase(
    graph: Graph, phase: Phase, ctx: TransformContext, progress: Progress | None = None
) -> list[TransformRun]:
    """Run the phase's plan; returns what each transform that ran did.

    A transform's return value is used: after one that changed the graph, the nodes it left
    marked dirty are re-inferred (middle and back phases); a ``fixed_point`` transform runs
    again while it reports a change. With ``options.validate`` (tests, ``--debug``) the graph
    is checked after every transform, a transform that reports no change must have made
    none, and a failure names the transform and the ones that ran before it.
    """
    runs: list[TransformRun] = []
    planned = [
        p for p in ctx.plan(phase) if p.item.enabled and p.item.id not in ctx.options.disabled_transforms
    ]
    if progress is not None:
        progress.stage(f"{phase.value} transforms", len(planned), "transforms")
    for provided in planned:
        transform = provided.item
        if progress is not None:
            progress.advance(0, transform.id)
        if not transform.condition(graph, ctx):
            if progress is not None:
                progress.advance(1)
            continue
        start, before = time.perf_counter(), len(graph)
        ran_before = [run.id for run in runs]
        changed_any = False
        try:
            for _ in range(transform.MAX_ROUNDS if transform.fixed_point else 1):
                marked_before = graph.dirty_marks() if ctx.options.validate else frozenset()
                names_before = tensor_names(graph) if ctx.options.validate else {}
                changed = transform.apply(graph, ctx)
                if not isinstance(changed, bool):
                    raise GraphError(f"apply() returned {changed!r}; it must return True or False")
                if not changed:
                    if ctx.options.validate and graph.dirty_marks() - marked_before:
                        raise GraphError("apply() returned False but edited the graph")
                    if ctx.options.validate and tensor_names(graph) != names_before:
                        raise GraphError("apply() returned False but renamed tensors")
                    break
                changed_any = True
                if phase is not Phase.FRONT:
                    reinfer(graph)
                if ctx.options.validate:
                    validate_graph(graph, extracted=True)
        except IrconvError as exc:
            if isinstance(exc, GraphError):
                raise GraphError(_blame(provided, ran_before, str(exc))) from exc
            raise
        except Exception as exc:  # not raised on purpose: the transform's bug
            previous = ", ".join(ran_before[-5:]) or "none"
            raise PluginFault(f"in transform {transform.id!r} (ran before it: {previous})", exc,
                              provided.plugin.label()) from exc
        runs.append(TransformRun(transform.id, changed_any, time.perf_counter() - start, before, len(graph)))
        if progress is not None:
            progress.advance(1)
    if phase is Phase.FRONT:
        graph.take_dirty()
    return runs


def tensor_names(graph: Graph) -> dict[tuple[str, int], tuple[str, ...]]:
    """Every output port's tensor names, by (node name, port): the edits that mark no node dirty."""
    return {
        (node.name, port.idx): tuple(port.data.names)
        for node in graph.nodes()
        for port in node.out_ports()
        if port.data.names
    }


def _blame(provided: Provided[Transform], ran: list[str], message: str) -> str:
    before = ", ".join(ran[-5:]) or "none"
    return (
        f"transform {provided.item.id!r} ({provided.plugin.label()}) failed: {message} (ran before it: {before})"
    )


def validate_graph(graph: Graph, *, extracted: bool) -> None:
    """Structural checks: no cycle, inputs connected without gaps, no source ops left."""
    graph.topological_order()
    for node in graph.nodes():
        if extracted and isinstance(node.op, SourceOp):
            raise GraphError(f"node {quoted(node.name)} still holds unextracted {node.op.describe()}")
        ports = node.in_ports()
        if any(not p.is_connected() for p in ports) and node.op.is_opset_op:
            missing = [p.idx for p in ports if not p.is_connected()]
            raise GraphError(f"node {quoted(node.name)} ({node.op.describe()}) has unconnected inputs {missing}")
        if node.type == "Result" and len(ports) != 1:
            raise GraphError(f"Result {quoted(node.name)} must have exactly one input")
