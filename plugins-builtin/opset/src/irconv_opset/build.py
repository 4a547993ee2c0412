"""Graph pieces every front end builds out of opset ops: shapes, ranks, axes, conversions.

The companion of ``irconv.frontend`` (constants, axes, ranks as numbers), for the pieces
that need OpenVINO ops and so cannot live in the core. Each function adds nodes through the
extraction context, so they are named after the framework node being converted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from irconv.frontend import i64, numpy_dtype
from irconv.types import ElementType

if TYPE_CHECKING:
    from irconv import ExtractContext, OutPort


def shape_of(ctx: ExtractContext, port: OutPort, suffix: str = "shape") -> OutPort:
    """The run-time shape of ``port`` as a 1-D i64 tensor."""
    from irconv_opset import ShapeOf

    return ctx.op(ShapeOf(output_type=ElementType.i64), port, suffix=suffix)


def rank_of(ctx: ExtractContext, port: OutPort) -> OutPort:
    """The run-time rank of ``port`` as a 1-element i64 tensor."""
    from irconv_opset import ShapeOf

    return ctx.op(ShapeOf(), shape_of(ctx, port), suffix="rank")


def axes_from(ctx: ExtractContext, port: OutPort, start: int) -> OutPort:
    """``[start, ..., rank-1]`` (``[start..-1]`` for a negative start) as an i64 tensor;
    a constant when the rank is known, computed otherwise."""
    from irconv_opset import Range, Squeeze

    shape = port.data.shape
    if shape is not None:
        rank = len(shape)
        first = start + rank if start < 0 else start
        return i64(ctx, list(range(first, rank)), suffix="axes")
    if start < 0:
        return i64(ctx, list(range(start, 0)), suffix="axes")
    stop = ctx.op(Squeeze(), rank_of(ctx, port), i64(ctx, [0]), suffix="rank_scalar")
    return ctx.op(Range(output_type=ElementType.i64), i64(ctx, start), stop, i64(ctx, 1), suffix="axes")


def all_axes(ctx: ExtractContext, port: OutPort) -> OutPort:
    """Every axis of ``port``: ``[0, ..., rank-1]``."""
    return axes_from(ctx, port, 0)


def convert_like(ctx: ExtractContext, port: OutPort, like: OutPort, suffix: str = "convert") -> OutPort:
    """``port`` converted to ``like``'s element type (f32 when unknown); no node when the
    types already agree."""
    target = ElementType.from_numpy(numpy_dtype(like.data.element_type))
    if port.data.element_type is target:
        return port
    from irconv_opset import Convert

    return ctx.op(Convert(destination_type=target), port, suffix=suffix)


def along_axis(ctx: ExtractContext, port: OutPort, axis: int, rank: int, suffix: str) -> OutPort:
    """A 1-D per-channel tensor shaped ``[1, .., C, .., 1]`` to broadcast against a rank-``rank``
    tensor at ``axis``: folded when the values are known, a Reshape otherwise."""
    from irconv_opset import Reshape

    shape = [1] * rank
    shape[axis] = -1
    value = port.constant(shape_derived=False)
    if value is not None:
        return ctx.const(np.asarray(value).reshape(shape), suffix=suffix)
    return ctx.op(Reshape(special_zero=False), port, i64(ctx, shape), suffix=suffix)


def dims_of(ctx: ExtractContext, port: OutPort, axes: int | list[int], suffix: str) -> OutPort:
    """The sizes of ``port`` along ``axes`` as i64: a scalar for one axis, a 1-D tensor for a
    list; a constant when those dimensions are static, gathered from the run-time shape otherwise."""
    from irconv_opset import Gather

    shape = port.data.shape
    picked = [axes] if isinstance(axes, int) else axes
    if shape is not None and all(shape[a] is not None for a in picked):
        return i64(ctx, shape[axes] if isinstance(axes, int) else [shape[a] for a in axes], suffix)
    return ctx.op(Gather(), shape_of(ctx, port, f"{suffix}_shape"), i64(ctx, axes), i64(ctx, 0), suffix=suffix)
