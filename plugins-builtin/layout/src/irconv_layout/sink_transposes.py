"""Move transposes towards the outputs through ops that let them pass, and cancel inverse pairs.

Rules, for T = Transpose(x, p) with a constant p (ops are recognised by their traits, so an
op from any plugin that declares them takes part):
  Transpose(Transpose(x, p1), p2) -> Transpose(x, p1[p2]), dropped when that is the identity;
  f(T(x), params) -> T(f(x), params) for a LAYOUT_AGNOSTIC f;
  g(T(x), c) -> T(g(x, c')) for an ELEMENTWISE g, c a constant (broadcast to rank and
    permuted by p^-1) or T(y) with the same p;
  Concat(T(x_i), axis) -> T(Concat(x_i, p[axis]));
  Reduce(T(x), axes) -> Reduce(x, p[axes]) then the permutation of the kept axes (REDUCTION);
  Pad(T(x), b, e) -> T(Pad(x, b[p^-1], e[p^-1])) for constant pads;
  StridedSlice(T(x), b, e, s) -> T(StridedSlice(x, ...[p^-1])) without new/shrink/ellipsis axes;
  ShapeOf(T(x)) -> Gather(ShapeOf(x), p);
  Gather(table, T(x), 0) -> T(Gather(table, x, 0)) for a constant 1-D table (a lookup);
  MatMul(T(x), W) -> T(Convolution(x, W^T as 1x..x1 filters)) when T moves channels last and W
    is a constant matrix: a dense layer over the channels of an image is a 1x1 convolution.
Anything else stops a transpose, so a model's boundary keeps its own layout.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np
from irconv import (
    Graph,
    Match,
    Node,
    Op,
    OutPort,
    Rewriter,
    Trait,
    Transform,
    TransformContext,
    any_,
    const,
    op,
    rewrite_greedily,
)
from irconv_opset import Concat, Convolution, Gather, MatMul, Pad, ShapeOf_v1, StridedSlice, Transpose

from irconv_layout.options import DISABLE_NHWC_TO_NCHW
from irconv_layout.perm import (
    Perm,
    channels_last,
    compose,
    inverse,
    is_identity,
    permuted_const,
    transpose,
    transpose_after,
    transpose_perm,
)

TRANSPOSE = op(Transpose, any_("x"), const(), bind="t")


@runtime_checkable
class _Reduction(Protocol):
    """What ``Trait.REDUCTION`` promises besides the axes at input 1."""

    keep_dims: bool


class SinkTransposes(Transform):
    """Sink constant transposes through layout-agnostic ops and cancel inverse pairs."""

    id = "layout.sink_transposes"

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return not ctx.options.get(DISABLE_NHWC_TO_NCHW) and graph.has_type(Transpose.type)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [_SinkRule()], frozen=ctx.is_frozen) > 0


class _SinkRule:
    roots = (TRANSPOSE,)

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        t = match["t"]
        perm = transpose_perm(t)
        if perm is None:
            return False
        if _fold_pair(rw, t, perm):
            return True
        for destination in t.out_port(0).get_destinations():
            consumer = destination.node
            if consumer.num_outputs() == 1 and _through(rw, t, consumer, destination.idx, perm):
                return True
        return False


def _fold_pair(rw: Rewriter, t: Node, p2: Perm) -> bool:
    """Transpose(Transpose(x, p1), p2) -> Transpose(x, p1[p2]) or x."""
    source = t.in_port(0).get_source()
    assert source is not None
    p1 = transpose_perm(source.node)
    if p1 is None or len(p1) != len(p2):
        return False
    inner = source.node.in_port(0).get_source()
    assert inner is not None
    combined = compose(p1, p2)
    rw.replace(t, inner if is_identity(combined) else transpose(rw, inner, combined, f"{t.name}/combined"))
    return True


def _through(rw: Rewriter, t: Node, consumer: Node, port_idx: int, perm: Perm) -> bool:
    """Move ``t`` below ``consumer`` (which reads it at input ``port_idx``) if a rule allows."""
    x = t.in_port(0).get_source()
    assert x is not None
    if consumer.op.has(Trait.LAYOUT_AGNOSTIC):
        if port_idx != 0:
            return False
        with rw.batch():
            rw.set_input(consumer.in_port(0), x)
            transpose_after(rw, consumer, perm)
        return True
    if consumer.op.has(Trait.ELEMENTWISE) or isinstance(consumer.op, Concat):
        return _through_all_inputs(rw, t, consumer, perm)
    if port_idx == 1 and _is_table_lookup(consumer):
        with rw.batch():
            rw.set_input(consumer.in_port(1), x)
            transpose_after(rw, consumer, perm)
        return True
    if port_idx != 0:
        return False
    if consumer.op.has(Trait.REDUCTION):
        return _through_reduction(rw, consumer, perm, x)
    rule = next((rule for kinds, rule in _SINGLE_INPUT_RULES if isinstance(consumer.op, kinds)), None)
    return rule is not None and rule(rw, consumer, perm, x)


def _is_table_lookup(node: Node) -> bool:
    """Gather(table, indices, 0) from a constant 1-D table: each output element is the
    table's entry at the index in the same place, so it maps indices element-wise."""
    if not isinstance(node.op, Gather) or node.op.batch_dims != 0:
        return False
    table, axis = node.in_port(0).constant(shape_derived=False), node.in_port(2).constant(shape_derived=False)
    return table is not None and table.ndim == 1 and axis is not None and int(np.asarray(axis).reshape(-1)[0]) == 0


