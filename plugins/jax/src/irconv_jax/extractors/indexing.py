"""StableHLO's indexing ops: gather (jnp.take, ``table[ids]``), dynamic_slice and reverse.
StableHLO clamps start indices into the operand, so the lowerings clamp them too."""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv import ConversionError, ExtractContext
from irconv.frontend import extractor, i64, numpy_dtype
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Gather,
    GatherND,
    Maximum,
    Minimum,
    Range,
    ScatterNDUpdate,
    ShapeOf,
    Slice,
    Subtract,
    Transpose,
    Unsqueeze,
)
from irconv_opset.build import shape_of

from irconv_jax.extractors.shape import run_time_iota
from irconv_jax.program import HloOp

_CLAMPED_OPS = (ShapeOf, Gather, Subtract, Convert, Maximum, Minimum)


def _clamped(ctx: ExtractContext, starts: OutPort, operand: OutPort, axes: list[int], sizes: list[int] | OutPort,
             suffix: str) -> OutPort:
    """``starts`` (indices of ``axes`` along the last axis) limited to ``[0, dim - size]``
    (``sizes`` known, or an i64 vector computed at run time)."""
    dims = ctx.op(Gather(), shape_of(ctx, operand, f"{suffix}_shape"), i64(ctx, axes, f"{suffix}_axes"),
                  i64(ctx, 0, f"{suffix}_axis"), suffix=f"{suffix}_dims")
    extent = sizes if isinstance(sizes, OutPort) else i64(ctx, sizes, f"{suffix}_sizes")
    highest = ctx.op(Subtract(), dims, extent, suffix=f"{suffix}_highest")
    if starts.data.element_type is not ElementType.i64:
        highest = ctx.op(Convert(destination_type=starts.data.element_type), highest, suffix=f"{suffix}_typed")
    low = ctx.op(Maximum(), starts, ctx.const(_zero_like(starts), suffix=f"{suffix}_zero"), suffix=f"{suffix}_low")
    return ctx.op(Minimum(), low, highest, suffix=suffix)


def _zero_like(port: OutPort) -> np.ndarray:
    return np.zeros((), numpy_dtype(port.data.element_type))


def _permuted(ctx: ExtractContext, port: OutPort, order: list[int], suffix: str) -> OutPort:
    if order == list(range(len(order))):
        return port
    return ctx.op(Transpose(), port, i64(ctx, order, f"{suffix}_perm"), suffix=suffix)


@extractor("jax", "stablehlo.gather", produces=[Transpose, Unsqueeze, GatherND, *_CLAMPED_OPS])
def extract_gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A gather of whole slices at points of some axes (the collapsed ones): GatherND over
    the operand with those axes first, its result transposed into StableHLO's order."""
    numbers: dict[str, Any] = ctx.attrs.required("dimension_numbers")
    shape = ctx.input_shape(0)
    indices_rank = ctx.input_rank(1)
    if shape is None or indices_rank is None:
        raise ConversionError(f"{ctx.where()}: gather needs operands of known rank")
    sizes = ctx.attrs.ints("slice_sizes", length=len(shape))
    indexed = list(numbers["start_index_map"])
    offset_dims = list(numbers["offset_dims"])
    rest = [a for a in range(len(shape)) if a not in indexed]
    if (sorted(numbers["collapsed_slice_dims"]) != sorted(indexed) or numbers.get("operand_batching_dims")
            or any(sizes[a] != 1 for a in indexed) or any(sizes[a] != shape[a] for a in rest)):
        raise ConversionError(f"{ctx.where()}: only gathers of whole slices at points of the indexed axes are "
                              f"supported (start_index_map {indexed}, slice_sizes {sizes}, operand {shape})")
    operand = _permuted(ctx, ctx.input(0), indexed + rest, "operand")
    indices = ctx.input(1)
    vector_dim = numbers["index_vector_dim"]
    if vector_dim == indices_rank:
        indices = ctx.op(Unsqueeze(), indices, i64(ctx, [indices_rank], "vector_axis"), suffix="indices")
        indices_rank += 1
    indices = _permuted(ctx, indices, [a for a in range(indices_rank) if a != vector_dim] + [vector_dim],
                        "indices_last")
    indices = _clamped(ctx, indices, ctx.input(0), indexed, [1] * len(indexed), "clamped")
    gathered = ctx.op(GatherND(), operand, indices, suffix="gather")
    batch = indices_rank - 1
    out_rank = batch + len(offset_dims)
    batch_positions = [p for p in range(out_rank) if p not in offset_dims]
    order = [batch + offset_dims.index(p) if p in offset_dims else batch_positions.index(p) for p in range(out_rank)]
    return [_permuted(ctx, gathered, order, "output")]


def _starts(ctx: ExtractContext, first: int, sizes: list[int] | OutPort, rank: int) -> OutPort:
    """The scalar start indices from input ``first`` on, as one i64 vector clamped so that a
    block of ``sizes`` fits in input 0 (of rank ``rank``)."""
    starts = [ctx.op(Unsqueeze(), ctx.input(first + a), i64(ctx, 0, f"start{a}_axis"), suffix=f"start{a}")
              for a in range(rank)]
    begin = ctx.op(Concat(axis=0), *starts, suffix="starts")
    if begin.data.element_type is not ElementType.i64:
        begin = ctx.op(Convert(destination_type=ElementType.i64), begin, suffix="starts_i64")
    return _clamped(ctx, begin, ctx.input(0), list(range(rank)), sizes, "begin")


_STARTS_OPS = (Unsqueeze, Concat, Convert, *_CLAMPED_OPS)


@extractor("jax", "stablehlo.dynamic_update_slice",
           produces=[*_STARTS_OPS, Add, ScatterNDUpdate, Range, Broadcast])
