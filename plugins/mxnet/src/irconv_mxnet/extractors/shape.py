"""Shape and data movement: Flatten, Reshape, transpose, Concat, stack, split, slices,
expand_dims, squeeze, Crop, Pad, UpSampling, tile, repeat, broadcast_to/like."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType

from irconv_mxnet.extractors._common import (
    bad,
    flag,
    i64,
    integer,
    ints,
    like_const,
    mx_op,
    normalize_axis,
    number,
    optional_int,
    optional_ints,
    port_value,
    rank,
    shape_of,
    text,
)
from irconv_mxnet.extractors.reshape import ReshapeError, fold_static, plan_reshape

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Reshape

    return [ctx.op(Reshape(special_zero=True), ctx.input(0), i64(ctx, [0, -1], "shape"))]


def _target(ctx: ExtractContext, x: OutPort, plan: list[int | tuple[int, ...]]) -> OutPort:
    """The Reshape target for a plan: a constant, or pieces read from ShapeOf(x)."""
    from irconv_opset import Concat, Gather, ReduceProd

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
    from irconv_opset import Reshape

    x = ctx.input(0)
    codes = ints(ctx, "shape", ())
    if not codes:
        codes = ints(ctx, "target_shape", ())
        if not codes:
            raise bad(ctx, "shape", (), "an empty target shape")
        if flag(ctx, "keep_highest", False):
            codes = (0, *codes[1:])
    try:
        plan = plan_reshape(codes, ctx.input_shape(0), flag(ctx, "reverse", False))
    except ReshapeError as exc:
        raise bad(ctx, "shape", codes, str(exc)) from None
    shape = ctx.input_shape(0)
    assert shape is not None
    plan = fold_static(plan, shape)
    return [ctx.op(Reshape(special_zero=False), x, _target(ctx, x, plan))]


def reshape_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Reshape

    if any(ctx.has_attr(a) for a in ("lhs_begin", "lhs_end", "rhs_begin", "rhs_end")):
        raise bad(ctx, "lhs_begin", ctx.attr("lhs_begin", None), "partial reshape_like is not supported")
    return [ctx.op(Reshape(special_zero=False), ctx.input(0), shape_of(ctx, ctx.input(1)))]


def transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Transpose

    axes = ints(ctx, "axes", ())
    if not axes:
        axes = tuple(reversed(range(rank(ctx, 0))))
    return [ctx.op(Transpose(), ctx.input(0), i64(ctx, list(axes), "order"))]


def swap_axis(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Transpose

    r = rank(ctx, 0)
    order = list(range(r))
    a = normalize_axis(ctx, integer(ctx, "dim1", 0), r)
    b = normalize_axis(ctx, integer(ctx, "dim2", 0), r)
    order[a], order[b] = order[b], order[a]
    return [ctx.op(Transpose(), ctx.input(0), i64(ctx, order, "order"))]


def concat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Concat

    axis = integer(ctx, "dim", 1)
    inputs = [ctx.input(i) for i in range(len(ctx.inputs))]
    return [ctx.op(Concat(axis=axis), *inputs)]


def stack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Concat, Unsqueeze

    axis = normalize_axis(ctx, integer(ctx, "axis", 0), rank(ctx, 0) + 1)
    parts = [ctx.op(Unsqueeze(), ctx.input(i), i64(ctx, [axis], "axis"), suffix=f"expand{i}")
             for i in range(len(ctx.inputs))]
    return [ctx.op(Concat(axis=axis), *parts)]


def split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SliceChannel/split: ``num_outputs`` equal parts along ``axis``, optionally squeezed."""
    from irconv_opset import Split, Squeeze

    count = integer(ctx, "num_outputs")
    axis = normalize_axis(ctx, integer(ctx, "axis", 1), rank(ctx, 0))
    parts = ctx.add(Split(num_splits=count), [ctx.input(0), i64(ctx, axis, "axis")], "split")
    outputs = [parts.out_port(i) for i in range(count)]
    if flag(ctx, "squeeze_axis", False):
        outputs = [ctx.op(Squeeze(), p, i64(ctx, [axis], "axis"), suffix=f"squeeze{i}") for i, p in enumerate(outputs)]
    return outputs


def _slice(ctx: ExtractContext, x: OutPort, begin: list[int], end: list[int], step: list[int],
           axes: list[int]) -> OutPort:
    from irconv_opset import Slice

    return ctx.op(Slice(), x, i64(ctx, begin, "begin"), i64(ctx, end, "end"), i64(ctx, step, "step"),
                  i64(ctx, axes, "axes"))


