"""StableHLO ops that move data without computing: reshapes, broadcasts, transposes,
concatenation, slices, padding, iota, and the dimension sizes symbolic shapes are built from."""

from __future__ import annotations

import numpy as np
from irconv import ConversionError, ExtractContext
from irconv.frontend import extractor, i64, numpy_dtype
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Broadcast,
    Concat,
    Convert,
    Gather,
    Pad,
    Range,
    Reshape,
    ShapeOf,
    Slice,
    Transpose,
    Unsqueeze,
)

from irconv_jax.program import HloOp


def _result_shape(ctx: ExtractContext) -> tuple[int | None, ...]:
    return ctx.source_as(HloOp).results[0].shape


def _static_result_shape(ctx: ExtractContext) -> list[int]:
    shape = _result_shape(ctx)
    static = [d for d in shape if d is not None]
    if len(static) != len(shape):
        raise ConversionError(f"{ctx.where()}: a static op with a dynamic result shape {shape}")
    return static


def _as_i64(ctx: ExtractContext, port: OutPort, suffix: str) -> OutPort:
    if port.data.element_type is ElementType.i64:
        return port
    return ctx.op(Convert(destination_type=ElementType.i64), port, suffix=suffix)


@extractor("jax", "stablehlo.reshape", produces=[Reshape])
def extract_reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Reshape(), ctx.input(0), i64(ctx, _static_result_shape(ctx), "shape"))]


@extractor("jax", "stablehlo.dynamic_reshape", produces=[Reshape, Convert])
def extract_dynamic_reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Reshape(), ctx.input(0), _as_i64(ctx, ctx.input(1), "shape"))]


def _broadcast_in_dim(ctx: ExtractContext, target: OutPort) -> OutPort:
    """Operand axis i placed at result axis ``broadcast_dimensions[i]``, then broadcast
    (numpy rules: size-1 axes stretch) to ``target``."""
    dims = ctx.attrs.ints("broadcast_dimensions", [])
    rank = len(_result_shape(ctx))
    x = ctx.input(0)
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    if order != list(range(len(dims))):
        x = ctx.op(Transpose(), x, i64(ctx, order, "perm"), suffix="transpose")
    missing = [axis for axis in range(rank) if axis not in dims]
    if missing:
        x = ctx.op(Unsqueeze(), x, i64(ctx, missing, "axes"), suffix="unsqueeze")
    return ctx.op(Broadcast(), x, target)


@extractor("jax", "stablehlo.broadcast_in_dim", produces=[Transpose, Unsqueeze, Broadcast])
def extract_broadcast_in_dim(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_broadcast_in_dim(ctx, i64(ctx, _static_result_shape(ctx), "shape"))]


@extractor("jax", "stablehlo.dynamic_broadcast_in_dim", produces=[Transpose, Unsqueeze, Broadcast, Convert])
def extract_dynamic_broadcast_in_dim(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_broadcast_in_dim(ctx, _as_i64(ctx, ctx.input(1), "shape"))]


@extractor("jax", "stablehlo.transpose", produces=[Transpose])
def extract_transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Transpose(), ctx.input(0), i64(ctx, ctx.attrs.ints("permutation"), "perm"))]


@extractor("jax", "stablehlo.concatenate", produces=[Concat])
def extract_concatenate(node: Node, ctx: ExtractContext) -> list[OutPort]:
    inputs = [ctx.input(i) for i in range(len(node.in_ports()))]
    return [ctx.op(Concat(axis=ctx.attrs.int("dimension")), *inputs)]


@extractor("jax", "stablehlo.slice", produces=[Slice])
def extract_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    start = ctx.attrs.ints("start_indices")
    stop = ctx.attrs.ints("limit_indices", length=len(start))
    step = ctx.attrs.ints("strides", [1] * len(start), length=len(start))
    return [ctx.op(Slice(), ctx.input(0), i64(ctx, start, "start"), i64(ctx, stop, "stop"), i64(ctx, step, "step"),
                   i64(ctx, list(range(len(start))), "axes"))]


