"""Model boundary edits asked for by the user: inputs (overrides, cuts, fixed values) and output cuts."""

from __future__ import annotations

import numpy as np

from irconv.contract.input_spec import InputSpec
from irconv.contract.options import ConversionOptions
from irconv.errors import UserError, quoted
from irconv.graph import Graph, Node, OutPort
from irconv.graph.tensors import find_tensor
from irconv.ops import Const, Parameter, Result
from irconv.types import ElementType
from irconv.values import summarise_value


def input_names(node: Node) -> list[str]:
    return [node.name, *node.out_port(0).data.names]


def apply_input_overrides(graph: Graph, options: ConversionOptions) -> list[str]:
    """Make the model's inputs what ``--input`` says, before extraction.

    A spec naming a model input overrides its shape/type (and bounds); one naming an
    internal tensor (``node:0``, ``0:node`` or a tensor name) cuts the graph there, so
    everything that only fed it is dropped before unsupported ops are looked for; a spec
    with a value turns the input into a constant. Unknown names are one error listing the
    model's inputs. Returns the notes for the user (the values inputs were fixed to).
    """
    if not options.inputs:
        return []
    parameters = graph.parameters()
    chosen: list[tuple[Node, InputSpec]] = []
    unknown: list[InputSpec] = []
    cut = False
    for spec in options.inputs:
        node = _model_input(spec, parameters)
        if node is None and spec.name:
            node = _cut_at(graph, spec)
            cut = cut or node is not None
        if node is None:
            unknown.append(spec)
            continue
        _override(node, spec)
        chosen.append((node, spec))
    if unknown:
        names = ", ".join(s.name or "(unnamed)" for s in unknown)
        known = ", ".join(n.out_port(0).data.names[0] if n.out_port(0).data.names else n.name for n in parameters)
        hint = "" if any(s.name for s in unknown) or len(parameters) == 1 else "; name the input"
        raise UserError(
            f"--input {names}: no such model input or tensor (inputs: {known or 'none'}){hint}; "
            "an internal tensor is named by its tensor name, node:port or port:node"
        )
    if cut:
        graph.clean_up()
        kept = {node.id for node, _ in chosen}
        for node in graph.parameters():
            if node.id not in kept and not node.users():
                graph.remove_node(node)
    notes = []
    for node, spec in chosen:
        if spec.value is not None:
            name = spec.name or input_names(node)[-1]
            notes.append(f"input {name!r} fixed to {summarise_value(_freeze(graph, node, spec))}")
    return notes


def _model_input(spec: InputSpec, parameters: list[Node]) -> Node | None:
    for index, node in enumerate(parameters):
        if spec.name in input_names(node) or (spec.name == "" and len(parameters) == 1 and index == 0):
            return node
    return None


def _cut_at(graph: Graph, spec: InputSpec) -> Node | None:
    """A new Parameter in place of the tensor ``spec`` names; None if it names nothing."""
    port_text, _, node_name = spec.name.partition(":")
    if port_text.isdigit() and graph.has_node(node_name):
        consumer = graph.node(node_name).in_port(int(port_text))
        source = consumer.get_source()
        if source is None:
            raise UserError(f"--input {spec.name}: input {port_text} of node {quoted(node_name)} is not connected")
        new = graph.add_node(_parameter_like(source), spec.name)
        new.out_port(0).data.add_name(spec.name)
        consumer.connect(new.out_port(0))
        return new
    source = find_tensor(graph, spec.name)
    if source is None:
        return None
    if source.node.type == "Parameter":
        return source.node
    new = graph.add_node(_parameter_like(source), spec.name)
    source.get_connection().set_source(new.out_port(0))
    new.out_port(0).data.add_name(spec.name)
    return new


def _parameter_like(source: OutPort) -> Parameter:
    """A Parameter with what the loader knew of the tensor (f32 of unknown shape otherwise)."""
    et = source.data.element_type
    return Parameter(source.data.shape, et if et is not ElementType.dynamic else ElementType.f32)


def _override(node: Node, spec: InputSpec) -> None:
    op = node.op
    assert isinstance(op, Parameter)
    if spec.shape is not None:
        op.shape = spec.shape
        op.bounds = spec.bounds
    if spec.element_type is not None:
        op.element_type = spec.element_type
    graph = node.graph
    graph.mark_dirty(node)


def _freeze(graph: Graph, node: Node, spec: InputSpec) -> np.ndarray:
    """The input becomes a Const of the given value, under the input's name; returns the value."""
    op = node.op
    assert isinstance(op, Parameter)
    value = spec.value_array(op.element_type, op.shape)
    const = graph.add_node(Const(value), origin=node.name)
    node.out_port(0).get_connection().set_source(const.out_port(0))
    graph.remove_node(node)
    graph.rename(const, node.name)
    return value


def cut_outputs(graph: Graph, options: ConversionOptions) -> None:
    """Make the tensors named by ``--output`` the model's only outputs."""
    if not options.outputs:
        return
    ports = []
    for name in options.outputs:
        port = find_tensor(graph, name)
        if port is None:
            raise UserError(f"--output {name}: no tensor or node of that name in the model")
        port.data.add_name(name)
        ports.append(port)
    for result in graph.results():
        result.in_port(0).disconnect()
        graph.remove_node(result)
    for name, port in zip(options.outputs, ports, strict=False):
        graph.add_node(Result(), f"{name}/sink", [port])
    graph.clean_up()
