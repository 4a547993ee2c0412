"""Attention and resampling: scaled_dot_product_attention, upsample_* (interpolate)."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, require_rank, typed
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Convert, Interpolate, ScaledDotProductAttention

from irconv_torch.extractors._args import TORCH_2_5, cast, optional, out_type, tensor


@extractor("torch", "aten.scaled_dot_product_attention.default", versions=TORCH_2_5,
           produces=[ScaledDotProductAttention, Convert])
def scaled_dot_product_attention(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ScaledDotProductAttention-13; a boolean mask means "attend where True" in both."""
    if ctx.attrs.float("dropout_p", 0.0) != 0.0:
        ctx.note(f"{ctx.where()}: attention dropout is left out (inference)")
    if ctx.attrs.bool("enable_gqa", False):
        raise ctx.attrs.bad("enable_gqa", True, "grouped-query attention inside the op; repeat the keys and "
                            "values in the model (as transformers' repeat_kv does)")
    element_type = out_type(ctx)
    query, key, value = (cast(ctx, tensor(ctx, n), element_type, suffix=n) for n in ("query", "key", "value"))
    inputs: list[OutPort | None] = [query, key, value]
    mask = optional(ctx, "attn_mask")
    scale = ctx.attrs.get("scale")
    if mask is not None:
        boolean = mask.data.element_type is ElementType.boolean
        inputs.append(mask if boolean else cast(ctx, mask, element_type, suffix="mask"))
    elif scale is not None:
        inputs.append(typed(ctx, 0.0, element_type, suffix="no_mask"))
    if scale is not None:
        inputs.append(typed(ctx, float(scale), element_type, suffix="scale"))
    op = ScaledDotProductAttention(causal=ctx.attrs.bool("is_causal", False))
    return [ctx.add(op, inputs, suffix="op").out_port(0)]


def _resize(ctx: ExtractContext, mode: str, align_corners: bool | None) -> list[OutPort]:
    """Interpolate-11 over the spatial axes, by ``output_size`` or ``scale_factors``."""
    rank = require_rank(ctx, 0)
    axes = list(range(2, rank))
    sizes = ctx.attrs.get("output_size")
    scales = ctx.attrs.get("scale_factors")
    if sizes is None and scales is None:  # the non-.vec overloads: per-axis scales_h/scales_w
        raise ctx.attrs.bad("output_size", None, "either output_size or scale_factors is needed")
    if mode == "nearest":
        transform, nearest = "asymmetric", "floor"
    else:
        transform, nearest = ("align_corners" if align_corners else "pytorch_half_pixel"), "round_prefer_floor"
    if sizes is not None:
        calculation, target = "sizes", i64(ctx, [int(s) for s in sizes], suffix="sizes")
    else:
        values = [float(s) for s in scales] * (len(axes) if len(scales) == 1 else 1)
        calculation, target = "scales", typed(ctx, values, ElementType.f32, suffix="scales")
    op = Interpolate(mode=mode, shape_calculation_mode=calculation, coordinate_transformation_mode=transform,
                     nearest_mode=nearest, cube_coeff=-0.75)
    data = cast(ctx, tensor(ctx, "input"), out_type(ctx))
    return [ctx.op(op, data, target, i64(ctx, axes, suffix="axes"), suffix="op")]


def upsample_nearest(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _resize(ctx, "nearest", None)


def upsample_linear(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _resize(ctx, "linear_onnx", ctx.attrs.bool("align_corners"))


@extractor("torch", "aten.upsample_bicubic2d.vec", versions=TORCH_2_5, produces=[Interpolate, Convert])
def upsample_bicubic(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _resize(ctx, "cubic", ctx.attrs.bool("align_corners"))


upsample_nearests = aliases("torch", ["aten.upsample_nearest1d.vec", "aten.upsample_nearest2d.vec",
                                      "aten.upsample_nearest3d.vec"], upsample_nearest, versions=TORCH_2_5,
                            produces=[Interpolate, Convert])
upsample_linears = aliases("torch", ["aten.upsample_linear1d.vec", "aten.upsample_bilinear2d.vec",
                                     "aten.upsample_trilinear3d.vec"], upsample_linear, versions=TORCH_2_5,
                           produces=[Interpolate, Convert])
