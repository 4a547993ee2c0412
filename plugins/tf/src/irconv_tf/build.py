"""The flat TF node table as an irconv graph of ``SourceOp``, ``Const`` and ``Parameter`` nodes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from irconv.errors import ModelFileError, quoted
from irconv.graph import Graph, Node
from irconv.graph.budget import PORT_BYTES, declared_size
from irconv.ops import Const, Op, Parameter, Result, SourceOp
from irconv.types import ElementType, MaybeShape

from irconv_tf import FRAMEWORK
from irconv_tf.dtypes import DT_STRING, base_dtype, element_type
from irconv_tf.inline import OUTPUT_ARGS
from irconv_tf.nodes import Tensor, TFNode, reachable


@dataclass
class Endpoint:
    """A model input or output: the tensor, the names it is known by, an optional shape."""

    tensor: Tensor
    names: list[str] = field(default_factory=list)
    shape: MaybeShape = None
    has_shape: bool = False


def output_counts(nodes: dict[str, TFNode], used: Sequence[str], outputs: Sequence[Tensor]) -> dict[str, int]:
    counts = {name: len(OUTPUT_ARGS.get(nodes[name].op, ())) or 1 for name in used}
    for name in used:
        for src, port in nodes[name].inputs:
            counts[src] = max(counts[src], _port_count(port, src, f"read by node {quoted(name)}"))
    for src, port in outputs:
        counts[src] = max(counts[src], _port_count(port, src, "a model output"))
    return counts


def _port_count(port: int, node: str, reader: str) -> int:
    """Outputs node ``node`` has for output ``port`` to exist: each becomes a graph port, so the
    index is a size the file declares."""
    return declared_size(port, field="output index", where=f"node {quoted(node)} ({reader})", unit_bytes=PORT_BYTES) + 1


def build_graph(
    nodes: dict[str, TFNode],
    inputs: Sequence[Endpoint],
    outputs: Sequence[Endpoint],
    name: str = "model",
    bodies: dict[str, dict[str, Graph]] | None = None,
) -> Graph:
    """Create the graph of everything the outputs need; declared inputs become Parameters."""
    graph = Graph(name, FRAMEWORK)
    input_by_node = {ep.tensor[0]: ep for ep in inputs}
    order = reachable(nodes, [ep.tensor for ep in outputs])
    # Declared inputs first and in their order: body graphs match Parameters by position.
    declared = [ep.tensor[0] for ep in inputs]
    order = declared + [n for n in order if n not in input_by_node]
    counts = output_counts(nodes, order, [ep.tensor for ep in outputs])
    made: dict[str, Node] = {}
    for node_name in order:
        tf_node = nodes[node_name]
        endpoint = input_by_node.get(node_name)
        made[node_name] = graph.add_node(_op_for(tf_node, counts[node_name], endpoint, bodies), node_name)
        made[node_name].origin = node_name
        if endpoint is not None or tf_node.op == "Placeholder":
            port = made[node_name].out_port(0)
            for alias in (endpoint.names if endpoint else []) + [node_name, f"{node_name}:0"]:
                port.data.add_name(alias)
    for node_name in order:
        node = made[node_name]
        for idx, (src, output) in enumerate(nodes[node_name].inputs):
            node.in_port(idx).connect(made[src].out_port(output))
    for ep in outputs:
        port = made[ep.tensor[0]].out_port(ep.tensor[1])
        for alias in ep.names:
            port.data.add_name(alias)
        graph.add_node(Result(), f"{ep.names[0] if ep.names else ep.tensor[0]}/sink", [port])
    return graph


def _op_for(
    tf_node: TFNode, n_outputs: int, endpoint: Endpoint | None, bodies: dict[str, dict[str, Graph]] | None
) -> Op:
    where = f"node {quoted(tf_node.name)}"
    if tf_node.value is not None:
        return Const(tf_node.value)
    if tf_node.op == "Const":
        value = tf_node.need("value")
        if value.dtype != object:
            return Const(value)
    if tf_node.op == "Placeholder" or endpoint is not None:
        dtype = tf_node.get("dtype", 1)
        if base_dtype(dtype) == DT_STRING:
            raise ModelFileError(f"model input {quoted(tf_node.name)} is a string tensor, which the IR cannot take")
        shape: MaybeShape = tf_node.get("shape")
        if endpoint is not None and endpoint.has_shape:
            shape = endpoint.shape
        return Parameter(shape, element_type(dtype, where) if dtype else ElementType.f32)
    return SourceOp(
        framework=FRAMEWORK,
        op_type=tf_node.op,
        n_outputs=n_outputs,
        source=tf_node,
        bodies=(bodies or {}).get(tf_node.name, {}),
        attributes=tf_node,
    )


def default_outputs(nodes: dict[str, TFNode], consumed: set[str]) -> list[Endpoint]:
    """A frozen graph's outputs: nodes nobody reads that compute something."""
    skip = {"NoOp", "Const", "Placeholder", "Assert", "SaveV2", "RestoreV2", "VarHandleOp", "VariableV2"}
    result = []
    for node in nodes.values():
        if node.name in consumed or node.op in skip:
            continue
        n = len(OUTPUT_ARGS.get(node.op, ())) or 1
        if node.op in ("Split", "SplitV"):
            n = declared_size(
                node.get("num_split", 1), field="num_split", where=f"node {quoted(node.name)}", unit_bytes=PORT_BYTES
            )
        elif node.op == "Unpack":
            n = declared_size(node.get("num", 1), field="num", where=f"node {quoted(node.name)}", unit_bytes=PORT_BYTES)
        for port in range(n):
            result.append(Endpoint((node.name, port), [f"{node.name}:{port}"] + ([node.name] if port == 0 else [])))
    return result


def consumed_nodes(nodes: dict[str, TFNode], control_consumers: set[str]) -> set[str]:
    used = {src for node in nodes.values() for src, _ in node.inputs}
    return used | control_consumers
