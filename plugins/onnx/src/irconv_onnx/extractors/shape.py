"""Shape, layout and indexing ops: Reshape ... Slice, Gather/Scatter, Constant*, Range, TopK."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, extractor, f32, i64, normalize_axis
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor
from irconv.types import ElementType
from irconv_opset.build import rank_of, shape_of

from irconv_onnx.extractors._common import opset, unsqueeze_dynamic_axes
from irconv_onnx.extractors._optional import HANDLED, WithDefaults, computed, constant

_BIG = np.iinfo(np.int64).max


def _reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Reshape

    shape = i64(ctx, ctx.attrs.ints("shape"), "shape") if opset(ctx) < 5 else ctx.input(1)
    zero_copies = not ctx.attrs.int("allowzero", 0)
    return [ctx.op(Reshape(special_zero=zero_copies), ctx.input(0), shape)]


def _transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Range, Squeeze, Subtract, Transpose

    perm = ctx.attrs.ints("perm", None)
    x = ctx.input(0)
    if perm is not None:
        order = i64(ctx, perm, "order")
    elif ctx.input_rank(0) is not None:
        order = i64(ctx, list(reversed(range(ctx.input_rank(0) or 0))), "order")
    else:
        rank = ctx.op(Squeeze(), rank_of(ctx, x), i64(ctx, [0]), suffix="rank_scalar")
        start = ctx.op(Subtract(), rank, i64(ctx, 1), suffix="last")
        order = ctx.op(Range(output_type=ElementType.i64), start, i64(ctx, -1), i64(ctx, -1), suffix="order")
    return [ctx.op(Transpose(), x, order)]


def _concat(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import Concat

    return Concat(axis=ctx.attrs.int("axis", 1))


def _split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Split, VariadicSplit

    a = ctx.attrs
    axis = a.int("axis", 0)
    count = len(node.out_ports())
    x = ctx.input(0)
    if opset(ctx) < 13:
        sizes = a.ints("split", None) or (list(ctx.input_value(1)) if ctx.has_input(1) else None)
        lengths = i64(ctx, sizes, "lengths") if sizes else None
    else:
        lengths = ctx.input(1) if ctx.has_input(1) else None
    if lengths is None and opset(ctx) >= 18 and "num_outputs" in a:
        count = a.int("num_outputs")
        shape = ctx.input_shape(0)
        dim = shape[axis] if shape is not None else None
        if dim is None:
            lengths = _ceil_split_lengths(ctx, x, axis, count)
        elif dim % count:
            chunk = -(-dim // count)
            sizes = [chunk] * (dim // chunk) + ([dim % chunk] if dim % chunk else [])
            lengths = i64(ctx, sizes, "lengths")
    axis_port = i64(ctx, axis, "axis")
    if lengths is None:
        split = ctx.add(Split(num_splits=count), [x, axis_port])
    else:
        split = ctx.add(VariadicSplit(), [x, axis_port, lengths])
    return [split.out_port(i) for i in range(len(node.out_ports()))]


def _ceil_split_lengths(ctx: ExtractContext, x: OutPort, axis: int, count: int) -> OutPort:
    """[c, ..., c, dim - c*(count-1)] with c = ceil(dim / count), from ShapeOf."""
    from irconv_opset import Add, Broadcast, Concat, Divide, Gather, Multiply, Reshape, Subtract

    dim = ctx.op(Gather(), shape_of(ctx, x), i64(ctx, [axis]), i64(ctx, 0), suffix="dim_any")
    dim = ctx.op(Reshape(special_zero=False), dim, i64(ctx, [1]), suffix="dim")  # a static [1] even at dynamic rank
    chunk = ctx.op(Divide(m_pythondiv=True), ctx.op(Add(), dim, i64(ctx, [count - 1])), i64(ctx, [count]),
                   suffix="chunk")
    head = ctx.op(Broadcast(), chunk, i64(ctx, [count - 1]), suffix="head")
    rest = ctx.op(Subtract(), dim, ctx.op(Multiply(), chunk, i64(ctx, [count - 1])), suffix="rest")
    return ctx.op(Concat(axis=0), head, rest, suffix="lengths")


def _squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Squeeze

    x = ctx.input(0)
    if opset(ctx) < 13:
        axes = ctx.attrs.ints("axes", None)
        if not axes:
            return [ctx.op(Squeeze(), x)]
        return [ctx.op(Squeeze(), x, i64(ctx, axes, "axes"))]
    if not ctx.has_input(1):
        return [ctx.op(Squeeze(), x)]
    return [ctx.op(Squeeze(), x, ctx.input(1))]


def _unsqueeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Unsqueeze

    axes = i64(ctx, ctx.attrs.ints("axes"), "axes") if opset(ctx) < 13 else ctx.input(1)
    if opset(ctx) >= 13 and ctx.input_value(1) is None:
        rank, axes_shape = ctx.input_rank(0), axes.data.shape
        if rank is not None and axes_shape is not None and len(axes_shape) == 1 and axes_shape[0] is not None:
            return [unsqueeze_dynamic_axes(ctx, ctx.input(0), axes, rank, axes_shape[0])]
    return [ctx.op(Unsqueeze(), ctx.input(0), axes)]


def _shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import ShapeOf, Slice

    shape = ctx.op(ShapeOf(output_type_=ElementType.i64), ctx.input(0), suffix="shape")
    a = ctx.attrs
    start, end = a.int("start", 0), a.int("end", _BIG)
    if start == 0 and end == _BIG:
        return [shape]
    return [ctx.op(Slice(), shape, i64(ctx, [start]), i64(ctx, [end]), i64(ctx, [1]), i64(ctx, [0]))]


def _size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import ReduceProd, ShapeOf

    shape = ctx.op(ShapeOf(output_type_=ElementType.i64), ctx.input(0), suffix="shape")
    return [ctx.op(ReduceProd(keep_dims=False), shape, i64(ctx, 0, "axis"))]


def _flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Reshape to [prod(shape[:axis]), -1], computed from ShapeOf so the IR stays reshapeable."""
    from irconv_opset import Concat, ReduceProd, Reshape, ShapeOf, Slice

    axis = ctx.attrs.int("axis", 1)
    x = ctx.input(0)
    if axis == 0:
        target = i64(ctx, [1, -1], "shape")
    else:
        shape = ctx.op(ShapeOf(output_type_=ElementType.i64), x, suffix="shape")
        head = ctx.op(Slice(), shape, i64(ctx, [0]), i64(ctx, [axis]), i64(ctx, [1]), i64(ctx, [0]), suffix="head")
        outer = ctx.op(ReduceProd(keep_dims=True), head, i64(ctx, [0]), suffix="outer")
        target = ctx.op(Concat(axis=0), outer, i64(ctx, [-1]), suffix="target")
    return [ctx.op(Reshape(special_zero=False), x, target)]


