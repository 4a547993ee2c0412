"""Finding a tensor by the names users give on the command line."""

from __future__ import annotations

from irconv.graph._graph import Graph
from irconv.graph._port import OutPort


def find_tensor(graph: Graph, name: str) -> OutPort | None:
    """The output port carrying tensor ``name``: a tensor name, ``node:port`` (an output of
    node), ``port:node`` (what feeds that input of node) or a node name (its output 0)."""
    for node in graph.nodes():
        for port in node.out_ports():
            if name in port.data.names:
                return port
    node_name, _, port_text = name.rpartition(":")
    if node_name and port_text.isdigit() and graph.has_node(node_name):
        return graph.node(node_name).out_port(int(port_text))
    port_text, _, node_name = name.partition(":")
    if port_text.isdigit() and graph.has_node(node_name):  # port:node, what feeds that input
        return graph.node(node_name).in_port(int(port_text)).get_source()
    if graph.has_node(name):
        return graph.node(name).out_port(0)
    return None