def extract_dynamic_update_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The update written into the operand at the (clamped) starts: ScatterNDUpdate at every
    position of the update, offset by the starts. The positions are a constant grid for an
    update of static shape, built at run time otherwise (a scan's slice of a symbolic batch)."""
    shape = ctx.input_shape(1)
    if shape is None:
        raise ConversionError(f"{ctx.where()}: dynamic_update_slice needs an update of known rank")
    rank = len(shape)
    if None not in shape:
        sizes = [int(d) for d in shape if d is not None]
        begin = _starts(ctx, 2, sizes, rank)
        grid = ctx.const(np.ascontiguousarray(np.moveaxis(np.indices(sizes, np.int64), 0, -1)), suffix="grid")
    else:
        extent = shape_of(ctx, ctx.input(1), "update_shape")
        begin = _starts(ctx, 2, extent, rank)
        last = i64(ctx, [rank], "position_axis")
        positions = [ctx.op(Unsqueeze(), run_time_iota(ctx, extent, rank, axis, ElementType.i64, f"grid{axis}_"), last,
                            suffix=f"grid{axis}") for axis in range(rank)]
        grid = ctx.op(Concat(axis=rank), *positions, suffix="grid")
    indices = ctx.op(Add(), grid, begin, suffix="indices")
    return [ctx.op(ScatterNDUpdate(), ctx.input(0), indices, ctx.input(1))]


@extractor("jax", "stablehlo.dynamic_slice", produces=[*_STARTS_OPS, Add, Slice])
def extract_dynamic_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``slice_sizes`` from start indices given as scalars, clamped into the operand."""
    sizes = ctx.attrs.ints("slice_sizes")
    rank = len(sizes)
    begin = _starts(ctx, 1, sizes, rank)
    end = ctx.op(Add(), begin, i64(ctx, sizes, "sizes"), suffix="end")
    return [ctx.op(Slice(), ctx.input(0), begin, end, i64(ctx, [1] * rank, "steps"),
                   i64(ctx, list(range(rank)), "axes"))]


@extractor("jax", "stablehlo.reverse", produces=[Slice])
def extract_reverse(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = ctx.attrs.ints("dimensions")
    lowest = -(2**63)
    return [ctx.op(Slice(), ctx.input(0), i64(ctx, [-1] * len(axes), "start"), i64(ctx, [lowest] * len(axes), "stop"),
                   i64(ctx, [-1] * len(axes), "step"), i64(ctx, axes, "axes"))]


# A scatter's update region: what it does with the old value and the update.
_SCATTER_REDUCTIONS = {(): "none", ("stablehlo.add",): "sum", ("stablehlo.multiply",): "prod",
                       ("stablehlo.maximum",): "max", ("stablehlo.minimum",): "min"}


@extractor("jax", "stablehlo.scatter", produces=[Transpose, Unsqueeze, Add, Convert, ScatterNDUpdate])
def extract_scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``x.at[...].set/add/multiply/max/min``: whole slices written at points of the leading
    axes (``x.at[ids]``), or one block at a start (``x.at[1:3, 2:5]``), as ScatterNDUpdate.
    StableHLO drops an update that falls outside the operand; OpenVINO needs indices inside it."""
    numbers: dict[str, Any] = ctx.attrs.required("scatter_dimension_numbers")
    body = ctx.source_as(HloOp).body
    shape, update_shape, indices_rank = ctx.input_shape(0), ctx.input_shape(2), ctx.input_rank(1)
    if len(node.in_ports()) != 3 or body not in _SCATTER_REDUCTIONS or shape is None or update_shape is None \
            or indices_rank is None or numbers.get("input_batching_dims"):
        raise ConversionError(f"{ctx.where()}: only a scatter of one tensor that sets, adds, multiplies or keeps "
                              "the max or min of known shapes is supported")
    reduction = _SCATTER_REDUCTIONS[body]
    targets = list(numbers["scattered_dims_to_operand_dims"])
    inserted = list(numbers.get("inserted_window_dims", []))
    window = list(numbers["update_window_dims"])
    vector_dim = numbers.get("index_vector_dim", indices_rank)
    indices = ctx.input(1)
    if vector_dim == indices_rank:
        indices = ctx.op(Unsqueeze(), indices, i64(ctx, [indices_rank], "vector_axis"), suffix="indices")
        indices_rank += 1
    indices = _permuted(ctx, indices, [a for a in range(indices_rank) if a != vector_dim] + [vector_dim],
                        "indices_last")
    leading = list(range(len(targets)))
    batch_rank = len(update_shape) - len(window)
    if inserted == targets == leading and window == list(range(batch_rank, len(update_shape))) \
            and list(update_shape[batch_rank:]) == list(shape[len(targets):]):
        return [ctx.op(ScatterNDUpdate(reduction=reduction), ctx.input(0), indices, ctx.input(2))]
    if not inserted and indices_rank == 1 and targets == list(range(len(shape))) and None not in update_shape \
            and window == list(range(len(update_shape))):
        sizes = [int(d) for d in update_shape if d is not None]
        grid = np.moveaxis(np.indices(sizes, np.int64), 0, -1)
        starts = indices if indices.data.element_type is ElementType.i64 else ctx.op(
            Convert(destination_type=ElementType.i64), indices, suffix="starts")
        block = ctx.op(Add(), ctx.const(np.ascontiguousarray(grid), suffix="grid"), starts, suffix="block")
        return [ctx.op(ScatterNDUpdate(reduction=reduction), ctx.input(0), block, ctx.input(2))]
    raise ConversionError(f"{ctx.where()}: a scatter is supported as whole slices at points of the leading axes "
                          f"or one block at a start (scattered_dims_to_operand_dims {targets}, inserted_window_dims "
                          f"{inserted}, update_window_dims {window})")
