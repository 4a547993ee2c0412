"""Extractors for If, Loop and TensorIterator layers: bodies and port maps back into ops."""

from __future__ import annotations

from collections.abc import Callable

from irconv import ExtractContext
from irconv.errors import ConversionError, quoted, shortened
from irconv.graph import Graph, Node
from irconv.ops import Op, SourceOp
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, If, Loop, SliceSpec, TensorIterator

from irconv_ir.ir_model import IrLayer
from irconv_ir.meta import LAYER_NODES

Extract = Callable[[Node, ExtractContext], Op]
PortMap = tuple[tuple[BodyInput, ...], tuple[BodyOutput, ...], int, int]


class _BodyIndex:
    """Body layer ids -> positions among the body's Parameters and Results."""

    def __init__(self, body: Graph, where: str) -> None:
        self.where = where
        nodes = body.meta.get(LAYER_NODES, {})
        parameter_pos = {n.id: i for i, n in enumerate(body.parameters())}
        result_pos = {n.id: i for i, n in enumerate(body.results())}
        self.parameters = {lid: parameter_pos[nid] for lid, nid in nodes.items() if nid in parameter_pos}
        self.results = {lid: result_pos[nid] for lid, nid in nodes.items() if nid in result_pos}

    def parameter(self, layer_id: int) -> int:
        if layer_id not in self.parameters:
            raise ConversionError(f"{self.where}: port map names body layer {layer_id}, which is not a Parameter")
        return self.parameters[layer_id]

    def result(self, layer_id: int) -> int:
        if layer_id not in self.results:
            raise ConversionError(f"{self.where}: port map names body layer {layer_id}, which is not a Result")
        return self.results[layer_id]


def _int(attributes: dict[str, str], key: str, where: str, default: str | None = None) -> int:
    """A port map's integer attribute; missing or not an integer is an error about the file."""
    text = attributes.get(key, default)
    try:
        return int(text if text is not None else "")
    except ValueError:
        raise ConversionError(f"{where}: port map attribute {key}={shortened(repr(text))} is not an integer") from None


def _slice(attributes: dict[str, str], where: str) -> SliceSpec | None:
    if "axis" not in attributes:
        return None
    return SliceSpec(
        axis=_int(attributes, "axis", where),
        start=_int(attributes, "start", where, "0"),
        stride=_int(attributes, "stride", where, "1"),
        part_size=_int(attributes, "part_size", where, "1"),
        end=_int(attributes, "end", where, "-1"),
    )


def _port_map(layer: IrLayer, tag: str, index: _BodyIndex) -> PortMap:
    """(inputs, outputs, current_iteration, condition_output) of one port map."""
    inputs: list[BodyInput] = []
    outputs: list[BodyOutput] = []
    current_iteration = condition_output = -1
    input_count = len(layer.inputs)
    for kind, attributes in layer.port_maps.get(tag, []):
        external = _int(attributes, "external_port_id", index.where)
        internal = _int(attributes, "internal_layer_id", index.where)
        purpose = attributes.get("purpose", "")
        if kind == "input":
            if purpose == "current_iteration":
                current_iteration = index.parameter(internal)
            else:
                inputs.append(BodyInput(external, index.parameter(internal), _slice(attributes, index.where)))
        elif kind == "output":
            if purpose == "execution_condition":
                condition_output = index.result(internal)
            else:
                outputs.append(BodyOutput(external - input_count, index.result(internal), _slice(attributes, index.where)))
    return tuple(inputs), tuple(outputs), current_iteration, condition_output


def _source(node: Node) -> tuple[SourceOp, IrLayer, str]:
    op = node.op
    assert isinstance(op, SourceOp)
    return op, op.source, f"IR layer {quoted(node.name)} ({op.op_type})"


def _body(op: SourceOp, tag: str, where: str) -> Graph:
    if tag not in op.bodies:
        raise ConversionError(f"{where}: the layer has no <{tag}>")
    body: Graph = op.bodies[tag]
    return body


def _loop_parts(node: Node) -> tuple[Graph, PortMap, tuple[BackEdge, ...]]:
    """The body, port map and back edges of a Loop or TensorIterator layer."""
    op, layer, where = _source(node)
    body = _body(op, "body", where)
    index = _BodyIndex(body, where)
    back_edges = tuple(BackEdge(index.result(src), index.parameter(dst)) for src, dst in layer.back_edges)
    return body, _port_map(layer, "port_map", index), back_edges


def _loop(node: Node, ctx: ExtractContext) -> Op:
    body, (inputs, outputs, current_iteration, condition_output), back_edges = _loop_parts(node)
    loop: Op = Loop(
        body=body,
        input_map=inputs,
        output_map=outputs,
        back_edges=back_edges,
        current_iteration=current_iteration,
        condition_output=condition_output,
    )
    return loop


def _tensor_iterator(node: Node, ctx: ExtractContext) -> Op:
    body, (inputs, outputs, _, _), back_edges = _loop_parts(node)
    iterator: Op = TensorIterator(body=body, input_map=inputs, output_map=outputs, back_edges=back_edges)
    return iterator


def _conditional(node: Node, ctx: ExtractContext) -> Op:
    op, layer, where = _source(node)
    then_body, else_body = _body(op, "then_body", where), _body(op, "else_body", where)
    then_in, then_out, _, _ = _port_map(layer, "then_port_map", _BodyIndex(then_body, where))
    else_in, else_out, _, _ = _port_map(layer, "else_port_map", _BodyIndex(else_body, where))
    conditional: Op = If(
        then_body=then_body,
        else_body=else_body,
        then_inputs=then_in,
        else_inputs=else_in,
        then_outputs=then_out,
        else_outputs=else_out,
    )
    return conditional


#: The control-flow ops whose layers carry bodies and port maps, not just ``<data>``.
CONTROL_FLOW_EXTRACTORS: dict[type[Op], Extract] = {
    Loop: _loop,
    TensorIterator: _tensor_iterator,
    If: _conditional,
}
