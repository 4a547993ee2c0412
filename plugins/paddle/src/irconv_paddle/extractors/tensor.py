"""Shapes and tensor plumbing: reshape, flatten, squeeze, concat, split, slice, constants,
casts, scale, expand, gather."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, normalize_axes, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Equal,
    Gather,
    GatherND,
    Multiply,
    ReduceProd,
    Reshape,
    Select,
    ShapeOf,
    Slice,
    Split,
    Squeeze,
    Tile,
    Transpose,
    Unsqueeze,
    VariadicSplit,
)
from irconv_opset.build import convert_like, dims_of, shape_of

from irconv_paddle.dtypes import dtype_of_name
from irconv_paddle.extractors._common import arg, args, known_float, known_int, known_ints, shape_tensor, x
from irconv_paddle.names import both


def _xshape(ctx: ExtractContext, node: Node) -> list[OutPort]:
    """The legacy ops' ``XShape`` output (for training's backward pass): an empty placeholder."""
    return [ctx.const(np.zeros((0,), np.int64), suffix="xshape") for _ in range(1, node.num_outputs())]


def extract_reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """0 keeps an input dimension, -1 is inferred. The shape: legacy ``shape`` attribute or
    ``Shape`` tensor, PIR operand 1 (a tensor, or a vector of scalars)."""
    parts = args(ctx, 1) + args(ctx, 2)
    shape = shape_tensor(ctx, parts) if parts else i64(ctx, ctx.attrs.ints("shape"), "shape")
    return [ctx.op(Reshape(special_zero=True), x(ctx), shape), *_xshape(ctx, node)]


RESHAPE = aliases("paddle", ["reshape2", "pd_op.reshape"], extract_reshape, produces=[Reshape, Concat, Convert])


def extract_flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Axes ``start_axis``..``stop_axis`` merged into one."""
    rank = require_rank(ctx)
    if rank == 0:
        return [ctx.op(Reshape(special_zero=False), x(ctx), i64(ctx, [1], "shape")), *_xshape(ctx, node)]
    start = normalize_axis(ctx, ctx.attrs.int("start_axis", 1), rank)
    stop = normalize_axis(ctx, ctx.attrs.int("stop_axis", -1), rank)
    shape = i64(ctx, [0] * start + [-1], "lead")
    if stop < rank - 1:
        shape = ctx.op(Concat(axis=0), shape, dims_of(ctx, x(ctx), list(range(stop + 1, rank)), "tail"), suffix="shape")
    return [ctx.op(Reshape(special_zero=True), x(ctx), shape), *_xshape(ctx, node)]


FLATTEN = aliases("paddle", ["flatten_contiguous_range", "pd_op.flatten"], extract_flatten,
                  produces=[Reshape, Concat, Gather, ShapeOf])


@extractor("paddle", "flatten2", produces=[Reshape])
def extract_flatten2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The legacy 2-D flatten: dims before ``axis`` into rows, the rest into columns."""
    axis = ctx.attrs.int("axis", 1)
    return [ctx.op(Reshape(special_zero=True), x(ctx), i64(ctx, [0] * axis + [-1] if axis else [1, -1], "shape")),
            *_xshape(ctx, node)]


PD_FLATTEN2 = aliases("paddle", ["flatten"], extract_flatten2, produces=[Reshape])


def extract_squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The listed axes of size 1 removed (all size-1 axes when none is listed)."""
    axes = known_ints(ctx, "axes", 1, [])
    if not axes:
        return [ctx.op(Squeeze(), x(ctx)), *_xshape(ctx, node)]
    rank = require_rank(ctx)
    shape = ctx.input_shape(0) or ()
    axes = [a for a in normalize_axes(ctx, axes, rank) if shape[a] in (1, None)]
    return [ctx.op(Squeeze(), x(ctx), i64(ctx, axes, "axes")), *_xshape(ctx, node)]


SQUEEZE = aliases("paddle", ["squeeze2", "pd_op.squeeze"], extract_squeeze, produces=[Squeeze])


def extract_unsqueeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = known_ints(ctx, "axes", 1, [])
    return [ctx.op(Unsqueeze(), x(ctx), i64(ctx, axes, "axes")), *_xshape(ctx, node)]


