"""Shape and data movement: Flatten, Reshape, transpose, Concat, stack, split, slices,
expand_dims, squeeze, Crop, Pad, UpSampling, tile, repeat, broadcast_to/like."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import aliases, const_like, extractor, f32, i64, normalize_axes, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.graph.budget import PORT_BYTES, declared_size
from irconv_opset import (
    Broadcast,
    Concat,
    Gather,
    GroupConvolutionBackpropData,
    Interpolate,
    Pad,
    ReduceProd,
    Reshape,
    ShapeOf,
    Slice,
    Split,
    Squeeze,
    Tile,
    Transpose,
    Unsqueeze,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.repeat import REPEAT_ELEMENTS_OPS, repeat_elements

from irconv_mxnet.extractors.reshape import ReshapeError, fold_static, plan_reshape

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Reshape(special_zero=True), ctx.input(0), i64(ctx, [0, -1], "shape"))]


def _target(ctx: ExtractContext, x: OutPort, plan: list[int | tuple[int, ...]]) -> OutPort:
    """The Reshape target for a plan: a constant, or pieces read from ShapeOf(x)."""
    if all(isinstance(item, int) for item in plan):
        return i64(ctx, plan, "shape")
    shape = shape_of(ctx, x)
    pieces = []
    for item in plan:
        if isinstance(item, int):
            pieces.append(i64(ctx, [item], "dim"))
            continue
        dims = ctx.op(Gather(), shape, i64(ctx, list(item), "dims"), i64(ctx, 0, "axis"), suffix="dims")
        if len(item) > 1:
            dims = ctx.op(ReduceProd(keep_dims=True), dims, i64(ctx, [0], "axis"), suffix="product")
        pieces.append(dims)
    return ctx.op(Concat(axis=0), *pieces, suffix="shape")


def reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    x = ctx.input(0)
    codes = ctx.attrs.ints("shape", [])
    if not codes:
        codes = ctx.attrs.ints("target_shape", [])
        if not codes:
            raise ctx.attrs.bad("shape", (), "an empty target shape")
        if ctx.attrs.bool("keep_highest", False):
            codes = [0, *codes[1:]]
    try:
        plan = plan_reshape(codes, ctx.input_shape(0), ctx.attrs.bool("reverse", False))
    except ReshapeError as exc:
        raise ctx.attrs.bad("shape", codes, str(exc)) from None
    shape = ctx.input_shape(0)
    assert shape is not None
    plan = fold_static(plan, shape)
    return [ctx.op(Reshape(special_zero=False), x, _target(ctx, x, plan))]


@extractor("mxnet", "reshape_like", produces=[ShapeOf, Reshape])
def reshape_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if any(a in ctx.attrs for a in ("lhs_begin", "lhs_end", "rhs_begin", "rhs_end")):
        raise ctx.attrs.bad("lhs_begin", ctx.attrs.get("lhs_begin"), "partial reshape_like is not supported")
    return [ctx.op(Reshape(special_zero=False), ctx.input(0), shape_of(ctx, ctx.input(1)))]


@extractor("mxnet", "transpose", produces=[Transpose])
def transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = ctx.attrs.ints("axes", []) or list(reversed(range(require_rank(ctx))))
    return [ctx.op(Transpose(), ctx.input(0), i64(ctx, axes, "order"))]


def swap_axis(node: Node, ctx: ExtractContext) -> list[OutPort]:
    r = require_rank(ctx)
    order = list(range(r))
    a = normalize_axis(ctx, ctx.attrs.int("dim1", 0), r)
    b = normalize_axis(ctx, ctx.attrs.int("dim2", 0), r)
    order[a], order[b] = order[b], order[a]
    return [ctx.op(Transpose(), ctx.input(0), i64(ctx, order, "order"))]


def concat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = ctx.attrs.int("dim", 1)
    inputs = [ctx.input(i) for i in range(len(ctx.inputs))]
    return [ctx.op(Concat(axis=axis), *inputs)]


@extractor("mxnet", "stack", produces=[Unsqueeze, Concat])
def stack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 0), require_rank(ctx) + 1)
    parts = [ctx.op(Unsqueeze(), ctx.input(i), i64(ctx, [axis], "axis"), suffix=f"expand{i}")
             for i in range(len(ctx.inputs))]
    return [ctx.op(Concat(axis=axis), *parts)]


def split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SliceChannel/split: ``num_outputs`` equal parts along ``axis``, optionally squeezed."""
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 1), require_rank(ctx))
    shape = ctx.input_shape(0)
    # each part becomes a port, and there cannot be more parts than the axis has elements
    count = declared_size(ctx.attrs.int("num_outputs"), field="num_outputs", where=f"node {quoted(node.name)}",
                          limit=shape[axis] if shape is not None else None, limit_is="elements of the split axis",
                          unit_bytes=PORT_BYTES)
    parts = ctx.add(Split(num_splits=count), [ctx.input(0), i64(ctx, axis, "axis")], "split")
    outputs = [parts.out_port(i) for i in range(count)]
    if ctx.attrs.bool("squeeze_axis", False):
        outputs = [ctx.op(Squeeze(), p, i64(ctx, [axis], "axis"), suffix=f"squeeze{i}") for i, p in enumerate(outputs)]
    return outputs