def slice_(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``slice(begin, end, step)``: None entries mean the whole axis in the step's direction."""
    begin = optional_ints(ctx, "begin")
    end = optional_ints(ctx, "end")
    step = optional_ints(ctx, "step") or (None,) * len(begin)
    if len(end) != len(begin) or len(step) != len(begin):
        raise bad(ctx, "end", end, "begin, end and step must have the same length")
    steps = [1 if s is None else s for s in step]
    starts = [(0 if s > 0 else INT64_MAX) if b is None else b for b, s in zip(begin, steps, strict=True)]
    stops = [(INT64_MAX if s > 0 else INT64_MIN) if e is None else e for e, s in zip(end, steps, strict=True)]
    return [_slice(ctx, ctx.input(0), starts, stops, steps, list(range(len(begin))))]


def slice_axis(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = integer(ctx, "axis")
    begin = integer(ctx, "begin", 0)
    end = optional_int(ctx, "end")
    return [_slice(ctx, ctx.input(0), [begin], [INT64_MAX if end is None else end], [1], [axis])]


def slice_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Crop the data to the shape of the second input on ``axes`` (all when empty)."""
    from irconv_opset import Gather, Slice

    r = rank(ctx, 0)
    axes = [normalize_axis(ctx, a, r) for a in ints(ctx, "axes", ())] or list(range(r))
    like = shape_of(ctx, ctx.input(1), "like_shape")
    stops = ctx.op(Gather(), like, i64(ctx, axes, "axes_idx"), i64(ctx, 0, "axis"), suffix="stop")
    zeros, ones = i64(ctx, [0] * len(axes), "begin"), i64(ctx, [1] * len(axes), "step")
    return [ctx.op(Slice(), ctx.input(0), zeros, stops, ones, i64(ctx, axes, "axes"))]


def crop(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Crop: H/W of ``h_w`` or of the second input, at ``offset`` or centred."""
    shape = ctx.input_shape(0)
    if shape is None or shape[2] is None or shape[3] is None:
        raise bad(ctx, "h_w", ctx.attr("h_w", None), "Crop needs static input height and width")
    if len(ctx.inputs) > 1:
        like = ctx.input_shape(1)
        if like is None or like[2] is None or like[3] is None:
            raise bad(ctx, "num_args", 2, "the reference input's height and width must be static")
        height, width = int(like[2]), int(like[3])
    else:
        height, width = ints(ctx, "h_w")
    if flag(ctx, "center_crop", False):
        top, left = (int(shape[2]) - height) // 2, (int(shape[3]) - width) // 2
    else:
        top, left = ints(ctx, "offset", (0, 0))
    return [_slice(ctx, ctx.input(0), [top, left], [top + height, left + width], [1, 1], [2, 3])]


def pad(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Pad

    mode = text(ctx, "mode", "constant")
    modes = {"constant": "constant", "edge": "edge", "reflect": "reflect"}
    if mode not in modes:
        raise bad(ctx, "mode", mode, "expected constant, edge or reflect")
    widths = ints(ctx, "pad_width")
    x = ctx.input(0)
    if len(widths) != 2 * rank(ctx, 0):
        raise bad(ctx, "pad_width", widths, f"needs two values per axis ({2 * rank(ctx, 0)})")
    begin, end = list(widths[0::2]), list(widths[1::2])
    value = like_const(ctx, number(ctx, "constant_value", 0.0), x, "value")
    return [ctx.op(Pad(pad_mode=modes[mode]), x, i64(ctx, begin, "begin"), i64(ctx, end, "end"), value)]


def expand_dims(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Unsqueeze

    axis = normalize_axis(ctx, integer(ctx, "axis"), rank(ctx, 0) + 1)
    return [ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, [axis], "axis"))]


def squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Squeeze

    axes = ints(ctx, "axis", ())
    if not axes:
        shape = ctx.input_shape(0)
        if shape is None or any(d is None for d in shape):
            raise bad(ctx, "axis", None, "squeezing every unit axis needs a static input shape")
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    return [ctx.op(Squeeze(), ctx.input(0), i64(ctx, list(axes), "axes"))]


def upsampling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """nearest: repeat each pixel ``scale`` times (one input); bilinear: the grouped
    deconvolution MXNet runs with the given weights."""
    from irconv_opset import GroupConvolutionBackpropData, Interpolate

    scale = integer(ctx, "scale")
    sample = text(ctx, "sample_type", "nearest")
    x = ctx.input(0)
    if sample == "nearest":
        if integer(ctx, "num_args", 1) != 1:
            raise bad(ctx, "num_args", ctx.attr("num_args"), "nearest UpSampling of several inputs is not supported")
        op = Interpolate(mode="nearest", shape_calculation_mode="scales", coordinate_transformation_mode="asymmetric",
                         nearest_mode="floor")
        scales = ctx.const(np.asarray([scale, scale], np.float32), suffix="scales")
        return [ctx.op(op, x, scales, i64(ctx, [2, 3], "axes"))]
    if sample != "bilinear":
        raise bad(ctx, "sample_type", sample, "expected nearest or bilinear")
    kernel = 2 * scale - scale % 2
    pad_ = int(np.ceil((scale - 1) / 2.0))
    weights = port_value(ctx.input(1))
    channels = integer(ctx, "num_filter")
    if weights is None:
        raise bad(ctx, "sample_type", sample, "bilinear UpSampling needs constant weights")
    grouped = ctx.const(np.asarray(weights).reshape(channels, 1, 1, kernel, kernel), suffix="weights")
    op = GroupConvolutionBackpropData(strides=(scale, scale), dilations=(1, 1), pads_begin=(pad_, pad_),
                                      pads_end=(pad_, pad_), auto_pad="explicit", output_padding=(0, 0))
    return [ctx.op(op, x, grouped)]


def tile(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Tile

    reps = ints(ctx, "reps")
    return [ctx.op(Tile(), ctx.input(0), i64(ctx, list(reps), "repeats"))]


def repeat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Each element ``repeats`` times along ``axis`` (flattened when no axis)."""
    from irconv_opset import Reshape, Tile, Unsqueeze

    times = integer(ctx, "repeats")
    axis = optional_int(ctx, "axis")
    x = ctx.input(0)
    if axis is None:
        x = ctx.op(Reshape(special_zero=False), x, i64(ctx, [-1], "flat"), suffix="flatten")
        axis = 0
    shape = x.data.shape
    if shape is None or any(d is None for d in shape):
        raise bad(ctx, "axis", axis, "repeat needs a static input shape")
    axis = normalize_axis(ctx, axis, len(shape))
    expanded = ctx.op(Unsqueeze(), x, i64(ctx, [axis + 1], "axis"), suffix="expand")
    reps = [1] * (len(shape) + 1)
    reps[axis + 1] = times
    tiled = ctx.op(Tile(), expanded, i64(ctx, reps, "repeats"), suffix="tile")
    target = [int(d) for d in shape if d is not None]
    target[axis] *= times
    return [ctx.op(Reshape(special_zero=False), tiled, i64(ctx, target, "shape"))]


def broadcast_to(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``shape`` with 0 keeping the input's dimension."""
    from irconv_opset import Broadcast

    target = list(ints(ctx, "shape"))
    shape = ctx.input_shape(0)
    if any(d == 0 for d in target):
        if shape is None or any(shape[i] is None for i, d in enumerate(target) if d == 0):
            raise bad(ctx, "shape", target, "0 entries need static input dimensions")
        target = [int(shape[i]) if d == 0 else d for i, d in enumerate(target)]  # type: ignore[arg-type]
    return [ctx.op(Broadcast(), ctx.input(0), i64(ctx, target, "shape"))]


def broadcast_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Broadcast

    if ctx.has_attr("lhs_axes") and ctx.attr("lhs_axes") is not None:
        raise bad(ctx, "lhs_axes", ctx.attr("lhs_axes"), "partial broadcast_like is not supported")
    return [ctx.op(Broadcast(), ctx.input(0), shape_of(ctx, ctx.input(1)))]


def broadcast_axis(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Tile

    r = rank(ctx, 0)
    axes = ints(ctx, "axis")
    sizes = ints(ctx, "size")
    reps = [1] * r
    for axis, size in zip(axes, sizes, strict=False):
        reps[normalize_axis(ctx, axis, r)] = size
    return [ctx.op(Tile(), ctx.input(0), i64(ctx, reps, "repeats"))]


def like_fill(value: float, node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Broadcast

    x = ctx.input(0)
    return [ctx.op(Broadcast(), like_const(ctx, value, x, "value"), shape_of(ctx, x))]


def shape_array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import ShapeOf

    return [ctx.op(ShapeOf(output_type=ElementType.i64), ctx.input(0))]


def extractors() -> list[Extractor]:
    from functools import partial

    return [
        *mx_op(("Flatten", "flatten"), flatten, "Reshape"),
        *mx_op(("Reshape", "reshape"), reshape, "Reshape"),
        *mx_op("reshape_like", reshape_like, "Reshape"),
        *mx_op("transpose", transpose, "Transpose"),
        *mx_op(("SwapAxis", "swapaxes"), swap_axis, "Transpose"),
        *mx_op(("Concat", "concat", "_rnn_param_concat"), concat, "Concat"),
        *mx_op("stack", stack, "Unsqueeze, Concat"),
        *mx_op(("SliceChannel", "split"), split, "Split"),
        *mx_op(("slice", "crop"), slice_, "Slice"),
        *mx_op("slice_axis", slice_axis, "Slice"),
        *mx_op("slice_like", slice_like, "Slice"),
        *mx_op("Crop", crop, "Slice"),
        *mx_op(("Pad", "pad"), pad, "Pad"),
        *mx_op("expand_dims", expand_dims, "Unsqueeze"),
        *mx_op("squeeze", squeeze, "Squeeze"),
        *mx_op("UpSampling", upsampling, "Interpolate, GroupConvolutionBackpropData"),
        *mx_op("tile", tile, "Tile"),
        *mx_op("repeat", repeat, "Tile, Reshape"),
        *mx_op(("broadcast_to",), broadcast_to, "Broadcast"),
        *mx_op("broadcast_like", broadcast_like, "Broadcast"),
        *mx_op(("broadcast_axis", "broadcast_axes"), broadcast_axis, "Tile"),
        *mx_op("zeros_like", partial(like_fill, 0.0), "Broadcast"),
        *mx_op("ones_like", partial(like_fill, 1.0), "Broadcast"),
        *mx_op("shape_array", shape_array, "ShapeOf"),
    ]