UNSQUEEZE = aliases("paddle", ["unsqueeze2", "pd_op.unsqueeze"], extract_unsqueeze, produces=[Unsqueeze])


def extract_concat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    values = args(ctx, 0)
    rank = len(values[0].data.shape) if values[0].data.shape is not None else require_rank(ctx)
    axis = normalize_axis(ctx, known_int(ctx, "axis", 1, 0), rank)
    return [ctx.op(Concat(axis=axis), *values)]


CONCAT = aliases("paddle", both("concat"), extract_concat, produces=[Concat])


def extract_split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Into ``num`` equal parts, or parts of the given ``sections`` (one -1 takes the rest).
    Legacy: attributes ``num``/``sections``/``axis``; PIR split: operands sections and axis;
    PIR split_with_num: ``num`` and operand axis."""
    data = x(ctx)
    pir = ctx.source_op.op_type.startswith("pd_op.")
    axis_arg = 1 if ctx.source_op.op_type == "pd_op.split_with_num" else 2 if pir else 1
    axis = normalize_axis(ctx, known_int(ctx, "axis", axis_arg, 0), require_rank(ctx))
    sections = known_ints(ctx, "sections", 1, []) if ctx.source_op.op_type == "pd_op.split" else \
        ctx.attrs.ints("sections", []) or known_ints(ctx, "sections", 2, []) if not pir else []
    if not sections:
        count = ctx.attrs.int("num", node.num_outputs())
        split = ctx.add(Split(num_splits=count), [data, i64(ctx, axis, "axis")])
    else:
        split = ctx.add(VariadicSplit(), [data, i64(ctx, axis, "axis"), i64(ctx, sections, "sections")])
    return [split.out_port(i) for i in range(node.num_outputs())]


SPLIT = aliases("paddle", [*both("split"), "pd_op.split_with_num"], extract_split, produces=[Split, VariadicSplit])


def extract_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``starts``/``ends`` along ``axes`` (clamped as Python slices are), then the
    ``decrease_axis`` dimensions dropped."""
    data = x(ctx)
    starts, ends = known_ints(ctx, "starts", 1), known_ints(ctx, "ends", 2)
    axes = ctx.attrs.ints("axes")
    out = ctx.op(Slice(), data, i64(ctx, starts, "starts"), i64(ctx, ends, "ends"),
                 i64(ctx, [1] * len(axes), "steps"), i64(ctx, axes, "axes"), suffix="slice")
    decrease = ctx.attrs.ints("decrease_axis", [])
    if decrease and len(decrease) < require_rank(ctx):
        out = ctx.op(Squeeze(), out, i64(ctx, decrease, "decrease"))
    elif decrease:  # every axis decreased: Paddle keeps one element as shape [] (PIR) or [1] (legacy)
        out = ctx.op(Reshape(special_zero=False), out, i64(ctx, [] if ctx.source_op.op_type.startswith("pd_op.")
                                                            else [1], "scalar"))
    return [out]


SLICE = aliases("paddle", both("slice"), extract_slice, produces=[Slice, Squeeze, Reshape])


def extract_strided_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    starts, ends = known_ints(ctx, "starts", 1), known_ints(ctx, "ends", 2)
    strides = known_ints(ctx, "strides", 3)
    axes = ctx.attrs.ints("axes")
    return [ctx.op(Slice(), data, i64(ctx, starts, "starts"), i64(ctx, ends, "ends"), i64(ctx, strides, "steps"),
                   i64(ctx, axes, "axes"))]


STRIDED_SLICE = aliases("paddle", both("strided_slice"), extract_strided_slice, produces=[Slice])


def extract_stack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    values = args(ctx, 0)
    rank = len(values[0].data.shape) if values[0].data.shape is not None else require_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 0), rank + 1)
    parts = [ctx.op(Unsqueeze(), v, i64(ctx, [axis], "axis"), suffix=f"item{i}") for i, v in enumerate(values)]
    return [ctx.op(Concat(axis=axis), *parts)]


STACK = aliases("paddle", both("stack"), extract_stack, produces=[Unsqueeze, Concat])


def extract_shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Paddle's shape is int32 (``shape64``: int64)."""
    wide = ctx.source_op.op_type.endswith("shape64")
    return [ctx.op(ShapeOf(output_type=ElementType.i64 if wide else ElementType.i32), x(ctx))]


