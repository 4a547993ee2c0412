"""Image and detection ops: Resize, Upsample, GridSample, RoiAlign, NonMaxSuppression."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, extractor, f32, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    ConvertLike,
    Divide,
    Floor,
    Gather,
    GridSample,
    Interpolate,
    MatMul,
    Maximum,
    Multiply,
    Range,
    ReduceMax,
    ReduceMin,
    Reshape,
    ROIAlign,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    Unsqueeze,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.nms import IOU_STRICTLY_ABOVE_OPS, SUPPRESS_OPS, BoxEncoding, iou_strictly_above, suppress

from irconv_onnx.extractors._optional import HANDLED, constant, with_defaults

_MODES = {"nearest": "nearest", "linear": "linear_onnx", "cubic": "cubic"}
_COORDINATES = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _interpolate(ctx: ExtractContext, x: OutPort, target: OutPort, by_sizes: bool, axes: OutPort | None,
                 **options: object) -> OutPort:
    op = Interpolate(shape_calculation_mode="sizes" if by_sizes else "scales", **options)
    inputs = [x, target] + ([axes] if axes is not None else [])
    return ctx.op(op, *inputs)


@extractor("onnx", "Upsample", versions=(7, 8), produces=[Interpolate])
def upsample_v7(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The scales are an attribute before opset 9."""
    return _upsample(ctx, f32(ctx, ctx.attrs.floats("scales"), "scales"))


