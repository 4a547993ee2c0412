"""Shape, layout and indexing ops: Reshape ... Slice, Gather/Scatter, Constant*, Range, TopK."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import const_like, extractor, f32, i64, input_constant, input_vector, normalize_axis
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Add,
    Broadcast,
    Concat,
    Const,
    Convert,
    ConvertLike,
    CumSum,
    DepthToSpace,
    Divide,
    Equal,
    Exp,
    FloorMod,
    Gather,
    GatherElements,
    GatherND,
    GreaterEqual,
    Less,
    LessEqual,
    Log,
    Multiply,
    Negative,
    NonZero,
    OneHot,
    Pad,
    Range,
    ReduceProd,
    Reshape,
    ReverseSequence,
    Round,
    ScatterElementsUpdate,
    ScatterNDUpdate,
    Select,
    ShapeOf,
    Slice,
    SpaceToDepth,
    Split,
    Squeeze,
    Subtract,
    Tile,
    TopK,
    Transpose,
    Unique,
    Unsqueeze,
    VariadicSplit,
)
from irconv_opset.build import rank_of, shape_of
from irconv_opset.partial import symbolic_elements

from irconv_onnx.extractors._common import UNSQUEEZE_DYNAMIC_AXES_OPS, node_inputs, unsqueeze_dynamic_axes
from irconv_onnx.extractors._optional import HANDLED, computed, constant, with_defaults

_BIG = np.iinfo(np.int64).max


@extractor("onnx", "Reshape", versions=(1, 4), produces=[Reshape])
def reshape_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The target shape is an attribute before opset 5."""
    return [ctx.op(Reshape(special_zero=True), ctx.input(0), i64(ctx, ctx.attrs.ints("shape"), "shape"))]


@extractor("onnx", "Reshape", versions=(5, None), produces=[Reshape])
def reshape_v5(node: Node, ctx: ExtractContext) -> list[OutPort]:
    zero_copies = not ctx.attrs.int("allowzero", 0)
    return [ctx.op(Reshape(special_zero=zero_copies), ctx.input(0), ctx.input(1))]


@extractor("onnx", "Transpose", produces=[Transpose, Range, ShapeOf, Squeeze, Subtract])
def _transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
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


@extractor("onnx", "Concat", produces=[Concat])
def _concat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Concat(axis=ctx.attrs.int("axis", 1)), *node_inputs(ctx))]


@extractor("onnx", "Split", versions=(1, 12), produces=[Split, VariadicSplit])
@with_defaults({1: HANDLED})
def split_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The lengths are an attribute (or a constant input at opset 1) before opset 13."""
    sizes = ctx.attrs.ints("split", None) or (list(input_constant(ctx, 1, "split")) if ctx.has_input(1) else None)
    return _split(node, ctx, i64(ctx, sizes, "lengths") if sizes else None)


@extractor("onnx", "Split", versions=(13, 17), produces=[Split, VariadicSplit])
@with_defaults({1: HANDLED})
def split_v13(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _split(node, ctx, ctx.input(1) if ctx.has_input(1) else None)


@extractor("onnx", "Split", versions=(18, None),
           produces=[Split, VariadicSplit, Gather, ShapeOf, Reshape, Divide, Add, Broadcast, Subtract, Multiply, Concat])
@with_defaults({1: HANDLED})
def split_v18(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Without lengths, ``num_outputs`` parts: the last one smaller when the axis does not divide."""
    return _split(node, ctx, ctx.input(1) if ctx.has_input(1) else None, by_count=True)


def _split(node: Node, ctx: ExtractContext, lengths: OutPort | None, by_count: bool = False) -> list[OutPort]:
    a = ctx.attrs
    axis = a.int("axis", 0)
    count = len(node.out_ports())
    x = ctx.input(0)
    if lengths is None and by_count and "num_outputs" in a:
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
    dim = ctx.op(Gather(), shape_of(ctx, x), i64(ctx, [axis]), i64(ctx, 0), suffix="dim_any")
    dim = ctx.op(Reshape(special_zero=False), dim, i64(ctx, [1]), suffix="dim")  # a static [1] even at dynamic rank
    chunk = ctx.op(Divide(m_pythondiv=True), ctx.op(Add(), dim, i64(ctx, [count - 1])), i64(ctx, [count]),
                   suffix="chunk")
    head = ctx.op(Broadcast(), chunk, i64(ctx, [count - 1]), suffix="head")
    rest = ctx.op(Subtract(), dim, ctx.op(Multiply(), chunk, i64(ctx, [count - 1])), suffix="rest")
    return ctx.op(Concat(axis=0), head, rest, suffix="lengths")


