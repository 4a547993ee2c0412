"""Normalisations kept whole: layer, group, batch (inference) and instance norm."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import extractor, require_rank, typed
from irconv.graph import Node, OutPort
from irconv_opset import BatchNormInference, Convert, GroupNormalization
from irconv_opset.lowering.normalization import NORMALIZED_OPS, Affine, normalized

from irconv_torch.extractors._args import TORCH_2_5, cast, empty_outputs, optional, out_type, tensor


def _normalized(ctx: ExtractContext, axes: list[int], channels_at: int | None = None) -> OutPort:
    """The input normalised over ``axes``, then times ``weight`` plus ``bias`` (given in any
    type; laid along axis ``channels_at`` when they are per channel)."""
    element_type = out_type(ctx)
    data = cast(ctx, tensor(ctx, "input"), element_type)
    weight, bias = optional(ctx, "weight"), optional(ctx, "bias")
    affine = Affine(
        scale=None if weight is None else cast(ctx, weight, element_type, suffix="weight_convert"),
        shift=None if bias is None else cast(ctx, bias, element_type, suffix="bias_convert"),
        axis=channels_at,
        rank=None if channels_at is None else require_rank(ctx, 0),
    )
    return normalized(ctx, data, axes, ctx.attrs.float("eps", 1e-5), affine)


def _layer_norm(ctx: ExtractContext) -> OutPort:
    """MVN over the last ``len(normalized_shape)`` axes, then the affine parameters."""
    return _normalized(ctx, list(range(-len(ctx.attrs.ints("normalized_shape")), 0)))


@extractor("torch", "aten.layer_norm.default", versions=TORCH_2_5, produces=[*NORMALIZED_OPS, Convert])
def layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_layer_norm(ctx)]


@extractor("torch", "aten.native_layer_norm.default", versions=TORCH_2_5, produces=[*NORMALIZED_OPS, Convert])
def native_layer_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``layer_norm`` with its saved mean and rstd outputs (unused at inference)."""
    return empty_outputs(ctx, [_layer_norm(ctx)])


@extractor("torch", "aten.group_norm.default", versions=TORCH_2_5, produces=[GroupNormalization, Convert])
def group_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    data = cast(ctx, tensor(ctx, "input"), element_type)
    groups = ctx.attrs.int("num_groups")
    channels = (ctx.input_shape(0) or (None, None))[1]
    if channels is None:
        raise ctx.attrs.bad("num_groups", groups, "the channel count of the input must be known")
    ones = typed(ctx, np.ones(channels), element_type, "ones")
    zeros = typed(ctx, np.zeros(channels), element_type, "zeros")
    weight = optional(ctx, "weight")
    bias = optional(ctx, "bias")
    scale = cast(ctx, weight, element_type, "weight_convert") if weight is not None else ones
    shift = cast(ctx, bias, element_type, "bias_convert") if bias is not None else zeros
    op = GroupNormalization(num_groups=groups, epsilon=ctx.attrs.float("eps", 1e-5))
    return [ctx.op(op, data, scale, shift, suffix="op")]


def _batch_norm(ctx: ExtractContext, data_name: str) -> OutPort:
    element_type = out_type(ctx)
    data = cast(ctx, tensor(ctx, data_name), element_type)
    channels = (ctx.input_shape(0) or (None, None))[1]
    if channels is None:
        raise ctx.attrs.bad("running_mean", None, "the channel count of the input must be known")
    parameters = []
    for name, default in (("weight", 1.0), ("bias", 0.0), ("running_mean", 0.0), ("running_var", 1.0)):
        port = optional(ctx, name)
        parameters.append(typed(ctx, np.full(channels, default), element_type, name) if port is None
                          else cast(ctx, port, element_type, f"{name}_convert"))
    return ctx.op(BatchNormInference(epsilon=ctx.attrs.float("eps", 1e-5)), data, *parameters, suffix="op")


@extractor("torch", "aten._native_batch_norm_legit_no_training.default", versions=TORCH_2_5,
           produces=[BatchNormInference, Convert])
def batch_norm_inference(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """BatchNorm in eval mode; the saved statistics outputs are empty."""
    return empty_outputs(ctx, [_batch_norm(ctx, "input")])


def _batch_statistics_norm(ctx: ExtractContext) -> OutPort:
    """BatchNorm normalising with the statistics of the tensor itself (biased variance over
    every axis but the channels), as torch does with ``training=True``."""
    return _normalized(ctx, [0, *range(2, require_rank(ctx, 0))], channels_at=1)


@extractor("torch", "aten.batch_norm.default", versions=TORCH_2_5,
           produces=[BatchNormInference, *NORMALIZED_OPS, Convert])
def batch_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The converted module is in eval mode, so ``training=True`` is a functional call
    asking for the tensor's own statistics (weight standardisation, a BatchNorm without
    running statistics); the running statistics it would update are not outputs."""
    if ctx.attrs.bool("training", False):
        return [_batch_statistics_norm(ctx)]
    return [_batch_norm(ctx, "input")]


@extractor("torch", "aten._native_batch_norm_legit.no_stats", versions=TORCH_2_5,
           produces=[*NORMALIZED_OPS, Convert])
def batch_norm_of_own_statistics(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """BatchNorm without running statistics (torch.export's form of ``F.batch_norm(x, None,
    None, training=True)``); the saved statistics outputs are empty."""
    return empty_outputs(ctx, [_batch_statistics_norm(ctx)])


@extractor("torch", "aten.instance_norm.default", versions=TORCH_2_5, produces=[*NORMALIZED_OPS, Convert])
def instance_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """MVN over the spatial axes (running statistics are not used at inference unless
    ``use_input_stats`` is false, which is refused)."""
    if not ctx.attrs.bool("use_input_stats", True):
        raise ctx.attrs.bad("use_input_stats", False, "instance norm with tracked running statistics")
    return [_normalized(ctx, list(range(2, require_rank(ctx, 0))), channels_at=1)]
