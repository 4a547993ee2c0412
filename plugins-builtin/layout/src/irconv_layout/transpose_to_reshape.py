"""A transpose that only moves size-1 dimensions is a reshape (e.g. [N,1,1,C] -> [N,C,1,1])."""

from __future__ import annotations

import numpy as np
from irconv.graph import Graph, Node
from irconv import TransformContext
from irconv.plugins import Transform

from irconv_layout.options import DISABLE_NHWC_TO_NCHW

from irconv_layout.perm import add_const, refresh, transpose_perm


class TransposeToReshape(Transform):
    """Transpose(x, p) -> Reshape(x, spec, special_zero) when p keeps the order of non-unit dims.

    The spec copies dims that stay in place (0), writes the unit dims (1) and infers at most
    one moved dim (-1), so the IR stays reshapeable (no static batch is pinned).
    """

    id = "layout.transpose_to_reshape"
    run_after = ("layout.sink_transposes", "layout.hoist_transposes")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return not ctx.options.get(DISABLE_NHWC_TO_NCHW) and bool(graph.by_type("Transpose"))

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        changed = False
        for node in graph.by_type("Transpose"):
            changed = _replace(graph, node) or changed
        return changed


def _reshape_spec(shape: tuple[int | None, ...], perm: tuple[int, ...]) -> list[int] | None:
    moving = [axis for axis in perm if shape[axis] != 1]
    if moving != sorted(moving):
        return None  # the data really moves
    spec = []
    for position, axis in enumerate(perm):
        if shape[axis] == 1:
            spec.append(1)
        elif axis == position:
            spec.append(0)
        else:
            spec.append(-1)
    return spec if spec.count(-1) <= 1 else None


def _replace(graph: Graph, node: Node) -> bool:
    from irconv_opset import Reshape

    perm = transpose_perm(node)
    source = node.in_port(0).get_source()
    if perm is None or source is None:
        return False
    shape = source.data.get_shape()
    if shape is None or len(shape) != len(perm):
        return False
    spec = _reshape_spec(shape, perm)
    if spec is None:
        return False
    target = add_const(graph, np.asarray(spec, dtype=np.int64), f"{node.name}/shape")
    reshape = graph.add_node(Reshape(special_zero=True), f"{node.name}/as_reshape", [source, target])
    node.out_port(0).get_connection().set_source(reshape.out_port(0))
    perm_node = node.in_port(1).get_source()
    for port in node.in_ports():
        port.disconnect()
    graph.remove_node(node)
    if perm_node is not None and not perm_node.node.users():
        graph.remove_node(perm_node.node)
    refresh(reshape)
    return True