SHAPE = aliases("paddle", [*both("shape"), "pd_op.shape64"], extract_shape, produces=[ShapeOf])


def _dtype(ctx: ExtractContext, name: str, default: str = "float32") -> np.dtype:
    value = ctx.attrs.get(name, default)
    found = dtype_of_name(value if isinstance(value, (int, str)) else str(value))
    if found is None:
        raise ctx.attrs.bad(name, value, "not an element type irconv converts")
    return found


def extract_full(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A constant tensor: ``shape`` filled with ``value`` (legacy fill_constant: ``value`` or
    ``str_value``, type code ``dtype``); a shape given as tensors (legacy ``ShapeTensor`` or
    ``ShapeTensorList``) makes a Broadcast of the value at run time."""
    dtype = _dtype(ctx, "dtype")
    text = ctx.attrs.get("str_value", "")
    value = float(text) if text else known_float(ctx, "value", None, 0.0)
    run_time = args(ctx, 1) + args(ctx, 2)
    if run_time:
        fill = ctx.const(np.asarray(value, dtype), suffix="value")
        return [ctx.op(Broadcast(mode="numpy"), fill, shape_tensor(ctx, run_time))]
    return [ctx.const(np.full(known_ints(ctx, "shape", None, []), value, dtype))]


FULL = aliases("paddle", ["fill_constant", "pd_op.full"], extract_full, produces=[Broadcast, Concat, Convert, Reshape])


def extract_eye(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The ``num_rows`` x ``num_columns`` identity (as many columns as rows when -1) of ``dtype``:
    attributes of the legacy op, operands of PIR's."""
    rows = known_int(ctx, "num_rows", 0, -1)
    columns = known_int(ctx, "num_columns", 1, -1)
    return [ctx.const(np.eye(rows, rows if columns < 0 else columns, dtype=_dtype(ctx, "dtype")))]


EYE = aliases("paddle", both("eye"), extract_eye, produces=[])


def extract_full_with_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """PIR's full with a run-time shape: operand 0 the value, operand 1 the shape."""
    fill = ctx.op(Convert(destination_type=ElementType.from_numpy(_dtype(ctx, "dtype"))), x(ctx), suffix="value")
    return [ctx.op(Broadcast(mode="numpy"), fill, shape_tensor(ctx, args(ctx, 1)))]


PD_FULL_WITH_TENSOR = aliases("paddle", ["pd_op.full_with_tensor"], extract_full_with_tensor,
                              produces=[Broadcast, Concat, Convert, Reshape])




@extractor("paddle", "pd_op.full_int_array", produces=[])
def extract_full_int_array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.const(np.asarray(ctx.attrs.ints("value", []), _dtype(ctx, "dtype", "int64")).reshape(-1))]