def _expand(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Broadcast

    return [ctx.op(Broadcast(mode="bidirectional"), ctx.input(0), ctx.input(1))]


def _tile(node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    """Tile; with run-time repeats (which the CPU plugin gets wrong) a Broadcast instead:
    ``[d0, d1, ...]`` viewed as ``[1, d0, 1, d1, ...]``, broadcast to ``[r0, d0, r1, d1, ...]``
    and merged back to ``[r0 * d0, r1 * d1, ...]``."""
    from irconv_opset import Broadcast, Concat, Convert, Multiply, Reshape, Tile, Unsqueeze

    rank = ctx.input_rank(0)
    if ctx.input_value(1) is not None or rank is None:
        return Tile()
    shape = shape_of(ctx, ctx.input(0))
    repeats = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="repeats")

    def interleave(outer: OutPort, name: str) -> OutPort:
        pairs = ctx.op(Concat(axis=1), ctx.op(Unsqueeze(), outer, i64(ctx, 1), suffix=f"{name}_outer"),
                       ctx.op(Unsqueeze(), shape, i64(ctx, 1), suffix=f"{name}_inner"), suffix=f"{name}_pairs")
        return ctx.op(Reshape(special_zero=False), pairs, i64(ctx, [2 * rank]), suffix=name)

    spread = ctx.op(Reshape(special_zero=False), ctx.input(0), interleave(i64(ctx, np.ones(rank, np.int64)), "spread"),
                    suffix="spread")
    copies = ctx.op(Broadcast(), spread, interleave(repeats, "copies_shape"), suffix="copies")
    return [ctx.op(Reshape(special_zero=False), copies, ctx.op(Multiply(), repeats, shape, suffix="tiled_shape"))]


def _pad(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Pad, Split

    a = ctx.attrs
    mode = a.str("mode", "constant")
    modes = {"constant": "constant", "reflect": "reflect", "edge": "edge"}
    if mode == "wrap":
        return [_wrap_pad(ctx)]
    if mode not in modes:
        raise a.bad("mode", mode, "expected constant, reflect, edge or wrap")
    x = ctx.input(0)
    if opset(ctx) < 11:
        pads = np.asarray(a.ints("pads" if "pads" in a else "paddings"), np.int64)
        value = const_like(ctx, a.float("value", 0.0), x, "value")
    else:
        pads = ctx.input_value(1)
        value = ctx.input(2) if ctx.has_input(2) else None
        if value is not None:
            from irconv_opset import Squeeze

            if value.data.shape not in ((), None):
                value = ctx.op(Squeeze(), value, suffix="value")
        if ctx.has_input(3):
            axes = ctx.input_value(3)
            rank = ctx.input_rank(0)
            if axes is None or pads is None or rank is None:
                begin, end = _scatter_pads(ctx, x, ctx.input(1), ctx.input(3))
                inputs = [x, begin, end] + ([value] if value is not None and modes[mode] == "constant" else [])
                return [ctx.op(Pad(pad_mode=modes[mode]), *inputs)]
            full = np.zeros(2 * rank, np.int64)
            for i, ax in enumerate(int(v) % rank for v in axes):
                full[ax], full[rank + ax] = pads[i], pads[len(axes) + i]
            pads = full
    if pads is not None:
        half = len(pads) // 2
        begin, end = i64(ctx, pads[:half], "begin"), i64(ctx, pads[half:], "end")
    else:
        split = ctx.add(Split(num_splits=2), [ctx.input(1), i64(ctx, 0)], "pads")
        begin, end = split.out_port(0), split.out_port(1)
    inputs = [x, begin, end] + ([value] if value is not None and modes[mode] == "constant" else [])
    return [ctx.op(Pad(pad_mode=modes[mode]), *inputs)]


def _wrap_pad(ctx: ExtractContext) -> OutPort:
    """Pad mode=wrap: per padded axis, gather positions ``-begin .. dim + end`` modulo ``dim``
    (negative pads crop); pads may be run-time values, the rank must be known."""
    from irconv_opset import Add, Convert, FloorMod, Gather, Negative, Range

    a = ctx.attrs
    rank = ctx.input_rank(0)
    if rank is None:
        raise a.bad("mode", "wrap", "wrap padding needs a known rank")
    pads = ctx.input_value(1)
    axes = ctx.input_value(3) if ctx.has_input(3) else np.arange(rank)
    if axes is None:
        raise a.bad("mode", "wrap", "wrap padding needs constant axes")
    axes = [int(v) % rank for v in axes]
    x = ctx.input(0)
    runtime = None if pads is not None else ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1),
                                                    suffix="pads_i64")
    for i, axis in enumerate(axes):
        if pads is not None:
            if not pads[i] and not pads[len(axes) + i]:
                continue
            begin, end = i64(ctx, int(pads[i]), f"begin{axis}"), i64(ctx, int(pads[len(axes) + i]), f"end{axis}")
        else:
            assert runtime is not None
            begin = ctx.op(Gather(), runtime, i64(ctx, i), i64(ctx, 0), suffix=f"begin{axis}")
            end = ctx.op(Gather(), runtime, i64(ctx, len(axes) + i), i64(ctx, 0), suffix=f"end{axis}")
        dim = ctx.op(Gather(), shape_of(ctx, x, f"shape{axis}"), i64(ctx, axis), i64(ctx, 0),
                     suffix=f"dim{axis}")
        positions = ctx.op(Range(output_type=ElementType.i64), ctx.op(Negative(), begin, suffix=f"first{axis}"),
                           ctx.op(Add(), dim, end, suffix=f"stop{axis}"), i64(ctx, 1), suffix=f"positions{axis}")
        wrapped = ctx.op(FloorMod(), positions, dim, suffix=f"wrapped{axis}")
        x = ctx.op(Gather(), x, wrapped, i64(ctx, axis), suffix=f"wrap{axis}")
    return x


