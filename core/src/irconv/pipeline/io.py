"""Model boundary edits asked for by the user: input overrides and output cuts."""

from __future__ import annotations

from irconv.errors import UserError
from irconv.graph import Graph, Node, OutPort
from irconv.ops import Parameter, Result
from irconv.pipeline.options import ConversionOptions


def input_names(node: Node) -> list[str]:
    return [node.name, *node.out_port(0).data.names]


def apply_input_overrides(graph: Graph, options: ConversionOptions) -> None:
    """Set the shape/type of Parameters named by ``--input``; unknown names are an error."""
    if not options.inputs:
        return
    parameters = graph.parameters()
    used = set()
    for index, node in enumerate(parameters):
        op = node.op
        assert isinstance(op, Parameter)
        spec = None
        for name in input_names(node):
            spec = options.input_override(name, index, len(parameters))
            if spec is not None:
                break
        if spec is None:
            continue
        used.add(spec.name)
        if spec.shape is not None:
            op.shape = spec.shape
        if spec.element_type is not None:
            op.element_type = spec.element_type
        graph.mark_dirty(node)
    unknown = [s.name or "(unnamed)" for s in options.inputs if s.name not in used]
    if unknown:
        known = ", ".join(n.out_port(0).data.names[0] if n.out_port(0).data.names else n.name for n in parameters)
        hint = "" if any(s.name for s in options.inputs) or len(parameters) == 1 else "; name the input"
        raise UserError(f"--input {', '.join(unknown)}: no such model input (inputs: {known or 'none'}){hint}")


def find_tensor(graph: Graph, name: str) -> OutPort | None:
    """The output port carrying tensor ``name``, or the node ``name`` (``node:port``)."""
    for node in graph.nodes():
        for port in node.out_ports():
            if name in port.data.names:
                return port
    node_name, _, port_text = name.rpartition(":")
    if node_name and port_text.isdigit() and graph.has_node(node_name):
        return graph.node(node_name).out_port(int(port_text))
    if graph.has_node(name):
        return graph.node(name).out_port(0)
    return None


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