@extractor("paddle", "assign_value", produces=[])
def extract_assign_value(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A constant from its ``values`` (or the typed ``fp32_values``/``int32_values`` ...) and ``shape``."""
    for name in ("values", "fp32_values", "int32_values", "int64_values", "bool_values", "fp64_values"):
        if name in ctx.attrs and ctx.attrs.get(name):
            values = ctx.attrs.get(name)
            break
    else:
        values = []
    shape = ctx.attrs.ints("shape", [len(values)])
    return [ctx.const(np.asarray(values, _dtype(ctx, "dtype")).reshape(shape))]


PD_ASSIGN_VALUE = aliases("paddle", ["pd_op.assign_value"], extract_assign_value, produces=[])


def extract_full_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    dtype_value = ctx.attrs.get("dtype", None)
    dtype = dtype_of_name(dtype_value) if dtype_value not in (None, -1, "undefined") else None
    value = known_float(ctx, "value", 1, 0.0)
    fill = ctx.const(np.asarray(value, dtype or np.dtype(np.float32)))
    if dtype is None:
        fill = convert_like(ctx, fill, data, "fill_type")
    return [ctx.op(Broadcast(mode="numpy"), fill, shape_of(ctx, data))]


FULL_LIKE = aliases("paddle", ["fill_any_like", "pd_op.full_like"], extract_full_like,
                    produces=[Broadcast, ShapeOf, Convert])


def extract_numel(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The element count as an int64 scalar."""
    return [ctx.op(ReduceProd(keep_dims=False), shape_of(ctx, x(ctx)), i64(ctx, [0], "axis"))]


NUMEL = aliases("paddle", ["size", "pd_op.numel"], extract_numel, produces=[ShapeOf, ReduceProd])


def extract_assign(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [x(ctx)]


ASSIGN = aliases("paddle", [*both("assign"), *both("share_data"), "memcpy", "pd_op.memcpy_h2d", "pd_op.memcpy_d2h"],
                 extract_assign, produces=[])


def extract_cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dtype = _dtype(ctx, "out_dtype" if "out_dtype" in ctx.attrs else "dtype")
    return [ctx.op(Convert(destination_type=ElementType.from_numpy(dtype)), x(ctx))]


CAST = aliases("paddle", both("cast"), extract_cast, produces=[Convert])


def extract_scale(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x * scale + bias, or (x + bias) * scale when not ``bias_after_scale``."""
    data = x(ctx)
    scale = arg(ctx, 1)
    if scale is None:
        scale = ctx.const(np.asarray(ctx.attrs.float("scale", 1.0)))
    scale = convert_like(ctx, scale, data, "scale_type")
    bias = ctx.attrs.float("bias", 0.0)
    bias_port = convert_like(ctx, ctx.const(np.asarray(bias, np.float32), suffix="bias"), data, "bias_type")
    if ctx.attrs.bool("bias_after_scale", True):
        scaled = ctx.op(Multiply(), data, scale, suffix="mul")
        return [scaled if bias == 0 else ctx.op(Add(), scaled, bias_port)]
    shifted = data if bias == 0 else ctx.op(Add(), data, bias_port, suffix="add")
    return [ctx.op(Multiply(), shifted, scale)]


SCALE = aliases("paddle", both("scale"), extract_scale, produces=[Multiply, Add, Convert])


def extract_expand(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """To ``shape`` (an attribute, a tensor or scalars); -1 keeps the input's dimension, as a
    bidirectional broadcast to 1 does."""
    parts = args(ctx, 1) + args(ctx, 2)
    shape = shape_tensor(ctx, parts) if parts else i64(ctx, ctx.attrs.ints("shape"), "shape")
    keep = ctx.op(Equal(), shape, i64(ctx, -1, "keep"), suffix="kept_dims")
    target = ctx.op(Select(), keep, i64(ctx, 1, "one"), shape, suffix="target")
    return [ctx.op(Broadcast(mode="bidirectional"), x(ctx), target)]


EXPAND = aliases("paddle", ["expand_v2", "pd_op.expand"], extract_expand,
                 produces=[Broadcast, Equal, Select, Concat, Convert, Reshape])


def extract_expand_as(node: Node, ctx: ExtractContext) -> list[OutPort]:
    target = arg(ctx, 1)
    shape = shape_of(ctx, target) if target is not None else i64(ctx, ctx.attrs.ints("target_shape"), "shape")
    return [ctx.op(Broadcast(mode="bidirectional"), x(ctx), shape)]


EXPAND_AS = aliases("paddle", ["expand_as_v2", "pd_op.expand_as"], extract_expand_as, produces=[Broadcast, ShapeOf])


def extract_tile(node: Node, ctx: ExtractContext) -> list[OutPort]:
    repeats = known_ints(ctx, "repeat_times", 1)
    data = x(ctx)
    rank = require_rank(ctx)
    if len(repeats) > rank:
        data = ctx.op(Unsqueeze(), data, i64(ctx, list(range(len(repeats) - rank)), "lead"), suffix="lift")
    return [ctx.op(Tile(), data, i64(ctx, repeats, "repeats"))]


TILE = aliases("paddle", both("tile"), extract_tile, produces=[Tile, Unsqueeze])


def extract_gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = known_int(ctx, "axis", 2, 0)
    return [ctx.op(Gather(batch_dims=0), x(ctx), arg(ctx, 1), i64(ctx, axis, "axis"))]


GATHER = aliases("paddle", both("gather"), extract_gather, produces=[Gather])


def extract_gather_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(GatherND(batch_dims=0), x(ctx), arg(ctx, 1))]


GATHER_ND = aliases("paddle", both("gather_nd"), extract_gather_nd, produces=[GatherND])


def extract_where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Select(), x(ctx), arg(ctx, 1), arg(ctx, 2))]


WHERE = aliases("paddle", both("where"), extract_where, produces=[Select])


def extract_lookup(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Embedding rows: legacy ``lookup_table_v2`` (Ids, W), PIR ``embedding`` (x, weight)."""
    ids, table = x(ctx), arg(ctx, 1)
    return [ctx.op(Gather(batch_dims=0), table, ids, i64(ctx, 0, "axis"))]


LOOKUP = aliases("paddle", ["lookup_table_v2", "pd_op.embedding"], extract_lookup, produces=[Gather])


def extract_fill_batch_size_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``shape`` filled with ``value``, its ``output_dim_idx`` dimension taken from the input's
    ``input_dim_idx`` (the batch) at run time."""
    dtype = _dtype(ctx, "dtype")
    shape = ctx.attrs.ints("shape")
    out_axis, in_axis = ctx.attrs.int("output_dim_idx", 0), ctx.attrs.int("input_dim_idx", 0)
    text = ctx.attrs.get("str_value", "")
    fill = ctx.const(np.asarray(float(text) if text else ctx.attrs.float("value", 0.0), dtype), suffix="value")
    parts = [i64(ctx, shape[:out_axis], "head"), dims_of(ctx, x(ctx), [in_axis], "batch"),
             i64(ctx, shape[out_axis + 1:], "tail")]
    return [ctx.op(Broadcast(mode="numpy"), fill, ctx.op(Concat(axis=0), *parts, suffix="shape"))]


FILL_BATCH_SIZE_LIKE = aliases("paddle", ["fill_constant_batch_size_like", "pd_op.full_batch_size_like"],
                               extract_fill_batch_size_like, produces=[Concat, Broadcast, Gather, ShapeOf])


def _partial(ctx: ExtractContext) -> list[OutPort]:
    """Columns ``start_index`` .. ``start_index + length`` (to the end for -1) of each 2-D input."""
    start, length = ctx.attrs.int("start_index", 0), ctx.attrs.int("length", -1)
    stop = np.iinfo(np.int64).max if length < 0 else start + length
    return [ctx.op(Slice(), v, i64(ctx, [start], f"start{i}"), i64(ctx, [stop], f"stop{i}"), i64(ctx, [1], f"step{i}"),
                   i64(ctx, [1], f"axis{i}"), suffix=f"part{i}") for i, v in enumerate(args(ctx, 0))]


def extract_partial_sum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset.lowering.elementwise import add_n

    return [add_n(ctx, _partial(ctx))]


PARTIAL_SUM = aliases("paddle", both("partial_sum"), extract_partial_sum, produces=[Slice, Add])


def extract_partial_concat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Concat(axis=1), *_partial(ctx))]


PARTIAL_CONCAT = aliases("paddle", both("partial_concat"), extract_partial_concat, produces=[Slice, Concat])


def extract_diagonal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The ``offset`` diagonal of axes ``axis1``, ``axis2`` as a new last axis (their sizes must be known)."""
    data = x(ctx)
    rank = require_rank(ctx)
    first, second = normalize_axes(ctx, [ctx.attrs.int("axis1", 0), ctx.attrs.int("axis2", 1)], rank)
    shape = ctx.input_shape(0) or ()
    rows, cols = shape[first], shape[second]
    if rows is None or cols is None:
        raise ctx.attrs.bad("axis1", first, "diagonal needs the sizes of both axes")
    offset = ctx.attrs.int("offset", 0)
    order = [a for a in range(rank) if a not in (first, second)] + [first, second]
    moved = ctx.op(Transpose(), data, i64(ctx, order, "perm"), suffix="moved")
    flat = ctx.op(Reshape(special_zero=True), moved, i64(ctx, [0] * (rank - 2) + [-1], "flat_shape"), suffix="flat")
    cells = [r * cols + r + offset for r in range(rows) if 0 <= r + offset < cols]
    return [ctx.op(Gather(batch_dims=0), flat, i64(ctx, cells, "cells"), i64(ctx, rank - 2, "axis"))]


DIAGONAL = aliases("paddle", both("diagonal"), extract_diagonal, produces=[Transpose, Reshape, Gather])