@extractor("onnx", "Squeeze", versions=(1, 12), produces=[Squeeze])
def squeeze_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The axes are an attribute before opset 13."""
    axes = ctx.attrs.ints("axes", None)
    if not axes:
        return [ctx.op(Squeeze(), ctx.input(0))]
    return [ctx.op(Squeeze(), ctx.input(0), i64(ctx, axes, "axes"))]


@extractor("onnx", "Squeeze", versions=(13, None), produces=[Squeeze])
@with_defaults({1: HANDLED})
def squeeze_v13(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    if not ctx.has_input(1):
        return [ctx.op(Squeeze(), x)]
    return [ctx.op(Squeeze(), x, ctx.input(1))]


@extractor("onnx", "Unsqueeze", versions=(1, 12), produces=[Unsqueeze])
def unsqueeze_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The axes are an attribute before opset 13."""
    return [ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, ctx.attrs.ints("axes"), "axes"))]


@extractor("onnx", "Unsqueeze", versions=(13, None), produces=[Unsqueeze, *UNSQUEEZE_DYNAMIC_AXES_OPS])
def unsqueeze_v13(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = ctx.input(1)
    if ctx.input_value(1) is None:
        rank, axes_shape = ctx.input_rank(0), axes.data.shape
        if rank is not None and axes_shape is not None and len(axes_shape) == 1 and axes_shape[0] is not None:
            return [unsqueeze_dynamic_axes(ctx, ctx.input(0), axes, rank, axes_shape[0])]
    return [ctx.op(Unsqueeze(), ctx.input(0), axes)]


@extractor("onnx", "Shape", produces=[ShapeOf, Slice])
def _shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shape = ctx.op(ShapeOf(output_type_=ElementType.i64), ctx.input(0), suffix="shape")
    a = ctx.attrs
    start, end = a.int("start", 0), a.int("end", _BIG)
    if start == 0 and end == _BIG:
        return [shape]
    return [ctx.op(Slice(), shape, i64(ctx, [start]), i64(ctx, [end]), i64(ctx, [1]), i64(ctx, [0]))]


@extractor("onnx", "Size", produces=[ShapeOf, ReduceProd])
def _size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shape = ctx.op(ShapeOf(output_type_=ElementType.i64), ctx.input(0), suffix="shape")
    return [ctx.op(ReduceProd(keep_dims=False), shape, i64(ctx, 0, "axis"))]


@extractor("onnx", "Flatten", produces=[ShapeOf, Slice, ReduceProd, Concat, Reshape])
def _flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Reshape to [prod(shape[:axis]), -1], computed from ShapeOf so the IR stays reshapeable."""
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


@extractor("onnx", "Expand", versions=(8, None), produces=[Broadcast])
def _expand(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Broadcast(mode="bidirectional"), ctx.input(0), ctx.input(1))]


@extractor("onnx", "Tile", versions=(6, None),
           produces=[Tile, Broadcast, ShapeOf, Convert, Concat, Unsqueeze, Reshape, Multiply])
def _tile(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Tile; with run-time repeats (the CPU plugin's Tile gives wrong values when three axes
    or more repeat) a Broadcast instead: ``[d0, d1, ...]`` viewed as ``[1, d0, 1, d1, ...]``,
    broadcast to ``[r0, d0, r1, d1, ...]`` and merged back to ``[r0 * d0, r1 * d1, ...]``.
    Run-time repeats known to repeat one axis at most (``repeat(b, 1, 1)``: the other
    repeats are 1 by the symbols) stay a Tile."""
    rank = ctx.input_rank(0)
    if ctx.input_value(1) is not None or rank is None or _repeats_one_axis(ctx.input(1)):
        return [ctx.op(Tile(), *node_inputs(ctx))]
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


def _repeats_one_axis(repeats: OutPort) -> bool:
    """Whether every element of the run-time ``repeats`` but one at most is known to be 1."""
    elements = symbolic_elements(repeats)
    return elements is not None and sum(1 for e in elements if not (isinstance(e, int) and e == 1)) <= 1


_PAD_MODES = ("constant", "reflect", "edge")


@extractor("onnx", "Pad", versions=(1, 10), produces=[Pad])
def pad_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The pads and the value are attributes before opset 11."""
    a = ctx.attrs
    mode = a.choice("mode", list(_PAD_MODES), "constant")
    x = ctx.input(0)
    pads = np.asarray(a.ints("pads" if "pads" in a else "paddings"), np.int64)
    return [_pad(ctx, mode, x, pads, const_like(ctx, a.float("value", 0.0), x, "value"))]


@extractor("onnx", "Pad", versions=(11, None),
           produces=[Pad, Squeeze, Split, ShapeOf, Broadcast, FloorMod, Convert, ScatterElementsUpdate, Gather, Range,
                     Negative, Add])
@with_defaults({2: HANDLED, 3: HANDLED})
def pad_v11(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    mode = a.str("mode", "constant")
    if mode == "wrap":
        return [_wrap_pad(ctx)]
    if mode not in _PAD_MODES:
        raise a.bad("mode", mode, "expected constant, reflect, edge or wrap")
    x = ctx.input(0)
    pads = input_vector(ctx, 1, "pads")
    value = ctx.input(2) if ctx.has_input(2) else None
    if value is not None and value.data.shape not in ((), None):
        value = ctx.op(Squeeze(), value, suffix="value")
    if ctx.has_input(3):
        axes = input_vector(ctx, 3, "axes")
        rank = ctx.input_rank(0)
        if axes is None or pads is None or rank is None:
            begin, end = _scatter_pads(ctx, x, ctx.input(1), ctx.input(3))
            inputs = [x, begin, end] + ([value] if value is not None and mode == "constant" else [])
            return [ctx.op(Pad(pad_mode=mode), *inputs)]
        if len(pads) != 2 * len(axes):
            raise ConversionError(
                f"{ctx.where()}: pads (input 1) must hold two entries per axis given, got shapes "
                f"{list(axes.shape)} and {list(pads.shape)}"
            )
        full = np.zeros(2 * rank, np.int64)
        for i, ax in enumerate(int(v) % rank for v in axes):
            full[ax], full[rank + ax] = pads[i], pads[len(axes) + i]
        pads = full
    return [_pad(ctx, mode, x, pads, value)]


def _pad(ctx: ExtractContext, mode: str, x: OutPort, pads: np.ndarray | None, value: OutPort | None) -> OutPort:
    """Pad by constant ``pads`` (begins then ends), or by input 1's run-time ones when None."""
    if pads is not None:
        half = len(pads) // 2
        begin, end = i64(ctx, pads[:half], "begin"), i64(ctx, pads[half:], "end")
    else:
        split = ctx.add(Split(num_splits=2), [ctx.input(1), i64(ctx, 0)], "pads")
        begin, end = split.out_port(0), split.out_port(1)
    inputs = [x, begin, end] + ([value] if value is not None and mode == "constant" else [])
    return ctx.op(Pad(pad_mode=mode), *inputs)


def _wrap_pad(ctx: ExtractContext) -> OutPort:
    """Pad mode=wrap: per padded axis, gather positions ``-begin .. dim + end`` modulo ``dim``
    (negative pads crop); pads may be run-time values, the rank must be known."""
    a = ctx.attrs
    rank = ctx.input_rank(0)
    if rank is None:
        raise a.bad("mode", "wrap", "wrap padding needs a known rank")
    pads = input_vector(ctx, 1, "pads")
    axes = input_vector(ctx, 3, "axes") if ctx.has_input(3) else np.arange(rank)
    if axes is None:
        raise a.bad("mode", "wrap", "wrap padding needs constant axes")
    axes_list = [int(v) % rank for v in axes]
    x = ctx.input(0)
    runtime = None if pads is not None else ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1),
                                                    suffix="pads_i64")
    for i, axis in enumerate(axes_list):
        if pads is not None:
            if not pads[i] and not pads[len(axes_list) + i]:
                continue
            begin, end = i64(ctx, int(pads[i]), f"begin{axis}"), i64(ctx, int(pads[len(axes_list) + i]), f"end{axis}")
        else:
            assert runtime is not None
            begin = ctx.op(Gather(), runtime, i64(ctx, i), i64(ctx, 0), suffix=f"begin{axis}")
            end = ctx.op(Gather(), runtime, i64(ctx, len(axes_list) + i), i64(ctx, 0), suffix=f"end{axis}")
        dim = ctx.op(Gather(), shape_of(ctx, x, f"shape{axis}"), i64(ctx, axis), i64(ctx, 0),
                     suffix=f"dim{axis}")
        positions = ctx.op(Range(output_type=ElementType.i64), ctx.op(Negative(), begin, suffix=f"first{axis}"),
                           ctx.op(Add(), dim, end, suffix=f"stop{axis}"), i64(ctx, 1), suffix=f"positions{axis}")
        wrapped = ctx.op(FloorMod(), positions, dim, suffix=f"wrapped{axis}")
        x = ctx.op(Gather(), x, wrapped, i64(ctx, axis), suffix=f"wrap{axis}")
    return x


