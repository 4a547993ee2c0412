"""Tensor arrays (what a loop appending to a Python list becomes): create_array,
write_to_array, lod_array_length and tensor_array_to_tensor, in both program forms.

An array is one tensor [count, *element dims]: the readers give the empty array the
program starts from (``create_array``; the legacy program makes it without an operator),
route a write's array in as its first argument (the legacy op names only the element and
the index), and carry an array a loop body appends to from one iteration to the next.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, i64, normalize_axis
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Add, Broadcast, Concat, Convert, Gather, Reshape, ShapeOf, Slice, Transpose, Unsqueeze

from irconv_paddle.dtypes import dtype_of_name
from irconv_paddle.extractors._common import arg, x

_END = np.iinfo(np.int64).max


def extract_create_array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """An empty array: [0, *element dims] (a dimension known only at run time counts 1: the
    writes reshape what they keep to the element's shape)."""
    dtype = dtype_of_name(ctx.attrs.get("dtype", "float32")) or np.dtype("float32")
    dims = [d if d >= 0 else 1 for d in ctx.attrs.ints("dims", [])]
    return [ctx.const(np.zeros([0, *dims], dtype))]


CREATE_ARRAY = aliases("paddle", ["create_array", "pd_op.create_array"], extract_create_array, produces=[])


def extract_write_to_array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The array with element ``i`` set to ``x``: the elements before ``i``, ``x``, the elements
    after it (appending when ``i`` is the count)."""
    array, value, index = x(ctx), arg(ctx, 1), arg(ctx, 2)
    assert value is not None and index is not None
    at = ctx.op(Reshape(special_zero=False), _as_i64(ctx, index), i64(ctx, [1]), suffix="index")
    after = ctx.op(Add(), at, i64(ctx, [1], "one"), suffix="after")
    element = ctx.op(Unsqueeze(), value, i64(ctx, [0], "axis"), suffix="element")
    shape = ctx.op(Concat(axis=0), i64(ctx, [-1], "count"), ctx.op(ShapeOf(output_type=ElementType.i64), value,
                                                                   suffix="element_shape"), suffix="shape")
    step, axis = i64(ctx, [1], "step"), i64(ctx, [0], "along")
    head = ctx.op(Slice(), array, i64(ctx, [0], "start"), at, step, axis, suffix="head")
    tail = ctx.op(Slice(), array, after, i64(ctx, [_END], "end"), step, axis, suffix="tail")
    parts = [ctx.op(Reshape(special_zero=False), part, shape, suffix=f"{name}_shaped")
             for part, name in ((head, "head"), (tail, "tail"))]
    return [ctx.op(Concat(axis=0), parts[0], element, parts[1])]


WRITE_TO_ARRAY = aliases("paddle", ["write_to_array", "pd_op.array_write"], extract_write_to_array,
                         produces=[Reshape, Add, Unsqueeze, Concat, ShapeOf, Slice, Convert])


def extract_array_length(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The element count, as int64 [1]."""
    shape = ctx.op(ShapeOf(output_type=ElementType.i64), x(ctx), suffix="shape")
    return [ctx.op(Slice(), shape, i64(ctx, [0], "start"), i64(ctx, [1], "stop"), i64(ctx, [1], "step"))]


ARRAY_LENGTH = aliases("paddle", ["lod_array_length", "pd_op.array_length"], extract_array_length,
                       produces=[ShapeOf, Slice])


def extract_array_to_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The elements stacked along a new ``axis`` (``use_stack``) or concatenated along ``axis``,
    and each element's extent along it (int32 [count])."""
    array = x(ctx)
    shape = array.data.shape
    if shape is None:
        raise ctx.attrs.bad("axis", ctx.attrs.int("axis", 0), "the rank of the array's elements is not known")
    rank = len(shape)
    stack = ctx.attrs.bool("use_stack", False)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 0), rank if stack else rank - 1)
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), array, suffix="shape")
    count = ctx.op(Gather(), dims, i64(ctx, [0], "count_at"), i64(ctx, 0, "gather_axis"), suffix="count")
    order = [*range(1, axis + 1), 0, *range(axis + 1, rank)]  # the count moved to just before ``axis``
    moved = array if order == list(range(rank)) else ctx.op(Transpose(), array, i64(ctx, order, "order"), suffix="moved")
    if stack:
        joined, extent = moved, i64(ctx, [1], "one")
    else:  # merge the count with the element axis after it
        moved_dims = ctx.op(Gather(), dims, i64(ctx, order, "order_dims"), i64(ctx, 0, "dims_axis"), suffix="moved_dims")
        before = ctx.op(Slice(), moved_dims, i64(ctx, [0], "b0"), i64(ctx, [axis], "b1"), i64(ctx, [1], "b2"),
                        suffix="before")
        after = ctx.op(Slice(), moved_dims, i64(ctx, [axis + 2], "a0"), i64(ctx, [_END], "a1"), i64(ctx, [1], "a2"),
                       suffix="after")
        target = ctx.op(Concat(axis=0), before, i64(ctx, [-1], "merged"), after, suffix="target")
        joined = ctx.op(Reshape(special_zero=False), moved, target, suffix="joined")
        extent = ctx.op(Gather(), dims, i64(ctx, [axis + 1], "extent_at"), i64(ctx, 0, "extent_axis"), suffix="extent")
    sizes = ctx.op(Broadcast(), extent, count, suffix="sizes")
    return [joined, ctx.op(Convert(destination_type=ElementType.i32), sizes, suffix="index")]


ARRAY_TO_TENSOR = aliases("paddle", ["tensor_array_to_tensor", "pd_op.array_to_tensor"], extract_array_to_tensor,
                          produces=[ShapeOf, Gather, Transpose, Slice, Concat, Reshape, Broadcast, Convert])


def _as_i64(ctx: ExtractContext, port: OutPort) -> OutPort:
    if port.data.element_type is ElementType.i64:
        return port
    return ctx.op(Convert(destination_type=ElementType.i64), port, suffix="index_i64")