@extractor("onnx", "Upsample", versions=(9, None), produces=[Interpolate])
def upsample_v9(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _upsample(ctx, ctx.input(1))


@extractor("onnx", "Resize", versions=(10, 10), produces=[Interpolate])
def resize_v10(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _upsample(ctx, ctx.input(1))


def _upsample(ctx: ExtractContext, scales: OutPort) -> list[OutPort]:
    """Upsample and Resize-10: asymmetric coordinates, floor for nearest."""
    mode = ctx.attrs.choice("mode", ["nearest", "linear", "bilinear"], "nearest")
    return [_interpolate(ctx, ctx.input(0), scales, False, None,
                         mode="nearest" if mode == "nearest" else "linear_onnx",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor")]


@extractor("onnx", "Resize", versions=(11, None), produces=[Interpolate, Add, Convert, Divide, Floor, Gather, Multiply, ShapeOf, ReduceMax, ReduceMin])
@with_defaults({1: HANDLED, 2: HANDLED, 3: HANDLED})
def _resize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    mode = a.choice("mode", list(_MODES), "nearest")
    coordinates = a.str("coordinate_transformation_mode", "half_pixel")
    if coordinates not in _COORDINATES:
        raise a.bad("coordinate_transformation_mode", coordinates,
                    f"OpenVINO Interpolate supports {', '.join(_COORDINATES)}")
    nearest = a.choice("nearest_mode", list(_NEAREST), "round_prefer_floor")
    if a.int("exclude_outside", 0):
        raise a.bad("exclude_outside", 1, "OpenVINO Interpolate always uses the outside samples")
    policy = a.choice("keep_aspect_ratio_policy", ["stretch", "not_larger", "not_smaller"], "stretch")
    axes_attr = a.ints("axes", None)
    axes = i64(ctx, axes_attr, "axes") if axes_attr else None
    sizes_given = ctx.has_input(3) and not _is_empty(ctx, 3)
    if sizes_given and policy != "stretch":
        target = _aspect_sizes(ctx, policy, axes_attr)
        axes = i64(ctx, axes_attr, "axes") if axes_attr else None
        by_sizes = True
    elif sizes_given:
        target, by_sizes = ctx.input(3), True
    else:
        target, by_sizes = ctx.input(2), False
        if target.data.element_type is not ElementType.f32:
            target = ctx.op(Convert(destination_type=ElementType.f32), target, suffix="scales")
    return [_interpolate(ctx, ctx.input(0), target, by_sizes, axes, mode=_MODES[mode],
                         coordinate_transformation_mode=coordinates, nearest_mode=nearest,
                         antialias=bool(a.int("antialias", 0)), cube_coeff=a.float("cubic_coeff_a", -0.75))]


def _aspect_sizes(ctx: ExtractContext, policy: str, axes: list[int] | None) -> OutPort:
    """One scale for all axes (the smallest or largest sizes/input ratio), sizes rounded from it."""
    dims = shape_of(ctx, ctx.input(0))
    if axes:
        dims = ctx.op(Gather(), dims, i64(ctx, axes), i64(ctx, 0), suffix="axis_dims")
    dims = ctx.op(Convert(destination_type=ElementType.f32), dims, suffix="dims_f32")
    sizes = ctx.op(Convert(destination_type=ElementType.f32), ctx.input(3), suffix="sizes_f32")
    ratios = ctx.op(Divide(), sizes, dims, suffix="ratios")
    pick = ReduceMin if policy == "not_larger" else ReduceMax
    scale = ctx.op(pick(keep_dims=False), ratios, i64(ctx, [0]), suffix="scale")
    scaled = ctx.op(Multiply(), dims, scale, suffix="scaled")
    rounded = ctx.op(Floor(), ctx.op(Add(), scaled, f32(ctx, 0.5), suffix="half_up"),
                     suffix="rounded")
    return ctx.op(Convert(destination_type=ElementType.i64), rounded, suffix="sizes")


def _is_empty(ctx: ExtractContext, idx: int) -> bool:
    value = ctx.input_value(idx)
    if value is not None:
        return value.size == 0
    return ctx.input(idx).data.shape == (0,)


@extractor("onnx", "GridSample", versions=(16, None), produces=[GridSample])
def _grid_sample(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    modes = {"linear": "bilinear", "bilinear": "bilinear", "cubic": "bicubic", "bicubic": "bicubic",
             "nearest": "nearest"}
    mode = a.choice("mode", list(modes), "bilinear")  # "linear" from opset 20: the same
    padding = a.choice("padding_mode", ["zeros", "border", "reflection"], "zeros")
    rank = ctx.input(0).data.shape
    if rank is not None and len(rank) != 4:
        raise a.bad("input", f"rank {len(rank)}", "OpenVINO GridSample handles 4-D (2-D spatial) data only")
    op = GridSample(align_corners=bool(a.int("align_corners", 0)), mode=modes[mode], padding_mode=padding)
    return [ctx.op(op, ctx.input(0), ctx.input(1))]


@extractor("onnx", "RoiAlign", versions=(10, 15), produces=[ROIAlign])
def roi_align_v10(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Before opset 16 the sampling grid is not shifted by half a pixel."""
    return [_roi_align(ctx, "output_half_pixel")]


@extractor("onnx", "RoiAlign", versions=(16, None), produces=[ROIAlign])
def roi_align_v16(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_roi_align(ctx, "half_pixel")]


def _roi_align(ctx: ExtractContext, default_coordinates: str) -> OutPort:
    a = ctx.attrs
    mode = a.choice("mode", ["avg", "max"], "avg")
    coordinates = a.str("coordinate_transformation_mode", default_coordinates)
    aligned = {"output_half_pixel": "asymmetric", "half_pixel": "half_pixel_for_nn"}
    if coordinates not in aligned:
        raise a.bad("coordinate_transformation_mode", coordinates, "expected half_pixel or output_half_pixel")
    op = ROIAlign(pooled_h=a.int("output_height", 1), pooled_w=a.int("output_width", 1),
                  sampling_ratio=a.int("sampling_ratio", 0), spatial_scale=a.float("spatial_scale", 1.0),
                  mode=mode, aligned_mode=aligned[coordinates])
    return ctx.op(op, ctx.input(0), ctx.input(1), ctx.input(2))


@extractor("onnx", "NonMaxSuppression", versions=(10, None), produces=[*SUPPRESS_OPS, *IOU_STRICTLY_ABOVE_OPS])
@with_defaults({
            2: constant([0], np.int64),  # no boxes per class
            3: constant([0.0], np.float32),
            4: constant([-np.finfo(np.float32).max], np.float32),  # no score threshold
        })
def _nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ONNX suppresses a box when IoU > threshold, OpenVINO when IoU >= threshold."""
    encoding = BoxEncoding.CENTER if ctx.attrs.int("center_point_box", 0) else BoxEncoding.CORNER
    nms = suppress(ctx, ctx.input(0), ctx.input(1), ctx.input(2), iou_strictly_above(ctx, ctx.input(3)),
                   ctx.input(4), encoding=encoding, sort_descending=False, suffix="nms")
    return [nms.out_port(0)]


@extractor("onnx", "AffineGrid", versions=(20, None), produces=[Range, Broadcast, MatMul, Add, Concat, Convert, ConvertLike, Divide, Gather, Maximum, Multiply, Reshape, Slice, Squeeze, Subtract, Unsqueeze])
def _affine_grid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """AffineGrid-20 (2-D and 3-D), sizes known at run time: a grid of normalised pixel
    coordinates [x, y, (z), 1] (x along the last axis) times theta transposed."""
    a = ctx.attrs
    theta = ctx.input(0)
    shape = ctx.input_shape(0)
    if shape is None or shape[1] not in (2, 3):
        raise a.bad("theta", "of unknown shape", "AffineGrid needs theta of shape [N, 2, 3] or [N, 3, 4]")
    spatial = shape[1]
    align = bool(a.int("align_corners", 0))
    size = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="size")
    dims = [ctx.op(Gather(), size, i64(ctx, [2 + k]), i64(ctx, 0), suffix=f"dim{k}") for k in range(spatial)]
    extent = ctx.op(Concat(axis=0), *dims, suffix="extent")
    columns = []
    for k in reversed(range(spatial)):  # x runs along the last dimension
        along = [1] * spatial
        along[k] = -1
        line = ctx.op(Reshape(special_zero=False), _normalised_coordinates(ctx, dims[k], theta, align, k),
                      i64(ctx, along), suffix=f"line{k}")
        columns.append(ctx.op(Broadcast(), line, extent, suffix=f"coord{k}"))
    columns.append(ctx.op(Broadcast(), const_like(ctx, 1, theta, "one"), extent, suffix="ones"))
    last = i64(ctx, [-1])
    base = ctx.op(Concat(axis=-1), *[ctx.op(Unsqueeze(), c, last, suffix=f"col{i}") for i, c in enumerate(columns)],
                  suffix="base")
    points = ctx.op(Reshape(special_zero=False), base, i64(ctx, [1, -1, spatial + 1]), suffix="points")
    grid = ctx.op(MatMul(transpose_b=True), points, theta, suffix="grid")
    batch = ctx.op(Slice(), size, i64(ctx, [0]), i64(ctx, [1]), i64(ctx, [1]), i64(ctx, [0]), suffix="batch")
    target = ctx.op(Concat(axis=0), batch, extent, i64(ctx, [spatial]), suffix="grid_shape")
    return [ctx.op(Reshape(special_zero=False), grid, target)]


def _normalised_coordinates(ctx: ExtractContext, dim: OutPort, like: OutPort, align: bool, k: int) -> OutPort:
    """Pixel i of ``dim`` in [-1, 1]: -1 + 2i / (dim - 1) at the corners, else (2i + 1) / dim - 1."""
    et = like.data.element_type if like.data.element_type.is_float else ElementType.f32
    n = ctx.op(Squeeze(), dim, i64(ctx, [0]), suffix=f"n{k}")
    index = ctx.op(Range(output_type=et), i64(ctx, 0), n, i64(ctx, 1), suffix=f"index{k}")
    n_float = ctx.op(ConvertLike(), n, index, suffix=f"n{k}_float")
    one, two = const_like(ctx, 1, index, "one"), const_like(ctx, 2, index, "two")
    if align:
        span = ctx.op(Maximum(), ctx.op(Subtract(), n_float, one, suffix=f"last{k}"), one, suffix=f"span{k}")
        scaled = ctx.op(Divide(), ctx.op(Multiply(), index, two, suffix=f"twice{k}"), span, suffix=f"scaled{k}")
    else:
        centre = ctx.op(Add(), ctx.op(Multiply(), index, two, suffix=f"twice{k}"), one, suffix=f"centre{k}")
        scaled = ctx.op(Divide(), centre, n_float, suffix=f"scaled{k}")
    return ctx.op(Subtract(), scaled, one, suffix=f"normalised{k}")