def _scatter_pads(ctx: ExtractContext, x: OutPort, pads: OutPort, axes: OutPort) -> tuple[OutPort, OutPort]:
    """Per-axis pads (for ``axes`` only) spread into full begin/end vectors, from ShapeOf."""
    rank = rank_of(ctx, x)
    zeros = ctx.op(Broadcast(), i64(ctx, 0), rank, suffix="zeros")
    axes = ctx.op(FloorMod(), ctx.op(Convert(destination_type=ElementType.i64), axes, suffix="axes_i64"), rank,
                  suffix="axes_norm")
    pads = ctx.op(Convert(destination_type=ElementType.i64), pads, suffix="pads_i64")
    halves = ctx.add(Split(num_splits=2), [pads, i64(ctx, 0)], "pads_split")
    begin = ctx.op(ScatterElementsUpdate(), zeros, axes, halves.out_port(0), i64(ctx, 0), suffix="begin")
    end = ctx.op(ScatterElementsUpdate(), zeros, axes, halves.out_port(1), i64(ctx, 0), suffix="end")
    return begin, end


@extractor("onnx", "Slice", versions=(1, 9), produces=[Slice])
def slice_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Starts, ends and axes are attributes before opset 10."""
    a = ctx.attrs
    starts, ends = a.ints("starts"), a.ints("ends")
    axes = a.ints("axes", list(range(len(starts))))
    return [ctx.op(Slice(), ctx.input(0), i64(ctx, starts, "start"), i64(ctx, ends, "stop"),
                   i64(ctx, [1] * len(starts)), i64(ctx, axes, "axes"))]


def _ones_like_starts(ctx: ExtractContext) -> OutPort:
    """Slice steps when empty: 1 for every sliced axis."""
    value = ctx.input_value(1)
    if value is not None:
        return ctx.const(np.ones(value.shape, value.dtype), suffix="step")
    return ctx.op(Broadcast(), i64(ctx, 1), ctx.op(ShapeOf(), ctx.input(1)), suffix="step")


@extractor("onnx", "Slice", versions=(10, None), produces=[Slice, Broadcast, ShapeOf])
@with_defaults({3: HANDLED, 4: computed("ones like starts", _ones_like_starts)})
def slice_v10(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    inputs = [x, ctx.input(1), ctx.input(2), ctx.input(4)] + ([ctx.input(3)] if ctx.has_input(3) else [])
    return [ctx.op(Slice(), *inputs)]


@extractor("onnx", "Gather", produces=[Gather])
def _gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = ctx.attrs.int("axis", 0)
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), i64(ctx, axis, "axis"))]


@extractor("onnx", "GatherElements", versions=(11, None), produces=[GatherElements, Pad, Slice, Subtract, Select, ShapeOf])
def _gather_elements(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ONNX lets the indices be smaller than the data on the other axes (only the leading
    part of the data is read there); OpenVINO GatherElements wants equal extents. Where the
    shapes show such a difference, the indices are padded to the data's extents and the
    result cut back. (Cutting the data instead does not survive the CPU plugin: its shape
    reasoning, taking GatherElements' equal extents for granted, removes that Slice.)
    Unknown shapes (inside If bodies) keep the plain op: a cut to run-time extents would
    hide from OpenVINO the static dims it otherwise merges from the data, which later
    shape-dependent ops (a Squeeze without axes) need."""
    axis = ctx.attrs.int("axis", 0)
    op = GatherElements(axis=axis)
    data, indices = ctx.input_shape(0), ctx.input_shape(1)
    if data is None or indices is None or len(data) != len(indices):
        return [ctx.op(op, *node_inputs(ctx))]
    rank = len(data)
    axis = normalize_axis(ctx, axis, rank)
    if all(d == i for k, (d, i) in enumerate(zip(data, indices, strict=True)) if k != axis):
        # equal, or the same unknown extent (one symbolic dim, as exporters write it)
        return [ctx.op(op, *node_inputs(ctx))]
    on_axis = ctx.const(np.arange(rank) == axis, suffix="on_axis")
    indices_shape = shape_of(ctx, ctx.input(1), "indices_shape")
    missing = ctx.op(Subtract(), shape_of(ctx, ctx.input(0), "data_shape"), indices_shape, suffix="missing")
    zeros = i64(ctx, np.zeros(rank, np.int64), "zeros")
    pads_end = ctx.op(Select(), on_axis, zeros, missing, suffix="pads_end")
    padded = ctx.op(Pad(), ctx.input(1), zeros, pads_end, suffix="indices_padded")
    gathered = ctx.op(op, ctx.input(0), padded, suffix="gathered")
    return [ctx.op(Slice(), gathered, zeros, indices_shape, i64(ctx, np.ones(rank, np.int64), "ones"))]


