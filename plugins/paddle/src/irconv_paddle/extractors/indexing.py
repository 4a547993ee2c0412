"""Scatters, triangles, grids of coordinates and sampling: tril_triu, meshgrid, linspace,
scatter, scatter_nd_add, grid_sampler."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, i64, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Gather,
    GreaterEqual,
    GridSample,
    LessEqual,
    Range,
    Reshape,
    ScatterNDUpdate,
    ScatterUpdate,
    Select,
    ShapeOf,
    Slice,
    SliceScatter,
    Unsqueeze,
)
from irconv_opset.build import convert_like, dims_of, shape_of

from irconv_paddle.dtypes import dtype_of_name
from irconv_paddle.extractors._common import arg, args, known_float, known_int, known_ints, x
from irconv_paddle.names import both


def extract_tril_triu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Elements on and below (``lower``) or above the ``diagonal`` of the last two axes kept, the rest zero."""
    data = x(ctx)
    diagonal = ctx.attrs.int("diagonal", 0)
    rows = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), dims_of(ctx, data, -2 % require_rank(ctx), "rows"),
                  i64(ctx, 1), suffix="row_ids")
    cols = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), dims_of(ctx, data, require_rank(ctx) - 1, "cols"),
                  i64(ctx, 1), suffix="col_ids")
    rows = ctx.op(Unsqueeze(), ctx.op(Add(), rows, i64(ctx, diagonal, "diagonal"), suffix="shifted"),
                  i64(ctx, [1], "col_axis"), suffix="row_column")
    lower = ctx.attrs.bool("lower", True) if "lower" in ctx.attrs else ctx.source_op.op_type.endswith("tril")
    keep = ctx.op(LessEqual() if lower else GreaterEqual(), cols, rows, suffix="keep")
    return [ctx.op(Select(), keep, data, const_like(ctx, 0, data, "zero"))]


TRIL_TRIU = aliases("paddle", ["tril_triu", "pd_op.tril", "pd_op.triu"], extract_tril_triu,
                    produces=[Range, Add, Unsqueeze, LessEqual, GreaterEqual, Select, Gather, ShapeOf])


def extract_meshgrid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Each 1-D input broadcast along its own axis of the grid (``ij`` indexing)."""
    values = args(ctx, 0)
    count = len(values)
    sizes = [ctx.op(Reshape(special_zero=False), shape_of(ctx, v, f"shape{i}"), i64(ctx, [1]), suffix=f"size{i}")
             for i, v in enumerate(values)]
    shape = ctx.op(Concat(axis=0), *sizes, suffix="grid_shape")
    outputs = []
    for i, value in enumerate(values):
        axes = [a for a in range(count) if a != i]
        lifted = ctx.op(Unsqueeze(), value, i64(ctx, axes, f"axes{i}"), suffix=f"lift{i}") if axes else value
        outputs.append(ctx.op(Broadcast(mode="numpy"), lifted, shape, suffix=f"grid{i}"))
    return outputs


MESHGRID = aliases("paddle", both("meshgrid"), extract_meshgrid, produces=[Reshape, ShapeOf, Concat, Unsqueeze, Broadcast])


def extract_linspace(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``num`` evenly spaced values from start to stop, both included."""
    start, stop = known_float(ctx, "start", 0, 0.0), known_float(ctx, "stop", 1, 0.0)
    count = known_int(ctx, "num", 2, 1)
    dtype = dtype_of_name(ctx.attrs.get("dtype", "float32")) or np.dtype(np.float32)
    return [ctx.const(np.linspace(start, stop, count).astype(dtype))]


LINSPACE = aliases("paddle", both("linspace"), extract_linspace, produces=[])