def _through_all_inputs(rw: Rewriter, t: Node, consumer: Node, perm: Perm) -> bool:
    """Every input is ``T(..)`` with the same perm, or a constant permuted to match."""
    inv = inverse(perm)
    concat = consumer.op if isinstance(consumer.op, Concat) else None
    sources: list[OutPort | np.ndarray | None] = []
    for port in consumer.in_ports():
        source = port.get_source()
        assert source is not None
        if transpose_perm(source.node) == perm:
            sources.append(source.node.in_port(0).get_source())
            continue
        value = source.constant(shape_derived=False)
        if value is None or value.ndim > len(perm) or (concat is not None and value.ndim != len(perm)):
            return False
        sources.append(None if value.ndim == 0 else value)  # a 0-d scalar broadcasts as it is
    with rw.batch():
        for port, new in zip(consumer.in_ports(), sources, strict=True):
            if isinstance(new, np.ndarray):
                new = rw.const(permuted_const(new, inv), name=f"{consumer.name}/permuted{port.idx}")
            if new is not None:
                rw.set_input(port, new)
        if concat is not None:
            axis = concat.axis
            rw.replace_op(consumer, dataclasses.replace(concat, axis=perm[axis + len(perm) if axis < 0 else axis]))
        transpose_after(rw, consumer, perm)
    return True


def _through_reduction(rw: Rewriter, consumer: Node, perm: Perm, x: OutPort) -> bool:
    rank = len(perm)
    axes_value = consumer.in_port(1).constant(shape_derived=False)
    if axes_value is None or not isinstance(consumer.op, _Reduction):
        return False
    keep_dims = consumer.op.keep_dims
    axes = sorted({int(a) + rank if a < 0 else int(a) for a in np.asarray(axes_value).reshape(-1)})
    kept = [perm[i] for i in range(rank) if i not in axes]
    remaining = tuple(sorted(kept).index(k) for k in kept)
    with rw.batch():
        rw.set_input(consumer.in_port(0), x)
        new_axes = rw.const(np.asarray([perm[a] for a in axes], np.int64), name=f"{consumer.name}/axes")
        rw.set_input(consumer.in_port(1), new_axes)
        if keep_dims:
            transpose_after(rw, consumer, perm)
        elif not is_identity(remaining):
            transpose_after(rw, consumer, remaining)
    return True


