"""Layers that combine, split and rearrange tensors."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, f32, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Concat,
    Convert,
    Gather,
    Interpolate,
    Maximum,
    Multiply,
    Reshape,
    ShapeOf,
    ShuffleChannels,
    Slice,
    Split,
    Tile,
    TopK,
    Transpose,
    VariadicSplit,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.reduction import Reduction, reduce

from irconv_caffe.attributes import ParamBlock


@extractor("caffe", "Eltwise", produces=[Add, Multiply, Maximum])
def extract_eltwise(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SUM (with coefficients), PROD, MAX over any number of inputs."""
    p = ctx.attrs.required("eltwise_param")
    count = len(ctx.attrs.strs("bottom"))
    coeffs = list(p.coeff)
    if coeffs and len(coeffs) != count:
        raise ConversionError(f"{ctx.where()}: {len(coeffs)} coefficients for {count} inputs")
    if coeffs and p.operation != "SUM":
        raise ConversionError(f"{ctx.where()}: coefficients only apply to SUM")
    terms = []
    for i in range(count):
        term = ctx.input(i)
        if coeffs and coeffs[i] != 1:
            term = ctx.op(Multiply(), term, f32(ctx, coeffs[i], suffix=f"coeff{i}"), suffix=f"scaled{i}")
        terms.append(term)
    op_type = {"SUM": Add, "PROD": Multiply, "MAX": Maximum}
    out = terms[0]
    for i, term in enumerate(terms[1:], start=1):
        out = ctx.op(op_type[p.operation](), out, term, suffix=f"eltwise{i}")
    return [out]


def _concat_axis(p: ParamBlock) -> int:
    return int(p.axis if p.is_set("axis") or not p.is_set("concat_dim") else p.concat_dim)


@extractor("caffe", "Concat", produces=[Concat])
def extract_concat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Any ``axis`` (or the old ``concat_dim``)."""
    inputs = [ctx.input(i) for i in range(len(ctx.attrs.strs("bottom")))]
    if len(inputs) == 1:
        return inputs
    axis = normalize_axis(ctx, _concat_axis(ctx.attrs.required("concat_param")), require_rank(ctx))
    return [ctx.op(Concat(axis=axis), *inputs, suffix="concat")]


@extractor("caffe", "Slice", produces=[VariadicSplit, Split])
def extract_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``slice_point`` lists or equal parts, any ``axis``."""
    p = ctx.attrs.required("slice_param")
    tops = len(ctx.attrs.strs("top"))
    axis_value = p.axis if p.is_set("axis") or not p.is_set("slice_dim") else p.slice_dim
    axis = normalize_axis(ctx, axis_value, require_rank(ctx))
    axis_port = i64(ctx, axis, suffix="axis")
    if not p.slice_point:
        split = ctx.add(Split(num_splits=tops), [ctx.input(0), axis_port], suffix="split")
        return [split.out_port(i) for i in range(tops)]
    points = list(p.slice_point)
    if len(points) != tops - 1:
        raise ConversionError(f"{ctx.where()}: {len(points)} slice points for {tops} tops")
    edges = [0, *points]
    lengths = [edges[i + 1] - edges[i] for i in range(len(points))] + [-1]
    split = ctx.add(
        VariadicSplit(), [ctx.input(0), axis_port, i64(ctx, lengths, suffix="lengths")], suffix="split"
    )
    return [split.out_port(i) for i in range(tops)]