@extractor("onnx", "GatherND", versions=(11, None), produces=[GatherND])
def _gather_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(GatherND(batch_dims=ctx.attrs.int("batch_dims", 0)), *node_inputs(ctx))]


_SCATTER_REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "min": "min", "max": "max"}


def _scatter_elements(node: Node, ctx: ExtractContext) -> ScatterElementsUpdate:
    a = ctx.attrs
    reduction = a.choice("reduction", list(_SCATTER_REDUCTIONS), "none")
    return ScatterElementsUpdate(reduction=_SCATTER_REDUCTIONS[reduction], use_init_val=True)


def _scatter_elements_ports(node: Node, ctx: ExtractContext) -> list[OutPort]:
    op = _scatter_elements(node, ctx)
    axis = i64(ctx, ctx.attrs.int("axis", 0), "axis")
    return [ctx.op(op, ctx.input(0), ctx.input(1), ctx.input(2), axis)]


@extractor("onnx", "ScatterND", versions=(11, None), produces=[ScatterNDUpdate])
def _scatter_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    reduction = a.choice("reduction", list(_SCATTER_REDUCTIONS), "none")
    return [ctx.op(ScatterNDUpdate(reduction=_SCATTER_REDUCTIONS[reduction]), *node_inputs(ctx))]


