"""``x[arange(a0, b0)[:, None], arange(a1, b1)[None, :]]`` (a GatherND) -> a Slice of ``x``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import Graph, Node, OutPort, Rewriter, Transform, TransformContext
from irconv.types import ElementType

#: A Slice stop at least this large takes the axis to its end (PyTorch writes int64's maximum).
_TO_END = 1 << 62


@dataclass(frozen=True)
class _RangeIndex:
    """An index tensor of ``rank`` dims, all 1 but ``axis``, holding ``start .. stop + offset - 1``
    (``stop`` a scalar tensor, ``start`` and ``offset`` known)."""

    start: int
    stop: OutPort
    offset: int
    axis: int
    rank: int


def _ints(port: OutPort | None) -> np.ndarray | None:
    value = port.constant(shape_derived=False) if port is not None else None
    return None if value is None or value.dtype.kind not in "iu" else np.asarray(value).astype(np.int64)


def _source(node: Node, index: int) -> OutPort | None:
    return node.in_port(index).get_source() if index < node.num_inputs() else None


def _range_index(port: OutPort) -> _RangeIndex | None:
    """``port`` as an arange along one axis, through the ops that move or shift it; None otherwise."""
    node, kind = port.node, port.node.op.type
    if kind == "Range":
        start, step, stop = _ints(_source(node, 0)), _ints(_source(node, 2)), _source(node, 1)
        if start is None or step is None or stop is None or start.size != 1 or int(step.reshape(-1)[0]) != 1:
            return None
        return _RangeIndex(int(start.reshape(-1)[0]), stop, 0, 0, 1) if start.reshape(-1)[0] >= 0 else None
    inner_port = _source(node, 0)
    inner = _range_index(inner_port) if inner_port is not None else None
    if inner is None:
        return None
    if kind == "Convert":
        return inner if node.out_port(0).data.element_type.is_integer else None
    if kind == "Add":
        shift = _ints(_source(node, 1))
        if shift is None or shift.size != 1 or shift.ndim > inner.rank or int(shift.reshape(-1)[0]) < 0:
            return None
        value = int(shift.reshape(-1)[0])
        return _RangeIndex(inner.start + value, inner.stop, inner.offset + value, inner.axis, inner.rank)
    if kind == "Unsqueeze":
        axes = _ints(_source(node, 1))
        if axes is None:
            return None
        rank = inner.rank + axes.size
        inserted = sorted(int(a) % rank for a in axes.reshape(-1))
        kept = [a for a in range(rank) if a not in inserted]
        return _RangeIndex(inner.start, inner.stop, inner.offset, kept[inner.axis], rank) if len(kept) == inner.rank else None
    if kind == "Slice":
        begins, ends, steps = (_ints(_source(node, i)) for i in (1, 2, 3))
        if begins is None or ends is None or steps is None:
            return None
        if not (np.all(begins == 0) and np.all(ends >= _TO_END) and np.all(steps == 1)):
            return None
        return inner
    return None


def _broadcast_leaves(port: OutPort) -> list[OutPort]:
    """The operands an Add tree broadcasts together (``port`` itself when it is no Add)."""
    if port.node.op.type != "Add":
        return [port]
    operands = [port.node.in_port(i).get_source() for i in range(2)]
    return [leaf for operand in operands if operand is not None for leaf in _broadcast_leaves(operand)]


def _stacked_indices(indices: OutPort) -> list[OutPort] | None:
    """The index tensors ``Concat(Unsqueeze(Broadcast(p_i, shape(p_0 + p_1 + ...)), -1), axis=-1)``
    stacks (the form irconv-torch writes for ``x[p_0, p_1, ...]``), or None."""
    concat = indices.node
    if concat.op.type != "Concat" or getattr(concat.op, "axis", None) not in (-1,):
        return None
    parts: list[OutPort] = []
    shape_source: OutPort | None = None
    for i in range(concat.num_inputs()):
        last = _source(concat, i)
        if last is None or last.node.op.type != "Unsqueeze" or list(_ints(_source(last.node, 1)) or []) != [-1]:
            return None
        full = _source(last.node, 0)
        if full is None or full.node.op.type != "Broadcast" or getattr(full.node.op, "mode", "") != "numpy":
            return None
        part, shape = _source(full.node, 0), _source(full.node, 1)
        if part is None or shape is None or shape.node.op.type != "ShapeOf" or full.node.num_inputs() != 2:
            return None
        if shape_source is not None and shape != shape_source:
            return None
        shape_source = shape
        parts.append(part)
    common = _source(shape_source.node, 0) if shape_source is not None else None
    if common is None or _broadcast_leaves(common) != parts:
        return None
    return parts


class IndexByRangesAsSlice(Transform):
    """``GatherND(x, stack(broadcast(r_0, r_1, ...)))`` where each ``r_i`` is an arange of
    step 1 from a known start along its own axis of the index shape (axes in order, every
    other dim 1) -> ``Unsqueeze(Slice(x, starts, stops), the other axes)``.

    Element ``q`` of the gather is ``x[r_0[q], r_1[q], ...] = x[a_0 + q[axis_0], a_1 +
    q[axis_1], ...]``: the box ``x[a_0:b_0, a_1:b_1, ...]`` with the index's unit axes
    inserted. The slice reads the box directly where the gather first builds, broadcasts and
    stacks index tensors of the box's size on every run. transformers builds its attention
    masks this way (``attention_mask[batch_arange, kv_arange]``), on every decoding step.
    """

    id = "llm.index_by_ranges_as_slice"

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        changed = False
        rw = Rewriter(graph)
        with rw.batch():
            for node in graph.nodes():
                if node.op.type == "GatherND" and not ctx.is_frozen(node):
                    changed |= self._rewrite(node, rw)
        return changed

    def _rewrite(self, node: Node, rw: Rewriter) -> bool:
        from irconv_opset import Add, Concat, Convert, Reshape, Slice, Unsqueeze

        data, indices = _source(node, 0), _source(node, 1)
        if getattr(node.op, "batch_dims", 0) != 0 or data is None or indices is None:
            return False
        parts = _stacked_indices(indices)
        ranges = [_range_index(p) for p in parts] if parts is not None else None
        if not ranges or any(r is None for r in ranges):
            return False
        known = [r for r in ranges if r is not None]
        rank = known[0].rank
        axes = [r.axis for r in known]
        if any(r.rank != rank for r in known) or axes != sorted(set(axes)):
            return False
        if any(not r.stop.data.element_type.is_integer for r in known):
            return False
        i64 = np.int64
        stops = []
        for r in known:
            stop = rw.op(Convert(destination_type=ElementType.i64), r.stop, like=node)
            stop = rw.op(Reshape(special_zero=False), stop, rw.const(np.array([1], i64), like=node), like=node)
            if r.offset:
                stop = rw.op(Add(), stop, rw.const(np.array([r.offset], i64), like=node), like=node)
            stops.append(stop)
        box = rw.op(
            Slice(),
            data,
            rw.const(np.array([r.start for r in known], i64), like=node),
            stops[0] if len(stops) == 1 else rw.op(Concat(axis=0), *stops, like=node),
            rw.const(np.ones(len(known), i64), like=node),
            rw.const(np.arange(len(known), dtype=i64), like=node),
            like=node,
        )
        unit_axes = [a for a in range(rank) if a not in axes]
        result = rw.op(Unsqueeze(), box, rw.const(np.array(unit_axes, i64), like=node), like=node) if unit_axes else box
        rw.replace(node, result)
        return True

