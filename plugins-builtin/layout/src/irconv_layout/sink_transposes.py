"""Move transposes towards the outputs through layout-agnostic ops, and cancel inverse pairs.

Rules, for T = Transpose(x, p) with a constant p:
  Transpose(Transpose(x, p1), p2) -> Transpose(x, p1[p2]), dropped when that is the identity;
  f(T(x)) -> T(f(x)) for element-wise unary f;
  g(T(x), c) -> T(g(x, c')) for element-wise binary g, c a constant (broadcast to rank and
    permuted by p^-1) or T(y) with the same p;
  Concat(T(x_i), axis) -> T(Concat(x_i, p[axis]));
  Reduce(T(x), axes) -> Reduce(x, p[axes]) then the permutation of the kept axes;
  Pad(T(x), b, e) -> T(Pad(x, b[p^-1], e[p^-1])) for constant pads;
  StridedSlice(T(x), b, e, s) -> T(StridedSlice(x, ...[p^-1])) without new/shrink/ellipsis axes;
  ShapeOf(T(x)) -> Gather(ShapeOf(x), p).
Anything else stops a transpose, so a model's boundary keeps its own layout.
"""

from __future__ import annotations

import numpy as np
from irconv.graph import Graph, InPort, Node
from irconv import TransformContext
from irconv.plugins import Transform

from irconv_layout.options import DISABLE_NHWC_TO_NCHW

from irconv_layout.perm import (
    Perm,
    add_const,
    add_transpose,
    compose,
    inverse,
    is_identity,
    refresh,
    transpose_perm,
)

UNARY = frozenset(
    {
        "ReLU",
        "Clamp",
        "Sigmoid",
        "Tanh",
        "Exp",
        "Log",
        "Sqrt",
        "Abs",
        "Negative",
        "Sign",
        "Floor",
        "Ceiling",
        "Round",
        "Erf",
        "Elu",
        "Selu",
        "SoftPlus",
        "SoftSign",
        "HSwish",
        "HSigmoid",
        "Mish",
        "Swish",
        "Gelu",
        "Convert",
        "LogicalNot",
        "Sin",
        "Cos",
        "Tan",
        "Asin",
        "Acos",
        "Atan",
        "Sinh",
        "Cosh",
        "Asinh",
        "Acosh",
        "Atanh",
        "IsNaN",
        "IsInf",
        "IsFinite",
        "FakeConvert",
    }
)
BINARY = frozenset(
    {
        "Add",
        "Subtract",
        "Multiply",
        "Divide",
        "Maximum",
        "Minimum",
        "Power",
        "SquaredDifference",
        "FloorMod",
        "Mod",
        "Equal",
        "NotEqual",
        "Less",
        "LessEqual",
        "Greater",
        "GreaterEqual",
        "LogicalAnd",
        "LogicalOr",
        "LogicalXor",
        "PReLU",
    }
)
REDUCE = frozenset(
    {
        "ReduceSum",
        "ReduceMean",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogicalAnd",
        "ReduceLogicalOr",
    }
)


class SinkTransposes(Transform):
    """Sink constant transposes through layout-agnostic ops and cancel inverse pairs."""

    id = "layout.sink_transposes"

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return not ctx.options.get(DISABLE_NHWC_TO_NCHW) and bool(graph.by_type("Transpose"))

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        changed = False
        worklist = graph.by_type("Transpose")
        while worklist:
            node = worklist.pop(0)
            if node not in graph:
                continue
            made = _fold_pair(graph, node)
            if made is None:
                made = _sink(graph, node)
            if made is not None:
                changed = True
                for new in made:
                    if new in graph:
                        worklist.append(new)
                        worklist.extend(
                            d.node for d in new.out_port(0).get_destinations() if d.node.type == "Transpose"
                        )
        if changed:
            graph.clean_up()
        return changed