@extractor("onnx", "DepthToSpace", produces=[DepthToSpace])
def _depth_to_space(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_blocks(ctx, DepthToSpace)]


@extractor("onnx", "SpaceToDepth", produces=[SpaceToDepth])
def _space_to_depth(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_blocks(ctx, SpaceToDepth)]


def _blocks(ctx: ExtractContext, kind: type[DepthToSpace] | type[SpaceToDepth]) -> OutPort:
    a = ctx.attrs
    mode = a.choice("mode", ["DCR", "CRD"], "DCR")
    op = kind(block_size=a.int("blocksize"), mode="blocks_first" if mode == "DCR" else "depth_first")
    return ctx.op(op, *node_inputs(ctx))


@extractor("onnx", "Constant", produces=[Const])
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


@extractor("onnx", "ConstantOfShape", versions=(9, None), produces=[Broadcast])
def _constant_of_shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    value = a.tensor("value", None)
    scalar = np.zeros((), np.float32) if value is None else value.reshape(())
    return [ctx.op(Broadcast(), ctx.const(scalar, suffix="value"), ctx.input(0))]


@extractor("onnx", "Range", versions=(11, None), produces=[Range, Reshape])
def _range(node: Node, ctx: ExtractContext) -> list[OutPort]:
    et = ctx.input(0).data.element_type
    if et is ElementType.dynamic:
        et = ElementType.f32

    def scalar(idx: int) -> OutPort:
        port = ctx.input(idx)
        if port.data.shape == ():
            return port
        return ctx.op(Reshape(special_zero=False), port, i64(ctx, [], "scalar"), suffix=f"scalar_{idx}")

    return [ctx.op(Range(output_type=et), scalar(0), scalar(1), scalar(2))]


