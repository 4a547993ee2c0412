"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector, ZeroPadding, Cropping, UpSampling."""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, f32, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import Interpolate, Pad, Reshape, Slice, Tile, Transpose, Unsqueeze

from irconv_tf.keras_reader.extractors._base import channels_last, spatial_rank


@extractor("keras", "Flatten", produces=[Reshape, Transpose])
def _flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """[N, ...] -> [N, -1]; channels_first data is first moved to channels-last order, as Keras does."""
    rank = require_rank(ctx, 0)
    x = ctx.input(0)
    if not channels_last(ctx) and rank > 2:
        x = ctx.op(Transpose(), x, i64(ctx, [0, *range(2, rank), 1], "perm"), suffix="to_channels_last")
    return [ctx.op(Reshape(special_zero=True), x, i64(ctx, [0, -1], "shape"), suffix="flatten")]


@extractor("keras", "Reshape", produces=[Reshape])
def _reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    target = ctx.attrs.ints("target_shape")
    if any(d == 0 for d in target):
        raise ctx.attrs.bad("target_shape", target, "a zero dimension")
    return [ctx.op(Reshape(special_zero=True), ctx.input(0), i64(ctx, [0, *target], "shape"), suffix="reshape")]


@extractor("keras", "Permute", produces=[Transpose])
def _permute(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dims = ctx.attrs.ints("dims")
    if sorted(dims) != list(range(1, len(dims) + 1)):
        raise ctx.attrs.bad("dims", dims, "not a permutation of the axes 1..n")
    return [ctx.op(Transpose(), ctx.input(0), i64(ctx, [0, *dims], "perm"), suffix="permute")]


@extractor("keras", "RepeatVector", produces=[Unsqueeze, Tile])
def _repeat_vector(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """[N, D] -> [N, n, D]."""
    expanded = ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, [1], "axis"), suffix="expand")
    return [ctx.op(Tile(), expanded, i64(ctx, [1, ctx.attrs.int("n"), 1], "repeats"), suffix="repeat")]


def _pairs(ctx: ExtractContext, name: str, spatial: int) -> list[tuple[int, int]]:
    """Keras' padding/cropping argument: n, (a, b) per axis, or ((a0, b0), (a1, b1), ...)."""
    value: Any = ctx.attrs.get(name)
    if _is_int(value) and value >= 0:
        return [(value, value)] * spatial
    if not isinstance(value, (list, tuple)):
        raise ctx.attrs.bad(name, value, "expected a non-negative integer or a list")
    if spatial == 1 and len(value) == 2 and all(_is_int(v) and v >= 0 for v in value):
        return [(value[0], value[1])]
    if len(value) != spatial:
        raise ctx.attrs.bad(name, value, f"expected {spatial} entries")
    pairs = []
    for entry in value:
        if _is_int(entry) and entry >= 0:
            pairs.append((entry, entry))
        elif isinstance(entry, (list, tuple)) and len(entry) == 2 and all(_is_int(v) and v >= 0 for v in entry):
            pairs.append((entry[0], entry[1]))
        else:
            raise ctx.attrs.bad(name, value, "expected pairs of non-negative integers")
    return pairs


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _spatial_axes(ctx: ExtractContext, spatial: int) -> list[int]:
    return list(range(1, 1 + spatial)) if channels_last(ctx) else list(range(2, 2 + spatial))


def _zero_padding(node: Node, ctx: ExtractContext) -> list[OutPort]:
    spatial = spatial_rank(ctx)
    rank = spatial + 2
    begin, end = [0] * rank, [0] * rank
    for axis, (a, b) in zip(_spatial_axes(ctx, spatial), _pairs(ctx, "padding", spatial), strict=True):
        begin[axis], end[axis] = a, b
    pads = i64(ctx, begin, "pads_begin"), i64(ctx, end, "pads_end")
    return [ctx.op(Pad(pad_mode="constant"), ctx.input(0), *pads, f32(ctx, 0.0, "zero"), suffix="pad")]


def _cropping(node: Node, ctx: ExtractContext) -> list[OutPort]:
    spatial = spatial_rank(ctx)
    axes = _spatial_axes(ctx, spatial)
    pairs = _pairs(ctx, "cropping", spatial)
    start = [a for a, _ in pairs]
    stop = [-b if b else np.iinfo(np.int64).max for _, b in pairs]
    args = i64(ctx, start, "start"), i64(ctx, stop, "stop"), i64(ctx, [1] * spatial, "step"), i64(ctx, axes, "axes")
    return [ctx.op(Slice(), ctx.input(0), *args, suffix="crop")]


def _upsampling(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Nearest upsampling by an integer factor repeats each element: asymmetric + floor;
    bilinear is tf.image.resize's (half-pixel centres)."""
    spatial = spatial_rank(ctx)
    size = ctx.attrs.get("size", 2)
    factors = [int(size)] * spatial if isinstance(size, int) else ctx.attrs.ints("size", length=spatial)
    mode = ctx.attrs.choice("interpolation", ["nearest", "bilinear"], "nearest") if spatial == 2 else "nearest"
    rank = spatial + 2
    op = Interpolate(
        mode="nearest" if mode == "nearest" else "linear",
        shape_calculation_mode="scales",
        coordinate_transformation_mode="asymmetric" if mode == "nearest" else "half_pixel",
        nearest_mode="floor",
        antialias=False,
        pads_begin=(0,) * rank,
        pads_end=(0,) * rank,
    )
    scales = f32(ctx, np.asarray(factors, np.float32), "scales")
    return [ctx.op(op, ctx.input(0), scales, i64(ctx, _spatial_axes(ctx, spatial), "axes"), suffix="upsample")]


PADDING = aliases("keras", [f"ZeroPadding{n}D" for n in (1, 2, 3)], _zero_padding, produces=[Pad])
CROPPING = aliases("keras", [f"Cropping{n}D" for n in (1, 2, 3)], _cropping, produces=[Slice])
UPSAMPLING = aliases("keras", [f"UpSampling{n}D" for n in (1, 2, 3)], _upsampling, produces=[Interpolate])