def _fold_pair(graph: Graph, node: Node) -> list[Node] | None:
    """Transpose(Transpose(x, p1), p2) -> Transpose(x, p1[p2]) or x."""
    p2 = transpose_perm(node)
    source = node.in_port(0).get_source()
    if p2 is None or source is None:
        return None
    p1 = transpose_perm(source.node)
    if p1 is None or len(p1) != len(p2):
        return None
    inner = source.node.in_port(0).get_source()
    assert inner is not None
    combined = compose(p1, p2)
    if is_identity(combined):
        node.out_port(0).get_connection().set_source(inner)
        _drop_if_unused(graph, node)
        _drop_if_unused(graph, source.node)
        return [d.node for d in inner.get_destinations() if d.node.type == "Transpose"]
    replacement = add_transpose(graph, inner, combined, f"{node.name}/combined")
    node.out_port(0).get_connection().set_source(replacement.out_port(0))
    _drop_if_unused(graph, node)
    _drop_if_unused(graph, source.node)
    refresh(replacement.in_port(1).get_source().node, replacement)  # type: ignore[union-attr]
    return [replacement]


def _sink(graph: Graph, node: Node) -> list[Node] | None:
    """Push ``node`` below one consumer that lets it through; returns the new transposes."""
    perm = transpose_perm(node)
    if perm is None:
        return None
    for destination in node.out_port(0).get_destinations():
        consumer = destination.node
        if destination.idx != 0 and consumer.type not in BINARY and consumer.type != "Concat":
            continue
        if consumer.num_outputs() != 1:
            continue
        made = _through(graph, node, consumer, perm)
        if made is not None:
            _drop_if_unused(graph, node)
            return made + ([node] if node in graph else [])
    return None


def _through(graph: Graph, node: Node, consumer: Node, perm: Perm) -> list[Node] | None:
    kind = consumer.type
    x = node.in_port(0).get_source()
    assert x is not None
    inv = inverse(perm)
    rank = len(perm)
    if kind in UNARY and consumer.in_port(0).get_source() == node.out_port(0):
        consumer.in_port(0).connect(x)
        return [_transpose_after(graph, consumer, perm)]
    if kind in BINARY or kind == "Concat":
        ports = consumer.in_ports()
        rewired: list[tuple[InPort, object]] = []
        for port in ports:
            source = port.get_source()
            assert source is not None
            if source == node.out_port(0):
                rewired.append((port, x))
                continue
            other = transpose_perm(source.node)
            if other == perm:
                rewired.append((port, source.node.in_port(0).get_source()))
                continue
            value = source.data.get_value()
            if value is None or kind == "Concat" or value.ndim > rank:
                return None
            aligned = np.asarray(value).reshape((1,) * (rank - value.ndim) + value.shape)
            rewired.append((port, add_const(graph, np.transpose(aligned, inv), f"{consumer.name}/permuted")))
        dropped = [p.get_source().node for p, _ in rewired]  # type: ignore[union-attr]
        for port, source in rewired:
            port.connect(source)  # type: ignore[arg-type]
        if kind == "Concat":
            axis = consumer.op.axis  # type: ignore[attr-defined]
            consumer.op = type(consumer.op)(axis=perm[axis + rank if axis < 0 else axis])
        for old in dropped:
            if old.type == "Transpose":
                _drop_if_unused(graph, old)
            elif old.type == "Const" and not old.users():
                graph.remove_node(old)
        return [_transpose_after(graph, consumer, perm)]
    if kind in REDUCE and consumer.in_port(0).get_source() == node.out_port(0):
        return _through_reduce(graph, node, consumer, perm, x)
    if kind == "ShapeOf":
        return _shape_of_transposed(graph, consumer, perm, x)
    if kind == "StridedSlice" and consumer.in_port(0).get_source() == node.out_port(0):
        return _through_strided_slice(graph, consumer, perm, x)
    if kind == "Pad" and consumer.in_port(0).get_source() == node.out_port(0):
        begin, end = consumer.input_value(1), consumer.input_value(2)
        if begin is None or end is None or np.asarray(begin).size != rank:
            return None
        consumer.in_port(0).connect(x)
        consumer.in_port(1).connect(add_const(graph, np.asarray(begin)[list(inv)], f"{consumer.name}/pads_begin"))
        consumer.in_port(2).connect(add_const(graph, np.asarray(end)[list(inv)], f"{consumer.name}/pads_end"))
        return [_transpose_after(graph, consumer, perm)]
    return None


