"""Running a phase: the ordered transforms, re-inference, and contract checks."""

from __future__ import annotations

from irconv.errors import ConversionError, GraphError, IrconvError
from irconv.graph import Graph
from irconv.ops import SourceOp
from irconv.pipeline.context import TransformContext
from irconv.pipeline.infer import reinfer
from irconv.plugins.records import Phase


def run_phase(graph: Graph, phase: Phase, ctx: TransformContext) -> list[str]:
    """Run the phase's plan; returns the ids that ran.

    After each middle/back transform the nodes it touched are re-inferred. With
    ``options.validate`` (tests, ``--debug``) the graph is checked after every transform
    and a failure names the transform and the ones that ran before it.
    """
    ran: list[str] = []
    for provided in ctx.registry.plan(phase):
        transform = provided.item
        if not transform.enabled or transform.id in ctx.options.disabled_transforms:
            continue
        if not transform.condition(graph, ctx):
            continue
        try:
            transform.apply(graph, ctx)
            if phase is not Phase.FRONT:
                reinfer(graph)
            if ctx.options.validate:
                validate_graph(graph, extracted=True)
        except IrconvError as exc:
            if isinstance(exc, GraphError):
                raise GraphError(_blame(transform.id, ran, str(exc))) from exc
            raise
        except Exception as exc:
            raise ConversionError(_blame(transform.id, ran, f"{type(exc).__name__}: {exc}")) from exc
        ran.append(transform.id)
    if phase is Phase.FRONT:
        graph.take_dirty()
    return ran


def _blame(tid: str, ran: list[str], message: str) -> str:
    before = ", ".join(ran[-5:]) or "none"
    return f"transform {tid!r} failed: {message} (ran before it: {before})"


def validate_graph(graph: Graph, *, extracted: bool) -> None:
    """Structural checks: no cycle, inputs connected without gaps, no source ops left."""
    graph.topological_order()
    for node in graph.nodes():
        if extracted and isinstance(node.op, SourceOp):
            raise GraphError(f"node {node.name!r} still holds unextracted {node.op.describe()}")
        ports = node.in_ports()
        if any(not p.is_connected() for p in ports) and node.op.is_opset_op:
            missing = [p.idx for p in ports if not p.is_connected()]
            raise GraphError(f"node {node.name!r} ({node.op.describe()}) has unconnected inputs {missing}")
        if node.type == "Result" and len(ports) != 1:
            raise GraphError(f"Result {node.name!r} must have exactly one input")
