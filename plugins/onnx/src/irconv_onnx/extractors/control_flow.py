"""If and Loop with their sub-graphs (already extracted by the core), as OpenVINO If-8 / Loop-5.

The loader turned outer-scope values a body reads into extra node inputs (after the
ONNX inputs, one body's captures after the other's in the order of ``SourceOp.bodies``,
which is the node's attribute order, not then-before-else) and into body Parameters
created after the body's own inputs.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64
from irconv.graph import Graph, Node, OutPort
from irconv_opset import Const, If, Loop, Squeeze, TensorIterator, Unsqueeze
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, SliceSpec

from irconv_onnx.extractors._optional import HANDLED, with_defaults
from irconv_onnx.meta import CAPTURES


def _bodies(ctx: ExtractContext) -> dict[str, Graph]:
    return dict(ctx.source_op.bodies)


def _own_inputs(ctx: ExtractContext, captures: list[str]) -> int:
    """How many inputs the ONNX node lists (the loader appended the bodies' captures)."""
    return len(ctx.inputs) - len(captures)


@extractor("onnx", "If", produces=[If])
def _if(node: Node, ctx: ExtractContext) -> list[OutPort]:
    bodies = _bodies(ctx)
    then_body, else_body = ctx.body("then_branch"), ctx.body("else_branch")
    external = 1
    maps: dict[str, tuple[BodyInput, ...]] = {}
    for key, body in bodies.items():  # the loader's order: attribute order, often else before then
        captures = body.meta.get(CAPTURES) or []
        maps[key] = tuple(BodyInput(external + i, i) for i in range(len(captures)))
        external += len(captures)
    if len(ctx.inputs) != external:  # the loader appended the captures after the node's own inputs
        raise ConversionError(
            f"{ctx.where()}: an ONNX If takes one input (the condition), the node lists {len(ctx.inputs) - external + 1}"
        )
    outputs = len(node.out_ports())
    op = If(then_body=then_body, else_body=else_body, then_inputs=maps["then_branch"],
            else_inputs=maps["else_branch"],
            then_outputs=tuple(BodyOutput(i, i) for i in range(outputs)),
            else_outputs=tuple(BodyOutput(i, i) for i in range(outputs)))
    inputs = [ctx.input(i) for i in range(external)]
    created = ctx.add(op, inputs, "if")
    return [created.out_port(i) for i in range(outputs)]


def _stack_scan_outputs(body: Graph, first: int) -> None:
    """ONNX stacks scan outputs on a new leading axis: unsqueeze before OpenVINO concatenates."""
    for result in body.results()[first:]:
        source = result.in_port(0).get_source()
        assert source is not None
        axes = body.add_node(Const(np.array([0], np.int64)), f"{result.name}/axes")
        unsqueeze = body.add_node(Unsqueeze(), f"{result.name}/stack", [source, axes.out_port(0)])
        unsqueeze.out_port(0).connect(result.in_port(0))


@extractor("onnx", "Loop", produces=[Loop, Unsqueeze])
@with_defaults({0: HANDLED, 1: HANDLED})
def _loop(node: Node, ctx: ExtractContext) -> list[OutPort]:
    body = ctx.body("body")
    captures = body.meta.get(CAPTURES) or []
    own = _own_inputs(ctx, captures)
    carried = own - 2
    outputs = ctx.source_op.n_outputs
    scans = outputs - carried
    trip = ctx.input(0) if ctx.has_input(0) and not _unbounded_trip(ctx) else i64(ctx, -1, "trip")
    condition = ctx.input(1) if ctx.has_input(1) else ctx.const(np.array(True), suffix="condition")
    inputs = [trip, condition] + [ctx.input(2 + i) for i in range(carried)]
    inputs += [ctx.input(own + i) for i in range(len(captures))]
    # body parameters: iteration, condition, carried..., captures...; results: condition, carried..., scans...
    input_map = [BodyInput(1, 1)] + [BodyInput(2 + i, 2 + i) for i in range(carried)]
    input_map += [BodyInput(2 + carried + i, 2 + carried + i) for i in range(len(captures))]
    back_edges = [BackEdge(0, 1)] + [BackEdge(1 + i, 2 + i) for i in range(carried)]
    output_map = [BodyOutput(i, 1 + i) for i in range(carried)]
    output_map += [BodyOutput(carried + j, 1 + carried + j, SliceSpec(axis=0)) for j in range(scans)]
    _stack_scan_outputs(body, 1 + carried)
    op = Loop(body=body, input_map=tuple(input_map), output_map=tuple(output_map), back_edges=tuple(back_edges),
              current_iteration=0, condition_output=0)
    created = ctx.add(op, inputs, "loop")
    return [created.out_port(i) for i in range(outputs)]


def _unbounded_trip(ctx: ExtractContext) -> bool:
    """A constant trip count of the int64 maximum: exporters write it for "no limit" (a while
    loop), and OpenVINO's own ONNX reader makes it Loop-5's -1. Kept as a count, it would
    plan that many iterations (scan outputs of that length, a ShapeOf folded to it)."""
    value = ctx.input_value(0)
    return value is not None and value.size == 1 and int(value.reshape(-1)[0]) == np.iinfo(np.int64).max


def _squeeze_scan_inputs(body: Graph, first: int, axes: list[int]) -> None:
    """The body sees one slice without the scan axis: squeeze it right after the Parameter."""
    for parameter, axis in zip(body.parameters()[first:first + len(axes)], axes, strict=False):
        port = parameter.out_port(0)
        users = port.get_destinations()
        axes_node = body.add_node(Const(np.array([axis], np.int64)), f"{parameter.name}/scan_axis")
        squeeze = body.add_node(Squeeze(), f"{parameter.name}/slice", [port, axes_node.out_port(0)])
        for user in users:
            squeeze.out_port(0).connect(user)
        for name in port.data.names:
            squeeze.out_port(0).data.add_name(name)


def _unsqueeze_scan_outputs(body: Graph, first: int, axes: list[int]) -> None:
    for result, axis in zip(body.results()[first:], axes, strict=False):
        source = result.in_port(0).get_source()
        assert source is not None
        axes_node = body.add_node(Const(np.array([axis], np.int64)), f"{result.name}/scan_axis")
        unsqueeze = body.add_node(Unsqueeze(), f"{result.name}/stack", [source, axes_node.out_port(0)])
        unsqueeze.out_port(0).connect(result.in_port(0))


@extractor("onnx", "Scan", versions=(9, None), produces=[TensorIterator, Squeeze, Unsqueeze])
def _scan(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Scan-9+ as a TensorIterator: states are back edges, scan inputs/outputs are sliced."""
    a = ctx.attrs
    body = ctx.body("body")
    captures = body.meta.get(CAPTURES) or []
    own = _own_inputs(ctx, captures)
    scans = a.int("num_scan_inputs")
    states = own - scans
    outputs = ctx.source_op.n_outputs - states
    ports = [ctx.input(i) for i in range(own + len(captures))]
    return _scan_iterator(ctx, body, ports[:states], ports[states:own], ports[own:],
                          a.ints("scan_input_axes", [0] * scans), a.ints("scan_input_directions", [0] * scans),
                          a.ints("scan_output_axes", [0] * outputs), a.ints("scan_output_directions", [0] * outputs))


@extractor("onnx", "Scan", versions=(8, 8), produces=[TensorIterator, Squeeze, Unsqueeze])
@with_defaults({0: HANDLED})
def _scan_batched(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Scan-8: every state and scan input has a leading batch axis (scans run along axis 1).
    Supported for a batch of one without sequence_lens: the batch axis is dropped around a
    Scan-9 iteration."""
    a = ctx.attrs
    body = ctx.body("body")
    captures = body.meta.get(CAPTURES) or []
    own = _own_inputs(ctx, captures)
    if ctx.has_input(0):
        raise a.bad("sequence_lens", "given", "Scan-8 with per-batch sequence lengths is not supported")
    for i in range(1, own):
        shape = ctx.input_shape(i)
        if shape is None or shape[0] != 1:
            raise a.bad("batch", shape[0] if shape else "unknown", "Scan-8 is supported for a static batch of 1")
    scans = a.int("num_scan_inputs")
    states = own - 1 - scans
    outputs = ctx.source_op.n_outputs - states
    first = i64(ctx, [0], "batch_axis")
    unbatched = [ctx.op(Squeeze(), ctx.input(i), first, suffix=f"unbatched{i}") for i in range(1, own)]
    captured = [ctx.input(own + c) for c in range(len(captures))]
    results = _scan_iterator(ctx, body, unbatched[:states], unbatched[states:], captured, [0] * scans,
                             a.ints("directions", [0] * scans), [0] * outputs, [0] * outputs)
    return [ctx.op(Unsqueeze(), port, first, suffix=f"batched{k}") for k, port in enumerate(results)]


def _scan_iterator(ctx: ExtractContext, body: Graph, states: list[OutPort], scans: list[OutPort],
                   captures: list[OutPort], in_axes: list[int], in_dirs: list[int], out_axes: list[int],
                   out_dirs: list[int]) -> list[OutPort]:
    def spec(axis: int, reverse: int) -> SliceSpec:
        return SliceSpec(axis=axis, start=-1, stride=-1, part_size=1, end=0) if reverse else SliceSpec(axis=axis)

    n_states, n_scans, outputs = len(states), len(scans), len(out_axes)
    input_map = [BodyInput(i, i) for i in range(n_states)]
    input_map += [BodyInput(n_states + j, n_states + j, spec(in_axes[j], in_dirs[j])) for j in range(n_scans)]
    input_map += [BodyInput(n_states + n_scans + c, n_states + n_scans + c) for c in range(len(captures))]
    back_edges = [BackEdge(i, i) for i in range(n_states)]
    output_map = [BodyOutput(i, i) for i in range(n_states)]
    output_map += [BodyOutput(n_states + k, n_states + k, spec(out_axes[k], out_dirs[k])) for k in range(outputs)]
    _squeeze_scan_inputs(body, n_states, in_axes)
    _unsqueeze_scan_outputs(body, n_states, out_axes)
    op = TensorIterator(body=body, input_map=tuple(input_map), output_map=tuple(output_map),
                        back_edges=tuple(back_edges))
    created = ctx.add(op, [*states, *scans, *captures], "scan")
    return [created.out_port(i) for i in range(n_states + outputs)]
