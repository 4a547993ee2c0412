"""``to_networkx``: the graph as a ``networkx.MultiDiGraph``, for people who analyse graphs.

networkx is an optional extra (``pip install irconv-core[networkx]``) imported only here:
the core's own adjacency is what conversions use. The core's tests also use this view as an
independent oracle of that adjacency (topological order, cycles, reachability).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irconv.graph._graph import Graph


def to_networkx(graph: Graph) -> Any:
    """A ``networkx.MultiDiGraph`` with one node per graph node (keyed by name, with ``type``
    and ``op`` attributes) and one edge per connection (``out_port``, ``in_port`` attributes,
    keyed ``"out->in"``)."""
    try:
        import networkx
    except ImportError as exc:
        from irconv.errors import UserError

        raise UserError("to_networkx needs networkx: pip install irconv-core[networkx]") from exc
    view = networkx.MultiDiGraph(name=graph.name)
    for node in graph.nodes():
        view.add_node(node.name, type=node.type, op=node.op)
    for node in graph.nodes():
        for in_port in node.in_ports():
            source = in_port.get_source()
            if source is not None:
                view.add_edge(source.node.name, node.name, key=f"{source.idx}->{in_port.idx}",
                              out_port=source.idx, in_port=in_port.idx)
    return view
