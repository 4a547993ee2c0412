"""Softmax and log-softmax: on one axis, and over every axis from one on (the input seen as
2-D, split at that axis: ONNX Softmax/LogSoftmax before opset 13, MXNet's SoftmaxOutput and
SoftmaxActivation).

OpenVINO's SoftMax and LogSoftmax normalise along a single axis, so the flattened form
subtracts the maximum and sums the exponentials over the trailing axes itself; this needs
neither the shape nor, for a negative axis, the rank.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irconv_opset import Divide, Exp, Log, LogSoftmax, Range, ReduceMax, ReduceSum, ShapeOf, SoftMax, Squeeze, Subtract
from irconv_opset.build import axes_from

if TYPE_CHECKING:
    from irconv import ExtractContext, OutPort

#: What :func:`softmax` builds.
SOFTMAX_OPS = (SoftMax, LogSoftmax)
#: What :func:`flattened_softmax` builds (the trailing axes computed when the rank is unknown).
FLATTENED_SOFTMAX_OPS = (*SOFTMAX_OPS, ReduceMax, Subtract, Exp, ReduceSum, Log, Divide, ShapeOf, Squeeze, Range)


def softmax(ctx: ExtractContext, x: OutPort, axis: int, *, log: bool = False, suffix: str = "softmax") -> OutPort:
    """softmax(x) (``log``: log-softmax) along ``axis`` (negative counts from the end)."""
    return ctx.op(LogSoftmax(axis=axis) if log else SoftMax(axis=axis), x, suffix=suffix)


def flattened_softmax(ctx: ExtractContext, x: OutPort, axis: int, *, log: bool = False) -> OutPort:
    """softmax(x) (``log``: log-softmax) normalised jointly over axes ``axis``..rank-1, the
    output keeping ``x``'s shape. One SoftMax when those axes are only the last one."""
    rank = None if x.data.shape is None else len(x.data.shape)
    if axis == -1 or (rank is not None and axis == rank - 1):
        return softmax(ctx, x, axis, log=log)
    axes = axes_from(ctx, x, axis)
    peak = ctx.op(ReduceMax(keep_dims=True), x, axes, suffix="max")
    shifted = ctx.op(Subtract(), x, peak, suffix="shifted")
    exp = ctx.op(Exp(), shifted, suffix="exp")
    total = ctx.op(ReduceSum(keep_dims=True), exp, axes, suffix="sum")
    if log:
        return ctx.op(Subtract(), shifted, ctx.op(Log(), total, suffix="log"))
    return ctx.op(Divide(), exp, total)