def _slice(ctx: ExtractContext, x: OutPort, begin: list[int], end: list[int], step: list[int],
           axes: list[int]) -> OutPort:
    return ctx.op(Slice(), x, i64(ctx, begin, "begin"), i64(ctx, end, "end"), i64(ctx, step, "step"),
                  i64(ctx, axes, "axes"))


def slice_(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``slice(begin, end, step)``: None entries mean the whole axis in the step's direction."""
    begin = ctx.attrs.optional_ints("begin")
    end = ctx.attrs.optional_ints("end")
    step = ctx.attrs.optional_ints("step", []) or [None] * len(begin)
    if len(end) != len(begin) or len(step) != len(begin):
        raise ctx.attrs.bad("end", end, "begin, end and step must have the same length")
    steps = [1 if s is None else s for s in step]
    starts = [(0 if s > 0 else INT64_MAX) if b is None else b for b, s in zip(begin, steps, strict=True)]
    stops = [(INT64_MAX if s > 0 else INT64_MIN) if e is None else e for e, s in zip(end, steps, strict=True)]
    return [_slice(ctx, ctx.input(0), starts, stops, steps, list(range(len(begin))))]


@extractor("mxnet", "slice_axis", produces=[Slice])
def slice_axis(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = ctx.attrs.int("axis")
    begin = ctx.attrs.int("begin", 0)
    end = ctx.attrs.int("end", None)
    return [_slice(ctx, ctx.input(0), [begin], [INT64_MAX if end is None else end], [1], [axis])]


@extractor("mxnet", "slice_like", produces=[ShapeOf, Gather, Slice])
def slice_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Crop the data to the shape of the second input on ``axes`` (all when empty)."""
    r = require_rank(ctx)
    axes = normalize_axes(ctx, ctx.attrs.ints("axes", []), r) or list(range(r))
    like = shape_of(ctx, ctx.input(1), "like_shape")
    stops = ctx.op(Gather(), like, i64(ctx, axes, "axes_idx"), i64(ctx, 0, "axis"), suffix="stop")
    zeros, ones = i64(ctx, [0] * len(axes), "begin"), i64(ctx, [1] * len(axes), "step")
    return [ctx.op(Slice(), ctx.input(0), zeros, stops, ones, i64(ctx, axes, "axes"))]


@extractor("mxnet", "Crop", produces=[Slice])
def crop(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Crop: H/W of ``h_w`` or of the second input, at ``offset`` or centred."""
    shape = ctx.input_shape(0)
    if shape is None or shape[2] is None or shape[3] is None:
        raise ConversionError(f"{ctx.where()}: Crop needs a static input height and width, got {shape}")
    if len(ctx.inputs) > 1:
        like = ctx.input_shape(1)
        if like is None or like[2] is None or like[3] is None:
            raise ConversionError(f"{ctx.where()}: the reference input's height and width must be static, got {like}")
        height, width = int(like[2]), int(like[3])
    else:
        height, width = ctx.attrs.ints("h_w", length=2)
    if ctx.attrs.bool("center_crop", False):
        top, left = (int(shape[2]) - height) // 2, (int(shape[3]) - width) // 2
    else:
        top, left = ctx.attrs.ints("offset", [0, 0], length=2)
    return [_slice(ctx, ctx.input(0), [top, left], [top + height, left + width], [1, 1], [2, 3])]


def pad(node: Node, ctx: ExtractContext) -> list[OutPort]:
    mode = ctx.attrs.choice("mode", ["constant", "edge", "reflect"], "constant")
    widths = ctx.attrs.ints("pad_width")
    x = ctx.input(0)
    if len(widths) != 2 * require_rank(ctx):
        raise ctx.attrs.bad("pad_width", widths, f"needs two values per axis ({2 * require_rank(ctx)})")
    begin, end = list(widths[0::2]), list(widths[1::2])
    value = const_like(ctx, ctx.attrs.float("constant_value", 0.0), x, "value")
    return [ctx.op(Pad(pad_mode=mode), x, i64(ctx, begin, "begin"), i64(ctx, end, "end"), value)]


@extractor("mxnet", "expand_dims", produces=[Unsqueeze])
def expand_dims(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("axis"), require_rank(ctx) + 1)
    return [ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, [axis], "axis"))]


@extractor("mxnet", "squeeze", produces=[Squeeze])
def squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = ctx.attrs.ints("axis", [])
    if not axes:
        shape = ctx.input_shape(0)
        if shape is None or any(d is None for d in shape):
            raise ConversionError(f"{ctx.where()}: squeezing every unit axis needs a static input shape, got {shape}")
        axes = [i for i, d in enumerate(shape) if d == 1]
    return [ctx.op(Squeeze(), ctx.input(0), i64(ctx, axes, "axes"))]