def _scatter_pads(ctx: ExtractContext, x: OutPort, pads: OutPort, axes: OutPort) -> tuple[OutPort, OutPort]:
    """Per-axis pads (for ``axes`` only) spread into full begin/end vectors, from ShapeOf."""
    from irconv_opset import Broadcast, Convert, FloorMod, ScatterElementsUpdate, Split

    rank = rank_of(ctx, x)
    zeros = ctx.op(Broadcast(), i64(ctx, 0), rank, suffix="zeros")
    axes = ctx.op(FloorMod(), ctx.op(Convert(destination_type=ElementType.i64), axes, suffix="axes_i64"), rank,
                  suffix="axes_norm")
    pads = ctx.op(Convert(destination_type=ElementType.i64), pads, suffix="pads_i64")
    halves = ctx.add(Split(num_splits=2), [pads, i64(ctx, 0)], "pads_split")
    begin = ctx.op(ScatterElementsUpdate(), zeros, axes, halves.out_port(0), i64(ctx, 0), suffix="begin")
    end = ctx.op(ScatterElementsUpdate(), zeros, axes, halves.out_port(1), i64(ctx, 0), suffix="end")
    return begin, end


def _slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Slice

    x = ctx.input(0)
    if opset(ctx) < 10:
        a = ctx.attrs
        starts, ends = a.ints("starts"), a.ints("ends")
        axes = a.ints("axes", list(range(len(starts))))
        return [ctx.op(Slice(), x, i64(ctx, starts, "start"), i64(ctx, ends, "stop"), i64(ctx, [1] * len(starts)),
                       i64(ctx, axes, "axes"))]
    inputs = [x, ctx.input(1), ctx.input(2), ctx.input(4)] + ([ctx.input(3)] if ctx.has_input(3) else [])
    return [ctx.op(Slice(), *inputs)]