def _through_pad(rw: Rewriter, consumer: Node, perm: Perm, x: OutPort) -> bool:
    begin, end = (consumer.in_port(i).constant(shape_derived=False) for i in (1, 2))
    if begin is None or end is None or np.asarray(begin).size != len(perm):
        return False
    order = list(inverse(perm))
    with rw.batch():
        rw.set_input(consumer.in_port(0), x)
        rw.set_input(consumer.in_port(1), rw.const(np.asarray(begin)[order], name=f"{consumer.name}/pads_begin"))
        rw.set_input(consumer.in_port(2), rw.const(np.asarray(end)[order], name=f"{consumer.name}/pads_end"))
        transpose_after(rw, consumer, perm)
    return True


def _through_strided_slice(rw: Rewriter, consumer: Node, perm: Perm, x: OutPort) -> bool:
    """Plain slices only: new/shrink/ellipsis masks change the rank or axis meaning."""
    sliced = consumer.op
    rank = len(perm)
    if not isinstance(sliced, StridedSlice):
        return False
    if any(sliced.new_axis_mask) or any(sliced.shrink_axis_mask) or any(sliced.ellipsis_mask):
        return False
    values = [consumer.in_port(i).constant(shape_derived=False) for i in range(1, consumer.num_inputs())]
    if len(values) < 2 or any(v is None or np.asarray(v).size != rank for v in values):
        return False
    order = list(inverse(perm))

    def permuted(mask: list[int]) -> list[int]:
        full = list(mask) + [0] * (rank - len(mask))
        return [full[i] for i in order]

    with rw.batch():
        rw.set_input(consumer.in_port(0), x)
        for i, value in enumerate(values, start=1):
            rw.set_input(consumer.in_port(i), rw.const(np.asarray(value)[order], name=f"{consumer.name}/permuted{i}"))
        rw.replace_op(
            consumer,
            dataclasses.replace(
                sliced,
                begin_mask=permuted(sliced.begin_mask),
                end_mask=permuted(sliced.end_mask),
                new_axis_mask=[0] * rank,
                shrink_axis_mask=[0] * rank,
                ellipsis_mask=[0] * rank,
            ),
        )
        transpose_after(rw, consumer, perm)
    return True


def _shape_of_transposed(rw: Rewriter, consumer: Node, perm: Perm, x: OutPort) -> bool:
    """ShapeOf(T(x)) -> Gather(ShapeOf(x), p): no data transpose kept alive for a shape."""
    with rw.batch():
        rw.set_input(consumer.in_port(0), x)
        indices = rw.const(np.asarray(perm, np.int64), name=f"{consumer.name}/perm")
        axis = rw.const(np.asarray(0, np.int64), name=f"{consumer.name}/axis")
        rw.insert_after(consumer.out_port(0), Gather(batch_dims=0), [indices, axis], name=f"{consumer.name}/permuted")
    return True


def _matmul_over_channels(rw: Rewriter, consumer: Node, perm: Perm, x: OutPort) -> bool:
    matmul = consumer.op
    rank = len(perm)
    weights = consumer.in_port(1).constant(shape_derived=False)
    if not 3 <= rank <= 5 or perm != channels_last(rank) or weights is None or weights.ndim != 2:
        return False
    if not isinstance(matmul, MatMul) or matmul.transpose_a:
        return False
    matrix = weights.T if not matmul.transpose_b else weights
    filters = np.ascontiguousarray(matrix).reshape(matrix.shape + (1,) * (rank - 2))
    spatial = rank - 2
    conv = Convolution(strides=(1,) * spatial, dilations=(1,) * spatial, pads_begin=(0,) * spatial,
                       pads_end=(0,) * spatial)
    with rw.batch():
        node = rw.insert(conv, [x, rw.const(filters, name=f"{consumer.name}/filters")], name=f"{consumer.name}/1x1")
        transposed = transpose_after(rw, node, perm)
        rw.replace(consumer, transposed.out_port(0))
    return True


#: Rules for ops read through input 0 only; every version of each op (Pad-1 and ShapeOf-3
#: derive from the classes named).
_SINGLE_INPUT_RULES: tuple[tuple[type[Op], Callable[[Rewriter, Node, Perm, OutPort], bool]], ...] = (
    (MatMul, _matmul_over_channels),
    (Pad, _through_pad),
    (StridedSlice, _through_strided_slice),
    (ShapeOf_v1, _shape_of_transposed),
)