@extractor("mxnet", "UpSampling", produces=[Interpolate, GroupConvolutionBackpropData])
def upsampling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """nearest: repeat each pixel ``scale`` times (one input); bilinear: the grouped
    deconvolution MXNet runs with the given weights."""
    scale = ctx.attrs.int("scale")
    sample = ctx.attrs.choice("sample_type", ["nearest", "bilinear"], "nearest")
    x = ctx.input(0)
    if sample == "nearest":
        count = ctx.attrs.int("num_args", 1)
        if count != 1:
            raise ctx.attrs.bad("num_args", count, "nearest UpSampling of several inputs is not supported")
        op = Interpolate(mode="nearest", shape_calculation_mode="scales", coordinate_transformation_mode="asymmetric",
                         nearest_mode="floor")
        return [ctx.op(op, x, f32(ctx, [scale, scale], suffix="scales"), i64(ctx, [2, 3], "axes"))]
    kernel = 2 * scale - scale % 2
    pad_ = int(np.ceil((scale - 1) / 2.0))
    weights = ctx.input_value(1)
    channels = ctx.attrs.int("num_filter")
    if weights is None:
        raise ConversionError(f"{ctx.where()}: bilinear UpSampling needs constant weights (input 1)")
    grouped = ctx.const(np.asarray(weights).reshape(channels, 1, 1, kernel, kernel), suffix="weights")
    op = GroupConvolutionBackpropData(strides=(scale, scale), dilations=(1, 1), pads_begin=(pad_, pad_),
                                      pads_end=(pad_, pad_), auto_pad="explicit", output_padding=(0, 0))
    return [ctx.op(op, x, grouped)]


@extractor("mxnet", "tile", produces=[Tile])
def tile(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Tile(), ctx.input(0), i64(ctx, ctx.attrs.ints("reps"), "repeats"))]


@extractor("mxnet", "repeat", produces=list(REPEAT_ELEMENTS_OPS))
def repeat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Each element ``repeats`` times along ``axis`` (flattened when no axis)."""
    return [repeat_elements(ctx, ctx.input(0), ctx.attrs.int("repeats"), ctx.attrs.int("axis", None))]


@extractor("mxnet", "broadcast_to", produces=[Broadcast])
def broadcast_to(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``shape`` with 0 keeping the input's dimension."""
    target = ctx.attrs.ints("shape")
    shape = ctx.input_shape(0)
    if any(d == 0 for d in target):
        kept = [shape[i] if d == 0 else d for i, d in enumerate(target)] if shape is not None else []
        static = [d for d in kept if d is not None]
        if len(static) != len(target):
            raise ctx.attrs.bad("shape", target, "0 entries need static input dimensions")
        target = static
    return [ctx.op(Broadcast(), ctx.input(0), i64(ctx, target, "shape"))]


@extractor("mxnet", "broadcast_like", produces=[ShapeOf, Broadcast])
def broadcast_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if "lhs_axes" in ctx.attrs:
        raise ctx.attrs.bad("lhs_axes", ctx.attrs.get("lhs_axes"), "partial broadcast_like is not supported")
    return [ctx.op(Broadcast(), ctx.input(0), shape_of(ctx, ctx.input(1)))]


def broadcast_axis(node: Node, ctx: ExtractContext) -> list[OutPort]:
    r = require_rank(ctx)
    axes = ctx.attrs.ints("axis")
    sizes = ctx.attrs.ints("size")
    reps = [1] * r
    for axis, size in zip(axes, sizes, strict=False):
        reps[normalize_axis(ctx, axis, r)] = size
    return [ctx.op(Tile(), ctx.input(0), i64(ctx, reps, "repeats"))]


@extractor("mxnet", "zeros_like", produces=[ShapeOf, Broadcast])
def zeros_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _like_fill(ctx, 0.0)


@extractor("mxnet", "ones_like", produces=[ShapeOf, Broadcast])
def ones_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _like_fill(ctx, 1.0)


def _like_fill(ctx: ExtractContext, value: float) -> list[OutPort]:
    x = ctx.input(0)
    return [ctx.op(Broadcast(), const_like(ctx, value, x, "value"), shape_of(ctx, x))]


@extractor("mxnet", "shape_array", produces=[ShapeOf])
def shape_array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [shape_of(ctx, ctx.input(0))]



FLATTEN = aliases("mxnet", ["Flatten", "flatten"], flatten, produces=[Reshape])
RESHAPE = aliases("mxnet", ["Reshape", "reshape"], reshape, produces=[ShapeOf, Gather, ReduceProd, Concat, Reshape])
SWAP_AXIS = aliases("mxnet", ["SwapAxis", "swapaxes"], swap_axis, produces=[Transpose])
CONCAT = aliases("mxnet", ["Concat", "concat", "_rnn_param_concat"], concat, produces=[Concat])
SPLIT = aliases("mxnet", ["SliceChannel", "split"], split, produces=[Split, Squeeze])
SLICE = aliases("mxnet", ["slice", "crop"], slice_, produces=[Slice])
PAD = aliases("mxnet", ["Pad", "pad"], pad, produces=[Pad])
BROADCAST_AXIS = aliases("mxnet", ["broadcast_axis", "broadcast_axes"], broadcast_axis, produces=[Tile])
