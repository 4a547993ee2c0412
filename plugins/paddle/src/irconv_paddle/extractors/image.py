"""Resizing, padding, pixel shuffle and per-group/instance normalisation of NCHW images."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, f32, i64, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Concat,
    Convert,
    DepthToSpace,
    GroupNormalization,
    Interpolate,
    Pad,
    Reshape,
)
from irconv_opset.lowering.normalization import NORMALIZED_OPS, Affine, normalized

from irconv_paddle.extractors._common import arg, args, known_floats, known_ints, x
from irconv_paddle.names import both, plain_type

_MODES = {"nearest": "nearest", "bilinear": "linear", "linear": "linear", "trilinear": "linear", "bicubic": "cubic"}
_INTERP = [n for kind in ("nearest", "bilinear", "bicubic", "linear", "trilinear")
           for n in (f"{kind}_interp_v2", f"{kind}_interp", f"pd_op.{kind}_interp")]


def _coordinates(ctx: ExtractContext, mode: str) -> tuple[str, str]:
    """(coordinate transformation, nearest rounding) for Paddle's ``align_corners`` and
    ``align_mode`` (0: half pixel, 1: asymmetric; nearest is always asymmetric, flooring)."""
    if ctx.attrs.bool("align_corners", False):
        return "align_corners", "round_prefer_ceil"
    if mode == "nearest":
        return "asymmetric", "floor"
    if mode == "cubic" or ctx.attrs.int("align_mode", 1) == 0:
        return "half_pixel", "floor"
    return "asymmetric", "floor"


def extract_interp(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Over the spatial axes of NCHW/NCDHW data, to sizes (a size tensor, the out_size
    operand, ``out_h``/``out_w``) or by scales (a scale operand or the ``scale`` attribute),
    in Paddle's order of precedence."""
    if ctx.attrs.str("data_format", "NCHW") not in ("NCHW", "NCW", "NCDHW"):
        raise ctx.attrs.bad("data_format", ctx.attrs.str("data_format"), "only channels-first layouts are converted")
    data = x(ctx)
    rank = require_rank(ctx)
    spatial = rank - 2
    method = ctx.attrs.str("interp_method", plain_type(ctx).split("_")[0])
    mode = _MODES.get(method)
    if mode is None:
        raise ctx.attrs.bad("interp_method", method, "not a resize method irconv converts")
    transform, nearest = _coordinates(ctx, mode)
    sizes = args(ctx, 2) or args(ctx, 1)
    scales = [float(s) for s in (ctx.attrs.floats("scale", []) if "scale" in ctx.attrs else [])]
    target: OutPort
    if sizes:
        parts = [ctx.op(Convert(destination_type=ElementType.i64), p, suffix=f"size{i}") for i, p in enumerate(sizes)]
        target = parts[0] if len(parts) == 1 else ctx.op(Concat(axis=0), *[
            ctx.op(Reshape(special_zero=False), p, i64(ctx, [1]), suffix=f"size{i}_1d") for i, p in enumerate(parts)],
            suffix="sizes")
        calculation = "sizes"
    elif arg(ctx, 3) is not None or (scales and all(s > 0 for s in scales)):
        factors = known_floats(ctx, "scale", 3) if arg(ctx, 3) is not None else scales
        factors = factors * spatial if len(factors) == 1 else factors
        target, calculation = f32(ctx, np.asarray(factors, np.float32), "scales"), "scales"
    else:
        names = ("out_d", "out_h", "out_w")[3 - spatial:]
        target, calculation = i64(ctx, [ctx.attrs.int(n) for n in names], "sizes"), "sizes"
    op = Interpolate(mode=mode, shape_calculation_mode=calculation, coordinate_transformation_mode=transform,
                     nearest_mode=nearest, pads_begin=[0] * rank, pads_end=[0] * rank, cube_coeff=-0.75)
    return [ctx.op(op, data, target, i64(ctx, list(range(2, rank)), "axes"))]


INTERP = aliases("paddle", _INTERP, extract_interp, produces=[Interpolate, Convert, Concat, Reshape])


def extract_pad3d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``paddings`` [left, right, top, bottom, front, back] of the last spatial axes (NCDHW),
    ``mode`` constant (``value``), reflect, replicate (edge) or circular."""
    data = x(ctx)
    rank = require_rank(ctx)
    pads = known_ints(ctx, "paddings", 1)
    mode = ctx.attrs.choice("mode", ["constant", "reflect", "replicate", "circular"], "constant")
    if mode == "circular":
        raise ctx.attrs.bad("mode", mode, "circular padding is not converted")
    begin, end = [0] * rank, [0] * rank
    for i in range(len(pads) // 2):  # pair i pads the i-th axis from the end
        begin[rank - 1 - i], end[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
    value = ctx.const(np.asarray(ctx.attrs.float("value", ctx.attrs.float("pad_value", 0.0)),
                                 np.float32), suffix="value")
    from irconv_opset.build import convert_like

    pad_mode = {"replicate": "edge"}.get(mode, mode)
    return [ctx.op(Pad(pad_mode=pad_mode), data, i64(ctx, begin, "begin"), i64(ctx, end, "end"),
                   convert_like(ctx, value, data, "value_type"))]


PAD3D = aliases("paddle", both("pad3d"), extract_pad3d, produces=[Pad, Convert])


def extract_pixel_shuffle(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Channels c*r*r + i*r + j to pixel (h*r + i, w*r + j): DepthToSpace, depth first."""
    return [ctx.op(DepthToSpace(block_size=ctx.attrs.int("upscale_factor"), mode="depth_first"), x(ctx))]


PIXEL_SHUFFLE = aliases("paddle", both("pixel_shuffle"), extract_pixel_shuffle, produces=[DepthToSpace])


def extract_group_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``groups`` channel groups normalised each, then per-channel scale and bias (ones and
    zeros when absent)."""
    data = x(ctx)
    channels = (ctx.input_shape(0) or (None, None))[1]
    scale, bias = arg(ctx, 1), arg(ctx, 2)
    if channels is None and (scale is None or bias is None):
        raise ctx.attrs.bad("groups", ctx.attrs.int("groups"), "a group norm without scale or bias needs the channels")
    ones = np.ones([channels or 1], np.float32)
    scale = scale or ctx.const(ones, suffix="scale")
    bias = bias or ctx.const(np.zeros_like(ones), suffix="bias")
    op = GroupNormalization(num_groups=ctx.attrs.int("groups"), epsilon=ctx.attrs.float("epsilon", 1e-5))
    extra = [ctx.const(np.zeros((0,), np.float32), suffix=f"unused{i}") for i in range(1, node.num_outputs())]
    return [ctx.op(op, data, scale, bias), *extra]


GROUP_NORM = aliases("paddle", both("group_norm"), extract_group_norm, produces=[GroupNormalization])


def extract_instance_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Each channel of each item normalised over its spatial axes, then per-channel scale and bias."""
    data = x(ctx)
    rank = require_rank(ctx)
    affine = Affine(arg(ctx, 1), arg(ctx, 2), axis=1, rank=rank)
    out = normalized(ctx, data, list(range(2, rank)), ctx.attrs.float("epsilon", 1e-5), affine)
    extra = [ctx.const(np.zeros((0,), np.float32), suffix=f"unused{i}") for i in range(1, node.num_outputs())]
    return [out, *extra]


INSTANCE_NORM = aliases("paddle", both("instance_norm"), extract_instance_norm, produces=NORMALIZED_OPS)