@extractor("onnx", "OneHot", versions=(9, None), produces=[OneHot, Add, Convert, Gather, Less, Reshape, Select])
def _one_hot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Negative indices count from the end; other out-of-range indices give all "off"."""
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


@extractor("onnx", "NonZero", versions=(9, None), produces=[NonZero])
def _non_zero(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(NonZero(output_type=ElementType.i64), *node_inputs(ctx))]


@extractor("onnx", "TopK", versions=(1, 9), produces=[TopK])
def top_k_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """k is an attribute before opset 10."""
    return _top_k(ctx, i64(ctx, ctx.attrs.int("k"), "k"))


@extractor("onnx", "TopK", versions=(10, None), produces=[TopK, Reshape])
def top_k_v10(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _top_k(ctx, ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [], "scalar"), suffix="k"))


def _top_k(ctx: ExtractContext, k: OutPort) -> list[OutPort]:
    a = ctx.attrs
    largest = a.int("largest", 1)
    top = ctx.add(TopK(axis=a.int("axis", -1), mode="max" if largest else "min", sort="value",
                       index_element_type=ElementType.i64, stable=True), [ctx.input(0), k])
    return [top.out_port(0), top.out_port(1)]


@extractor("onnx", "CumSum", versions=(11, None), produces=[CumSum])
def _cum_sum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    op = CumSum(exclusive=bool(a.int("exclusive", 0)), reverse=bool(a.int("reverse", 0)))
    return [ctx.op(op, *node_inputs(ctx))]


@extractor("onnx", "CumProd", produces=[CumSum, Log, Exp, Abs, Convert, ConvertLike, FloorMod, Less, Multiply, Round, Subtract])
def _cum_prod(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """sign * exp(cumsum(log|x|)), the sign from the parity of the running count of negatives.

    Zeros work out (log 0 = -inf, exp(-inf) = 0); integer inputs are computed in f64 and
    rounded back.
    """
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


@extractor("onnx", "Trilu", versions=(14, None), produces=[Range, Select, Gather, ShapeOf, Subtract, Unsqueeze, GreaterEqual, LessEqual])
@with_defaults({1: constant(0, np.int64)})
def _trilu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Keep x where (col - row) >= k (upper) or <= k (lower), from ShapeOf ranges."""
    upper = bool(ctx.attrs.int("upper", 1))
    x = ctx.input(0)
    static = ctx.input_shape(0)
    if static is not None and 0 in static:
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


@extractor("onnx", "EyeLike", versions=(9, None), produces=[Range, Equal, Select, Convert, ConvertLike, Gather, ShapeOf, Subtract, Unsqueeze])
def _eye_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Ones where col - row == k, from ShapeOf ranges."""
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


@extractor("onnx", "Unique", versions=(11, None), produces=[Unique])
def _unique(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    op = Unique(sorted=bool(a.int("sorted", 1)), index_element_type=ElementType.i64,
                count_element_type=ElementType.i64)
    inputs = [ctx.input(0)] + ([i64(ctx, a.int("axis"), "axis")] if "axis" in a else [])
    unique = ctx.add(op, inputs, "unique")
    return [unique.out_port(i) for i in range(len(node.out_ports()))]


@extractor("onnx", "Compress", versions=(9, None), produces=[NonZero, Gather, Reshape, Squeeze])
def _compress(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Gather the positions where the condition is true (the data flattened without an axis)."""
    a = ctx.attrs
    x = ctx.input(0)
    if "axis" not in a:
        x = ctx.op(Reshape(special_zero=False), x, i64(ctx, [-1]), suffix="flat")
    positions = ctx.op(NonZero(output_type=ElementType.i64), ctx.input(1), suffix="positions")
    positions = ctx.op(Squeeze(), positions, i64(ctx, [0]), suffix="indices")
    return [ctx.op(Gather(), x, positions, i64(ctx, a.int("axis", 0), "axis"))]


@extractor("onnx", "ReverseSequence", versions=(10, None), produces=[ReverseSequence])
def _reverse_sequence(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    op = ReverseSequence(batch_axis=a.int("batch_axis", 1), seq_axis=a.int("time_axis", 0))
    return [ctx.op(op, *node_inputs(ctx))]


@extractor("onnx", "TensorScatter", versions=(24, None), produces=[ScatterElementsUpdate, Add, Broadcast, Convert, FloorMod, Gather, Range, Reshape, ShapeOf])
@with_defaults({2: HANDLED})
def _tensor_scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TensorScatter-24: the update written into the cache along ``axis`` from each batch
    entry's write index (modulo the cache length in circular mode), as ScatterElementsUpdate
    with per-element positions write_index[b] + i."""
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


@extractor("onnx", "ScatterElements", versions=(11, None), produces=[ScatterElementsUpdate])
def scatter_elements(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _scatter_elements_ports(node, ctx)


@extractor("onnx", "Scatter", versions=(9, 10), produces=[ScatterElementsUpdate])
def scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _scatter_elements_ports(node, ctx)