def _ones_like_starts(ctx: ExtractContext) -> OutPort:
    """Slice steps when empty: 1 for every sliced axis."""
    from irconv_opset import Broadcast, ShapeOf

    value = ctx.input_value(1)
    if value is not None:
        return ctx.const(np.ones(value.shape, value.dtype), suffix="step")
    return ctx.op(Broadcast(), i64(ctx, 1), ctx.op(ShapeOf(), ctx.input(1)), suffix="step")


def _gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Gather

    axis = ctx.attrs.int("axis", 0)
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), i64(ctx, axis, "axis"))]


def _gather_elements(node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    """ONNX lets the indices be smaller than the data on the other axes (only the leading
    part of the data is read there); OpenVINO GatherElements wants equal extents. Where the
    shapes show such a difference, the indices are padded to the data's extents and the
    result cut back. (Cutting the data instead does not survive the CPU plugin: its shape
    reasoning, taking GatherElements' equal extents for granted, removes that Slice.)
    Unknown shapes (inside If bodies) keep the plain op: a cut to run-time extents would
    hide from OpenVINO the static dims it otherwise merges from the data, which later
    shape-dependent ops (a Squeeze without axes) need."""
    from irconv_opset import GatherElements, Pad, Select, Slice, Subtract

    axis = ctx.attrs.int("axis", 0)
    op = GatherElements(axis=axis)
    data, indices = ctx.input_shape(0), ctx.input_shape(1)
    if data is None or indices is None or len(data) != len(indices):
        return op
    rank = len(data)
    axis = normalize_axis(ctx, axis, rank)
    if all(d == i for k, (d, i) in enumerate(zip(data, indices, strict=True)) if k != axis):
        return op  # equal, or the same unknown extent (one symbolic dim, as exporters write it)
    on_axis = ctx.const(np.arange(rank) == axis, suffix="on_axis")
    indices_shape = shape_of(ctx, ctx.input(1), "indices_shape")
    missing = ctx.op(Subtract(), shape_of(ctx, ctx.input(0), "data_shape"), indices_shape, suffix="missing")
    zeros = i64(ctx, np.zeros(rank, np.int64), "zeros")
    pads_end = ctx.op(Select(), on_axis, zeros, missing, suffix="pads_end")
    padded = ctx.op(Pad(), ctx.input(1), zeros, pads_end, suffix="indices_padded")
    gathered = ctx.op(op, ctx.input(0), padded, suffix="gathered")
    return [ctx.op(Slice(), gathered, zeros, indices_shape, i64(ctx, np.ones(rank, np.int64), "ones"))]


def _gather_nd(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import GatherND

    return GatherND(batch_dims=ctx.attrs.int("batch_dims", 0))


_SCATTER_REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "min": "min", "max": "max"}


def _scatter_elements(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import ScatterElementsUpdate

    a = ctx.attrs
    reduction = a.choice("reduction", list(_SCATTER_REDUCTIONS), "none")
    return ScatterElementsUpdate(reduction=_SCATTER_REDUCTIONS[reduction], use_init_val=True)


def _scatter_elements_ports(node: Node, ctx: ExtractContext) -> list[OutPort]:
    op = _scatter_elements(node, ctx)
    axis = i64(ctx, ctx.attrs.int("axis", 0), "axis")
    return [ctx.op(op, ctx.input(0), ctx.input(1), ctx.input(2), axis)]


def _scatter_nd(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import ScatterNDUpdate

    a = ctx.attrs
    reduction = a.choice("reduction", list(_SCATTER_REDUCTIONS), "none")
    return ScatterNDUpdate(reduction=_SCATTER_REDUCTIONS[reduction])


def _depth_to_space(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import DepthToSpace

    a = ctx.attrs
    mode = a.choice("mode", ["DCR", "CRD"], "DCR")
    return DepthToSpace(block_size=a.int("blocksize"), mode="blocks_first" if mode == "DCR" else "depth_first")


def _space_to_depth(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import SpaceToDepth

    a = ctx.attrs
    mode = a.choice("mode", ["DCR", "CRD"], "DCR")
    return SpaceToDepth(block_size=a.int("blocksize"), mode="blocks_first" if mode == "DCR" else "depth_first")


def _constant(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    value = a.tensor("value", None)  # read once: a large tensor is converted on every read
    if value is not None:
        return [ctx.const(value, suffix="value")]
    for name, read, dtype in (("value_float", a.float, np.float32), ("value_floats", a.floats, np.float32),
                              ("value_int", a.int, np.int64), ("value_ints", a.ints, np.int64)):
        if name in a:
            return [ctx.const(np.array(read(name), dtype), suffix="value")]
    raise a.bad(next(iter(a.names()), "value"), "...", "only numeric dense constants are supported")


def _constant_of_shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Broadcast

    a = ctx.attrs
    value = a.tensor("value", None)
    scalar = np.zeros((), np.float32) if value is None else value.reshape(())
    return [ctx.op(Broadcast(), ctx.const(scalar, suffix="value"), ctx.input(0))]


def _range(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Range, Reshape

    et = ctx.input(0).data.element_type
    if et is ElementType.dynamic:
        et = ElementType.f32

    def scalar(idx: int) -> OutPort:
        port = ctx.input(idx)
        if port.data.shape == ():
            return port
        return ctx.op(Reshape(special_zero=False), port, i64(ctx, [], "scalar"), suffix=f"scalar_{idx}")

    return [ctx.op(Range(output_type=et), scalar(0), scalar(1), scalar(2))]


def _one_hot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Negative indices count from the end; other out-of-range indices give all "off"."""
    from irconv_opset import Add, Convert, Gather, Less, OneHot, Reshape, Select

    axis = ctx.attrs.int("axis", -1)
    indices = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(0), suffix="indices")
    depth = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="depth_i64")
    depth = ctx.op(Reshape(special_zero=False), depth, i64(ctx, [], "scalar"), suffix="depth")
    negative = ctx.op(Less(), indices, i64(ctx, 0), suffix="negative")
    indices = ctx.op(Select(), negative, ctx.op(Add(), indices, depth, suffix="from_end"), indices, suffix="wrapped")
    values = ctx.input(2)
    off = ctx.op(Gather(), values, i64(ctx, 0), i64(ctx, 0), suffix="off")
    on = ctx.op(Gather(), values, i64(ctx, 1), i64(ctx, 0), suffix="on")
    return [ctx.op(OneHot(axis=axis), indices, depth, on, off)]


def _non_zero(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import NonZero

    return NonZero(output_type=ElementType.i64)


def _top_k(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Reshape, TopK

    a = ctx.attrs
    if opset(ctx) < 10:
        k = i64(ctx, a.int("k"), "k")
    else:
        k = ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [], "scalar"), suffix="k")
    largest = a.int("largest", 1)
    top = ctx.add(TopK(axis=a.int("axis", -1), mode="max" if largest else "min", sort="value",
                       index_element_type=ElementType.i64, stable=True), [ctx.input(0), k])
    return [top.out_port(0), top.out_port(1)]


def _cum_sum(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import CumSum

    a = ctx.attrs
    return CumSum(exclusive=bool(a.int("exclusive", 0)), reverse=bool(a.int("reverse", 0)))


def _cum_prod(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """sign * exp(cumsum(log|x|)), the sign from the parity of the running count of negatives.

    Zeros work out (log 0 = -inf, exp(-inf) = 0); integer inputs are computed in f64 and
    rounded back.
    """
    from irconv_opset import (
        Abs,
        Convert,
        ConvertLike,
        CumSum,
        Exp,
        FloorMod,
        Less,
        Log,
        Multiply,
        Round,
        Subtract,
    )

    a = ctx.attrs
    flags = dict(exclusive=bool(a.int("exclusive", 0)), reverse=bool(a.int("reverse", 0)))
    x, axis = ctx.input(0), ctx.input(1)
    et = x.data.element_type
    work = x if et.is_float else ctx.op(Convert(destination_type=ElementType.f64), x, suffix="as_float")
    logs = ctx.op(Log(), ctx.op(Abs(), work, suffix="abs"), suffix="log")
    magnitude = ctx.op(Exp(), ctx.op(CumSum(**flags), logs, axis, suffix="log_sum"), suffix="magnitude")
    negative = ctx.op(ConvertLike(), ctx.op(Less(), work, const_like(ctx, 0, work, "zero"), suffix="is_neg"), work,
                      suffix="neg_count")
    parity = ctx.op(FloorMod(), ctx.op(CumSum(**flags), negative, axis, suffix="neg_sum"),
                    const_like(ctx, 2, work, "two"), suffix="parity")
    sign = ctx.op(Subtract(), const_like(ctx, 1, work, "one"),
                  ctx.op(Multiply(), parity, const_like(ctx, 2, work, "two_"), suffix="twice"), suffix="sign")
    result = ctx.op(Multiply(), magnitude, sign, suffix="product")
    if et.is_float:
        return [result]
    return [ctx.op(Convert(destination_type=et), ctx.op(Round(mode="half_to_even"), result, suffix="round"))]


def _trilu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Keep x where (col - row) >= k (upper) or <= k (lower), from ShapeOf ranges."""
    from irconv_opset import (
        Gather,
        GreaterEqual,
        LessEqual,
        Range,
        Select,
        Subtract,
        Unsqueeze,
    )

    upper = bool(ctx.attrs.int("upper", 1))
    x = ctx.input(0)
    shape = ctx.input_shape(0)
    if shape is not None and 0 in shape:
        return [x]  # nothing to mask in an empty tensor (and the CPU plugin fails on empty Range/Select)
    shape = shape_of(ctx, x)
    rows = ctx.op(Gather(), shape, i64(ctx, -2), i64(ctx, 0), suffix="rows")
    cols = ctx.op(Gather(), shape, i64(ctx, -1), i64(ctx, 0), suffix="cols")
    row = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), rows, i64(ctx, 1), suffix="row")
    col = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), cols, i64(ctx, 1), suffix="col")
    row = ctx.op(Unsqueeze(), row, i64(ctx, [1]), suffix="row_col")
    diff = ctx.op(Subtract(), col, row, suffix="diff")
    k = ctx.input(1)
    keep = ctx.op((GreaterEqual if upper else LessEqual)(), diff, k, suffix="keep")
    return [ctx.op(Select(), keep, x, const_like(ctx, 0, x, "zero"))]


def _eye_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Ones where col - row == k, from ShapeOf ranges."""
    from irconv_opset import Convert, ConvertLike, Equal, Gather, Range, Select, Subtract, Unsqueeze

    a = ctx.attrs
    x = ctx.input(0)
    shape = shape_of(ctx, x)
    rows = ctx.op(Gather(), shape, i64(ctx, 0), i64(ctx, 0), suffix="rows")
    cols = ctx.op(Gather(), shape, i64(ctx, 1), i64(ctx, 0), suffix="cols")
    row = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), rows, i64(ctx, 1), suffix="row")
    col = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), cols, i64(ctx, 1), suffix="col")
    diff = ctx.op(Subtract(), col, ctx.op(Unsqueeze(), row, i64(ctx, [1])), suffix="diff")
    on_diagonal = ctx.op(Equal(), diff, i64(ctx, a.int("k", 0), "k"), suffix="diagonal")
    ones = ctx.op(Select(), on_diagonal, f32(ctx, 1), f32(ctx, 0),
                  suffix="ones")
    if "dtype" in a:
        from irconv_onnx.extractors._common import et_of_onnx

        return [ctx.op(Convert(destination_type=et_of_onnx(a.int("dtype"), "EyeLike dtype")), ones)]
    return [ctx.op(ConvertLike(), ones, x)]


def _unique(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Unique

    a = ctx.attrs
    op = Unique(sorted=bool(a.int("sorted", 1)), index_element_type=ElementType.i64,
                count_element_type=ElementType.i64)
    inputs = [ctx.input(0)] + ([i64(ctx, a.int("axis"), "axis")] if "axis" in a else [])
    unique = ctx.add(op, inputs, "unique")
    return [unique.out_port(i) for i in range(len(node.out_ports()))]


def _compress(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Gather the positions where the condition is true (the data flattened without an axis)."""
    from irconv_opset import Gather, NonZero, Reshape, Squeeze

    a = ctx.attrs
    x = ctx.input(0)
    if "axis" not in a:
        x = ctx.op(Reshape(special_zero=False), x, i64(ctx, [-1]), suffix="flat")
    positions = ctx.op(NonZero(output_type=ElementType.i64), ctx.input(1), suffix="positions")
    positions = ctx.op(Squeeze(), positions, i64(ctx, [0]), suffix="indices")
    return [ctx.op(Gather(), x, positions, i64(ctx, a.int("axis", 0), "axis"))]


def _reverse_sequence(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import ReverseSequence

    a = ctx.attrs
    return ReverseSequence(batch_axis=a.int("batch_axis", 1), seq_axis=a.int("time_axis", 0))


def _tensor_scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TensorScatter-24: the update written into the cache along ``axis`` from each batch
    entry's write index (modulo the cache length in circular mode), as ScatterElementsUpdate
    with per-element positions write_index[b] + i."""
    from irconv_opset import Add, Broadcast, Convert, FloorMod, Gather, Range, Reshape, ScatterElementsUpdate

    a = ctx.attrs
    mode = a.choice("mode", ["linear", "circular"], "linear")
    rank = ctx.input_rank(0)
    if rank is None:
        raise a.bad("axis", a.int("axis", -2), "TensorScatter needs the cache rank")
    axis = a.int("axis", -2) % rank
    cache, update = ctx.input(0), ctx.input(1)
    update_shape = shape_of(ctx, update, "update_shape")
    length = ctx.op(Gather(), update_shape, i64(ctx, axis), i64(ctx, 0), suffix="length")
    along = [1] * rank
    along[axis] = -1
    steps = ctx.op(Reshape(special_zero=False), ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), length,
                                                       i64(ctx, 1), suffix="steps_range"), i64(ctx, along),
                   suffix="steps")
    positions = steps
    if ctx.has_input(2):
        per_batch = [1] * rank
        per_batch[0] = -1
        starts = ctx.op(Reshape(special_zero=False), ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2),
                                                            suffix="write_i64"), i64(ctx, per_batch), suffix="starts")
        positions = ctx.op(Add(), starts, steps, suffix="positions")
    if mode == "circular":
        size = ctx.op(Gather(), shape_of(ctx, cache, "cache_shape"), i64(ctx, axis), i64(ctx, 0),
                      suffix="max_length")
        positions = ctx.op(FloorMod(), positions, size, suffix="wrapped")
    indices = ctx.op(Broadcast(), positions, update_shape, suffix="indices")
    return [ctx.op(ScatterElementsUpdate(), cache, indices, update, i64(ctx, axis))]


def extractors() -> list[Extractor]:
    import irconv_opset as o

    return [
        extractor("onnx", "Reshape", _reshape, produces=[o.Reshape]),
        extractor("onnx", "Transpose", _transpose, produces=[o.Transpose]),
        extractor("onnx", "Concat", _concat, produces=[o.Concat]),
        extractor("onnx", "Split", WithDefaults(_split, {1: HANDLED}), produces=[o.Split, o.VariadicSplit]),
        extractor("onnx", "Squeeze", WithDefaults(_squeeze, {1: HANDLED}), produces=[o.Squeeze]),
        extractor("onnx", "Unsqueeze", _unsqueeze, produces=[o.Unsqueeze]),
        extractor("onnx", "Shape", _shape, produces=[o.ShapeOf, o.Slice]),
        extractor("onnx", "Size", _size, produces=[o.ShapeOf, o.ReduceProd]),
        extractor("onnx", "Flatten", _flatten, produces=[o.ShapeOf, o.Slice, o.ReduceProd, o.Concat, o.Reshape]),
        extractor("onnx", "Expand", _expand, versions=(8, None), produces=[o.Broadcast]),
        extractor("onnx", "Tile", _tile, versions=(6, None), produces=[o.Tile, o.Broadcast]),
        extractor("onnx", "Pad", WithDefaults(_pad, {2: HANDLED, 3: HANDLED}), produces=[o.Pad]),
        extractor("onnx", "Slice", _slice, versions=(1, 9), produces=[o.Slice]),
        extractor("onnx", "Slice",
                  WithDefaults(_slice, {3: HANDLED, 4: computed("ones like starts", _ones_like_starts)}),
                  versions=(10, None), produces=[o.Slice]),
        extractor("onnx", "Gather", _gather, produces=[o.Gather]),
        extractor("onnx", "GatherElements", _gather_elements, versions=(11, None),
                  produces=[o.GatherElements, o.Pad, o.Slice]),
        extractor("onnx", "GatherND", _gather_nd, versions=(11, None), produces=[o.GatherND]),
        extractor("onnx", "ScatterElements", _scatter_elements_ports, versions=(11, None),
                  produces=[o.ScatterElementsUpdate]),
        extractor("onnx", "Scatter", _scatter_elements_ports, versions=(9, 10), produces=[o.ScatterElementsUpdate]),
        extractor("onnx", "ScatterND", _scatter_nd, versions=(11, None), produces=[o.ScatterNDUpdate]),
        extractor("onnx", "DepthToSpace", _depth_to_space, produces=[o.DepthToSpace]),
        extractor("onnx", "SpaceToDepth", _space_to_depth, produces=[o.SpaceToDepth]),
        extractor("onnx", "Constant", _constant, produces=[o.Const]),
        extractor("onnx", "ConstantOfShape", _constant_of_shape, versions=(9, None), produces=[o.Broadcast]),
        extractor("onnx", "Range", _range, versions=(11, None), produces=[o.Range]),
        extractor("onnx", "OneHot", _one_hot, versions=(9, None), produces=[o.OneHot]),
        extractor("onnx", "NonZero", _non_zero, versions=(9, None), produces=[o.NonZero]),
        extractor("onnx", "TopK", _top_k, produces=[o.TopK]),
        extractor("onnx", "CumSum", _cum_sum, versions=(11, None), produces=[o.CumSum]),
        extractor("onnx", "CumProd", _cum_prod, produces=[o.CumSum, o.Log, o.Exp]),
        extractor("onnx", "Trilu", WithDefaults(_trilu, {1: constant(0, np.int64)}), versions=(14, None),
                  produces=[o.Range, o.Select]),
        extractor("onnx", "EyeLike", _eye_like, versions=(9, None), produces=[o.Range, o.Equal, o.Select]),
        extractor("onnx", "Unique", _unique, versions=(11, None), produces=[o.Unique]),
        extractor("onnx", "Compress", _compress, versions=(9, None), produces=[o.NonZero, o.Gather]),
        extractor("onnx", "ReverseSequence", _reverse_sequence, versions=(10, None), produces=[o.ReverseSequence]),
        extractor("onnx", "TensorScatter", WithDefaults(_tensor_scatter, {2: HANDLED}), versions=(24, None),
                  produces=[o.ScatterElementsUpdate]),
    ]