def extract_scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Rows ``ids`` of X replaced by ``updates`` (``overwrite``), or the updates summed into
    rows first zeroed (repeated ids add up)."""
    data, ids, updates = x(ctx), arg(ctx, 1), arg(ctx, 2)
    assert ids is not None and updates is not None
    if ctx.attrs.bool("overwrite", True):
        return [ctx.op(ScatterUpdate(), data, ids, updates, i64(ctx, 0, "axis"))]
    rows = ctx.op(Unsqueeze(), ids, i64(ctx, [-1], "last"), suffix="rows")
    zeros = ctx.op(Broadcast(mode="numpy"), const_like(ctx, 0, data, "zero"), shape_of(ctx, updates), suffix="zeros")
    cleared = ctx.op(ScatterNDUpdate(reduction="none"), data, rows, zeros, suffix="cleared")
    return [ctx.op(ScatterNDUpdate(reduction="sum"), cleared, rows, updates)]


SCATTER = aliases("paddle", both("scatter"), extract_scatter,
                  produces=[ScatterUpdate, ScatterNDUpdate, Unsqueeze, Broadcast, ShapeOf])


def extract_scatter_nd_add(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(ScatterNDUpdate(reduction="sum"), x(ctx), arg(ctx, 1), arg(ctx, 2))]


SCATTER_ND_ADD = aliases("paddle", both("scatter_nd_add"), extract_scatter_nd_add, produces=[ScatterNDUpdate])


def extract_grid_sampler(node: Node, ctx: ExtractContext) -> list[OutPort]:
    mode = ctx.attrs.choice("mode", ["bilinear", "nearest", "bicubic"], "bilinear")
    padding = ctx.attrs.choice("padding_mode", ["zeros", "border", "reflection"], "zeros")
    op = GridSample(align_corners=ctx.attrs.bool("align_corners", True), mode=mode, padding_mode=padding)
    return [ctx.op(op, x(ctx), arg(ctx, 1))]


GRID_SAMPLER = aliases("paddle", [*both("grid_sampler"), "pd_op.grid_sample"], extract_grid_sampler,
                       produces=[GridSample])


def extract_set_value(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``x[starts:ends:steps along axes] = value``: the value (a tensor operand, or the
    ``values`` attribute shaped by ``shape``) broadcast to the slice (its ``decrease_axes``
    put back as ones) and scattered into a copy of x."""
    data = x(ctx)
    with_tensor = ctx.source_op.op_type != "pd_op.set_value"  # legacy slots and PIR's _with_tensor: value first
    first = 2 if with_tensor else 1
    starts, ends = known_ints(ctx, "starts", first), known_ints(ctx, "ends", first + 1)
    steps = known_ints(ctx, "steps", first + 2, [1] * len(starts))
    if ctx.attrs.ints("none_axes", []):
        raise ctx.attrs.bad("none_axes", ctx.attrs.ints("none_axes"), "assignments through new axes are not converted")
    axes = ctx.attrs.ints("axes")
    bounds = [i64(ctx, v, n) for v, n in ((starts, "starts"), (ends, "ends"), (steps, "steps"), (axes, "axes"))]
    region = ctx.op(Slice(), data, *bounds, suffix="region")
    value = arg(ctx, 1) if with_tensor else None
    if value is None:
        values = next((ctx.attrs.get(n) for n in ("values", "fp32_values", "int64_values", "int32_values",
                                                  "fp64_values", "bool_values") if ctx.attrs.get(n, None)), [0])
        shape = ctx.attrs.ints("shape", [len(values)])
        value = ctx.const(np.asarray(values, np.float64).reshape(shape), suffix="value")
    value = convert_like(ctx, value, data, "value_type")
    target = shape_of(ctx, region, "region_shape")
    decrease = ctx.attrs.ints("decrease_axes", [])
    value_rank = len(value.data.shape) if value.data.shape is not None else None
    if decrease and value_rank != require_rank(ctx):  # a value without the decreased axes
        kept = [a for a in range(require_rank(ctx)) if a not in decrease]
        reduced = ctx.op(Gather(batch_dims=0), target, i64(ctx, kept, "kept"), i64(ctx, 0, "axis0"), suffix="reduced")
        value = ctx.op(Broadcast(mode="numpy"), value, reduced, suffix="value_reduced")
        value = ctx.op(Unsqueeze(), value, i64(ctx, decrease, "decrease"), suffix="value_full")
    updates = ctx.op(Broadcast(mode="numpy"), value, target, suffix="updates")
    return [ctx.op(SliceScatter(), data, updates, *bounds)]


SET_VALUE = aliases("paddle", ["set_value", "pd_op.set_value", "pd_op.set_value_with_tensor"], extract_set_value,
                    produces=[Slice, ShapeOf, Gather, Broadcast, Unsqueeze, SliceScatter, Convert])