@extractor("jax", "stablehlo.real_dynamic_slice", produces=[Slice, Convert])
def extract_real_dynamic_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Starts, limits and strides given at run time (a slice along a symbolic dimension)."""
    rank = len(_result_shape(ctx))
    start, stop, step = (_as_i64(ctx, ctx.input(i), name) for i, name in enumerate(("start", "stop", "step"), 1))
    return [ctx.op(Slice(), ctx.input(0), start, stop, step, i64(ctx, list(range(rank)), "axes"))]


@extractor("jax", "stablehlo.pad", produces=[Pad])
def extract_pad(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Edge padding (negative crops) with the padding value; interior padding is refused."""
    low = ctx.attrs.ints("edge_padding_low")
    interior = ctx.attrs.ints("interior_padding", [0] * len(low), length=len(low))
    if any(interior):
        raise ctx.attrs.bad("interior_padding", interior, "only edge padding is supported")
    high = ctx.attrs.ints("edge_padding_high", length=len(low))
    return [ctx.op(Pad(), ctx.input(0), i64(ctx, low, "low"), i64(ctx, high, "high"), ctx.input(1))]


@extractor("jax", "stablehlo.iota", produces=[])
def extract_iota(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A static iota is a constant: the indices along ``iota_dimension``, broadcast."""
    shape = _static_result_shape(ctx)
    axis = ctx.attrs.int("iota_dimension")
    along = np.arange(shape[axis]).reshape([-1 if i == axis else 1 for i in range(len(shape))])
    values = np.broadcast_to(along, shape).astype(numpy_dtype(ctx.source_as(HloOp).results[0].element_type))
    return [ctx.const(np.ascontiguousarray(values))]


@extractor("jax", "stablehlo.get_dimension_size", produces=[ShapeOf, Gather, Convert])
def extract_get_dimension_size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """One dimension of the operand, as the i32 scalar symbolic shapes are computed in."""
    shape = ctx.op(ShapeOf(), ctx.input(0), suffix="shape")
    size = ctx.op(Gather(), shape, i64(ctx, ctx.attrs.int("dimension"), "index"), i64(ctx, 0, "axis"),
                  suffix="gather")
    return [ctx.op(Convert(destination_type=ctx.source_as(HloOp).results[0].element_type), size)]


@extractor("jax", "stablehlo.dynamic_iota", produces=[Convert, Gather, Range, Unsqueeze, Broadcast])
def extract_dynamic_iota(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """An iota of a run-time shape (``jnp.arange`` of a symbolic dimension)."""
    element_type = ctx.source_as(HloOp).results[0].element_type
    shape = _as_i64(ctx, ctx.input(0), "shape")
    return [run_time_iota(ctx, shape, len(_result_shape(ctx)), ctx.attrs.int("iota_dimension"), element_type, "")]


def run_time_iota(ctx: ExtractContext, shape: OutPort, rank: int, axis: int, element_type: ElementType,
                  suffix: str) -> OutPort:
    """Positions along ``axis`` in a tensor of the run-time ``shape`` (i64 vector): a Range
    along the axis, broadcast to the shape."""
    size = ctx.op(Gather(), shape, i64(ctx, axis, f"{suffix}index"), i64(ctx, 0, f"{suffix}axis"),
                  suffix=f"{suffix}size")
    values = ctx.op(Range(output_type=element_type), i64(ctx, 0, f"{suffix}start"), size, i64(ctx, 1, f"{suffix}step"),
                    suffix=f"{suffix}range")
    others = [a for a in range(rank) if a != axis]
    if others:
        values = ctx.op(Unsqueeze(), values, i64(ctx, others, f"{suffix}others"), suffix=f"{suffix}placed")
    return ctx.op(Broadcast(), values, shape, suffix=f"{suffix}iota")


@extractor("jax", "stablehlo.optimization_barrier", produces=[])
def extract_optimization_barrier(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A scheduling fence for XLA (``jax.checkpoint``, ``nn.remat``): its values pass through."""
    return [ctx.input(i) for i in range(len(node.in_ports()))]
