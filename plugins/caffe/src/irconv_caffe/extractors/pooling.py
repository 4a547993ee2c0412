"""Pooling (with Caffe's output-size rounding) and global pooling."""

from __future__ import annotations

from collections.abc import Sequence

from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.pipeline.context import ExtractContext
from irconv_caffe.extractors._common import caffe, const_i64, input_rank, layer_of
from irconv_caffe.proto import caffe_pb2 as pb
from irconv_opset import AvgPool, MaxPool, ReduceMax, ReduceMean


def _pair(p: pb.PoolingParameter, plain: str, h: str, w: str, default: int) -> list[int]:
    if p.HasField(h) or p.HasField(w):
        return [getattr(p, h), getattr(p, w)]
    value = getattr(p, plain) if p.HasField(plain) else default
    return [value, value]


@caffe("Pooling", "MaxPool, AvgPool, ReduceMax, ReduceMean")
def extract_pooling(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    layer = layer_of(node)
    p = layer.param.pooling_param
    rank = input_rank(ctx)
    if p.pool == pb.PoolingParameter.STOCHASTIC:
        raise ConversionError(f"{layer.describe()}: STOCHASTIC pooling is not supported")
    if p.global_pooling:
        axes = const_i64(ctx, list(range(2, rank)), suffix="axes")
        reduce = ReduceMax(keep_dims=True) if p.pool == pb.PoolingParameter.MAX else ReduceMean(keep_dims=True)
        return [ctx.op(reduce, ctx.input(0), axes, suffix="global_pool")]
    if rank != 4:
        raise ConversionError(f"{layer.describe()}: Caffe pooling needs a 4-D input, got rank {rank}")
    kernel = _pair(p, "kernel_size", "kernel_h", "kernel_w", 0)
    if min(kernel) <= 0:
        raise ConversionError(f"{layer.describe()}: the pooling kernel size is missing")
    strides = _pair(p, "stride", "stride_h", "stride_w", 1)
    pads = _pair(p, "pad", "pad_h", "pad_w", 0)
    # Caffe rounds output sizes up, then drops a last window that would start inside
    # the end padding: exactly OpenVINO's ceil_torch. ceil_mode: false (OpenCV's
    # field) rounds down.
    rounding = "ceil_torch" if p.ceil_mode else "floor"
    attrs = dict(strides=strides, pads_begin=pads, pads_end=pads, kernel=kernel, rounding_type=rounding)
    if p.pool == pb.PoolingParameter.MAX:
        return [ctx.op(MaxPool(dilations=[1, 1], **attrs), ctx.input(0), suffix="pool")]
    # Caffe averages over the window clipped to the padded input: padding counts.
    return [ctx.op(AvgPool(exclude_pad=False, **attrs), ctx.input(0), suffix="pool")]


EXTRACTORS = (extract_pooling,)