def _shape_of_transposed(graph: Graph, consumer: Node, perm: Perm, x) -> list[Node]:  # type: ignore[no-untyped-def]
    """ShapeOf(T(x)) -> Gather(ShapeOf(x), p): no data transpose kept alive for a shape."""
    from irconv_opset import Gather

    consumer.in_port(0).connect(x)
    gather = graph.add_node(Gather(batch_dims=0), f"{consumer.name}/permuted", [None])
    consumer.out_port(0).get_connection().insert_node(gather)
    gather.in_port(1).connect(add_const(graph, np.asarray(perm, np.int64), f"{consumer.name}/perm"))
    gather.in_port(2).connect(add_const(graph, np.asarray(0, np.int64), f"{consumer.name}/axis"))
    refresh(consumer, gather)
    return []


def _through_strided_slice(graph: Graph, consumer: Node, perm: Perm, x) -> list[Node] | None:  # type: ignore[no-untyped-def]
    """StridedSlice(T(x), b, e, s) -> T(StridedSlice(x, b[p^-1], e[p^-1], s[p^-1])), plain slices only."""
    op = consumer.op
    rank = len(perm)
    if any(any(getattr(op, m)) for m in ("new_axis_mask", "shrink_axis_mask", "ellipsis_mask")):
        return None
    values = [consumer.input_value(i) for i in range(1, consumer.num_inputs())]
    if len(values) < 2 or any(v is None or np.asarray(v).size != rank for v in values):
        return None
    inv = list(inverse(perm))
    consumer.in_port(0).connect(x)
    for i, value in enumerate(values, start=1):
        consumer.in_port(i).connect(add_const(graph, np.asarray(value)[inv], f"{consumer.name}/permuted{i}"))

    def permuted(mask: list[int]) -> list[int]:
        full = list(mask) + [0] * (rank - len(mask))
        return [full[i] for i in inv]

    consumer.op = type(op)(
        begin_mask=permuted(op.begin_mask),  # type: ignore[attr-defined]
        end_mask=permuted(op.end_mask),  # type: ignore[attr-defined]
        new_axis_mask=[0] * rank,
        shrink_axis_mask=[0] * rank,
        ellipsis_mask=[0] * rank,
    )
    return [_transpose_after(graph, consumer, perm)]


def _through_reduce(graph: Graph, node: Node, consumer: Node, perm: Perm, x) -> list[Node] | None:  # type: ignore[no-untyped-def]
    rank = len(perm)
    axes_value = consumer.input_value(1)
    if axes_value is None:
        return None
    axes = sorted({int(a) + rank if a < 0 else int(a) for a in np.asarray(axes_value).reshape(-1)})
    consumer.in_port(0).connect(x)
    consumer.in_port(1).connect(
        add_const(graph, np.asarray([perm[a] for a in axes], np.int64), f"{consumer.name}/axes")
    )
    if consumer.op.keep_dims:  # type: ignore[attr-defined]
        return [_transpose_after(graph, consumer, perm)]
    kept = [perm[i] for i in range(rank) if i not in axes]
    order = sorted(kept)
    remaining = tuple(order.index(k) for k in kept)
    if is_identity(remaining):
        refresh(consumer)
        return []
    return [_transpose_after(graph, consumer, remaining)]


def _transpose_after(graph: Graph, consumer: Node, perm: Perm) -> Node:
    after = add_transpose(graph, None, perm, f"{consumer.name}/transposed")
    consumer.out_port(0).get_connection().insert_node(after)
    refresh(consumer, after)
    return after


def _drop_if_unused(graph: Graph, node: Node) -> None:
    if node in graph and not node.users() and not node.out_port(0).data.names:
        perm_source = node.in_port(1).get_source() if node.num_inputs() > 1 else None
        for port in node.in_ports():
            port.disconnect()
        graph.remove_node(node)
        if perm_source is not None and not perm_source.node.users() and perm_source.node.type == "Const":
            graph.remove_node(perm_source.node)