@extractor("caffe", "Crop", produces=[Slice, ShapeOf, Gather, Add])
def extract_crop(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Crop input 0 to input 1's size from ``axis`` on, starting at ``offset``."""
    p = ctx.attrs.required("crop_param")
    rank = require_rank(ctx)
    axis = normalize_axis(ctx, p.axis, rank)
    axes = list(range(axis, rank))
    offsets = list(p.offset)
    if len(offsets) not in (0, 1, len(axes)):
        raise ConversionError(f"{ctx.where()}: {len(offsets)} offsets for {len(axes)} cropped axes")
    starts = [offsets[i] if len(offsets) > 1 else (offsets[0] if offsets else 0) for i in range(len(axes))]
    reference = ctx.input_shape(1)
    start_port = i64(ctx, starts, suffix="starts")
    if reference is not None and all(reference[a] is not None for a in axes):
        stops = [s + int(reference[a] or 0) for s, a in zip(starts, axes, strict=True)]
        stop_port = i64(ctx, stops, suffix="stops")
    else:
        sizes = ctx.op(
            Gather(),
            shape_of(ctx, ctx.input(1), suffix="ref_shape"),
            i64(ctx, axes, suffix="ref_axes"),
            i64(ctx, 0, suffix="gather_axis"),
            suffix="ref_sizes",
        )
        stop_port = ctx.op(Add(), sizes, start_port, suffix="stops")
    steps = i64(ctx, [1] * len(axes), suffix="steps")
    return [
        ctx.op(Slice(), ctx.input(0), start_port, stop_port, steps, i64(ctx, axes, suffix="axes"), suffix="crop")
    ]


def _reshape(ctx: ExtractContext, target: list[int], suffix: str = "reshape") -> OutPort:
    return ctx.op(Reshape(special_zero=True), ctx.input(0), i64(ctx, target, suffix="shape"), suffix=suffix)


@extractor("caffe", "Flatten", produces=[Reshape])
def extract_flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``axis`` .. ``end_axis``."""
    p = ctx.attrs.required("flatten_param")
    rank = require_rank(ctx)
    axis = normalize_axis(ctx, p.axis, rank)
    end = normalize_axis(ctx, p.end_axis, rank)
    if end == rank - 1:
        return [_reshape(ctx, [0] * axis + [-1], "flatten")]
    shape = ctx.input_shape(0)
    assert shape is not None
    tail = [d for d in shape[end + 1 :] if d is not None]
    if len(tail) != rank - end - 1:
        raise ConversionError(f"{ctx.where()}: end_axis {p.end_axis} needs static trailing dims, got {shape}")
    return [_reshape(ctx, [0] * axis + [-1] + tail, "flatten")]


@extractor("caffe", "Reshape", produces=[Reshape])
def extract_reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Caffe's 0 copies the input dim at the same place, -1 is inferred: OpenVINO's special_zero."""
    p = ctx.attrs.required("reshape_param")
    rank = require_rank(ctx)
    shape = ctx.input_shape(0)
    assert shape is not None
    axis = p.axis + rank + 1 if p.axis < 0 else p.axis
    end = rank if p.num_axes == -1 else axis + p.num_axes
    if not 0 <= axis <= end <= rank:
        raise ConversionError(f"{ctx.where()}: axis {p.axis} / num_axes {p.num_axes} do not fit rank {rank}")
    dims = [int(d) for d in p.shape.dim]
    tail = [d for d in shape[end:] if d is not None]
    if len(tail) != rank - end:
        raise ConversionError(f"{ctx.where()}: reshaping a middle span needs static trailing dims, got {shape}")
    return [_reshape(ctx, [0] * axis + dims + tail)]


@extractor("caffe", "Permute", produces=[Transpose])
def extract_permute(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """SSD's Permute; missing trailing axes keep their order."""
    rank = require_rank(ctx)
    order = ctx.attrs.ints("permute_param.order")
    order += [a for a in range(rank) if a not in order]
    if order == list(range(rank)):
        return [ctx.input(0)]
    return [ctx.op(Transpose(), ctx.input(0), i64(ctx, order, suffix="order"), suffix="transpose")]


@extractor("caffe", "Tile", produces=[Tile])
def extract_tile(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Repeat along ``axis``."""
    p = ctx.attrs.required("tile_param")
    rank = require_rank(ctx)
    repeats = [1] * rank
    repeats[normalize_axis(ctx, p.axis, rank)] = p.tiles
    return [ctx.op(Tile(), ctx.input(0), i64(ctx, repeats, suffix="repeats"), suffix="tile")]


#: Caffe's ReductionParameter operations (SUMSQ squares first).
_REDUCTIONS = {"SUM": Reduction.SUM, "SUMSQ": Reduction.SUM, "ASUM": Reduction.L1, "MEAN": Reduction.MEAN}


@extractor("caffe", "Reduction", produces=[*dict.fromkeys(kind.op for kind in _REDUCTIONS.values()), Multiply])
def extract_reduction(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Reduce every dim from ``axis`` on, then scale by ``coeff``."""
    p = ctx.attrs.required("reduction_param")
    rank = require_rank(ctx)
    axes = i64(ctx, list(range(normalize_axis(ctx, p.axis, rank), rank)), suffix="axes")
    data = ctx.input(0)
    if p.operation == "SUMSQ":
        data = ctx.op(Multiply(), data, data, suffix="square")
    out = reduce(ctx, _REDUCTIONS[p.operation], data, axes, keep_dims=False, suffix="reduce")
    if p.coeff != 1:
        out = ctx.op(Multiply(), out, f32(ctx, p.coeff, suffix="coeff"), suffix="coeff_mul")
    return [out]


@extractor("caffe", "ArgMax", produces=[TopK, Convert, Concat, Reshape])
def extract_argmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``top_k``, ``out_max_val``, with or without ``axis``."""
    p = ctx.attrs.required("argmax_param")
    data = ctx.input(0)
    if p.is_set("axis"):
        axis = normalize_axis(ctx, p.axis, require_rank(ctx))
    else:
        # Without an axis Caffe ranks each item's flattened values: output N x 1(2) x top_k.
        data = ctx.op(
            Reshape(special_zero=True), data, i64(ctx, [0, 1, -1], suffix="flat_shape"), suffix="flatten"
        )
        axis = 2
    topk = ctx.add(
        TopK(axis=axis, mode="max", sort="value", index_element_type=ElementType.i32),
        [data, i64(ctx, p.top_k, suffix="k")],
        suffix="topk",
    )
    indices = ctx.op(Convert(destination_type=ElementType.f32), topk.out_port(1), suffix="indices")
    if not p.out_max_val:
        return [indices]
    if p.is_set("axis"):
        return [topk.out_port(0)]
    return [ctx.op(Concat(axis=1), indices, topk.out_port(0), suffix="concat")]


@extractor("caffe", "ShuffleChannel", produces=[ShuffleChannels])
def extract_shuffle_channel(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ShuffleNet's channel shuffle."""
    group = ctx.attrs.int("shuffle_channel_param.group")
    return [ctx.op(ShuffleChannels(axis=1, group=group), ctx.input(0), suffix="shuffle")]


@extractor("caffe", "Interp", produces=[Interpolate])
def extract_interp(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Bilinear resize with aligned corners (PSPNet/DeepLab's Interp)."""
    p = ctx.attrs.required("interp_param")
    shape = ctx.input_shape(0)
    if shape is None or len(shape) != 4 or shape[2] is None or shape[3] is None:
        raise ConversionError(f"{ctx.where()}: Interp needs a static 4-D input, got {shape}")
    if p.pad_beg or p.pad_end:
        raise ConversionError(f"{ctx.where()}: Interp pad_beg/pad_end are not supported")
    height, width = int(shape[2]), int(shape[3])
    if p.is_set("height") and p.is_set("width"):
        size = [p.height, p.width]
    elif p.is_set("zoom_factor") and p.is_set("shrink_factor"):
        shrunk = [(height - 1) // p.shrink_factor + 1, (width - 1) // p.shrink_factor + 1]
        size = [d + (d - 1) * (p.zoom_factor - 1) for d in shrunk]
    elif p.is_set("shrink_factor"):
        size = [(height - 1) // p.shrink_factor + 1, (width - 1) // p.shrink_factor + 1]
    elif p.is_set("zoom_factor"):
        size = [height + (height - 1) * (p.zoom_factor - 1), width + (width - 1) * (p.zoom_factor - 1)]
    elif len(ctx.attrs.strs("bottom")) > 1:
        other = ctx.input_shape(1)
        if other is None or other[2] is None or other[3] is None:
            raise ConversionError(f"{ctx.where()}: the reference input needs a static shape")
        size = [int(other[2]), int(other[3])]
    else:
        raise ConversionError(f"{ctx.where()}: give height/width, zoom_factor or shrink_factor")
    return [_resize_hw(ctx, "linear", "align_corners", "sizes", i64(ctx, size, suffix="sizes"), suffix="interp")]


@extractor("caffe", "Upsample", produces=[Interpolate])
def extract_upsample(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Nearest-neighbour upsampling by an integer factor (YOLO forks)."""
    scale = ctx.attrs.float("upsample_param.scale")
    scales = f32(ctx, [scale, scale], suffix="scales")
    return [_resize_hw(ctx, "nearest", "asymmetric", "scales", scales, suffix="upsample", nearest_mode="floor")]


def _resize_hw(
    ctx: ExtractContext,
    mode: str,
    transform: str,
    calculation: str,
    target: OutPort,
    suffix: str,
    nearest_mode: str = "round_prefer_floor",
) -> OutPort:
    """Input 0 (NCHW) resized over H and W to ``target`` (``calculation``: "sizes" or "scales")."""
    op = Interpolate(
        mode=mode,
        shape_calculation_mode=calculation,
        coordinate_transformation_mode=transform,
        pads_begin=[0, 0, 0, 0],
        pads_end=[0, 0, 0, 0],
        nearest_mode=nearest_mode,
    )
    return ctx.op(op, ctx.input(0), target, i64(ctx, [2, 3], suffix="axes"), suffix=suffix)

