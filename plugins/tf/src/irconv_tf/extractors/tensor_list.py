"""TensorList ops as plain tensors with a leading list axis.

A list of ``n`` elements of shape ``S`` is the tensor ``[n, *S]``; carried through a Loop it
is an ordinary loop variable. Reserving a list whose element shape is only partly known
(a batch of -1) makes a zero tensor whose unknown dimensions are 1; the first write
broadcasts it to the written element's real shape, so element shapes known only at run
time work. ``SetItem`` is a ScatterUpdate at the index, ``GetItem`` a Gather, ``Stack`` and
``FromTensor`` the tensor itself, ``PushBack`` a Concat.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv.types import ElementType
from irconv_opset import (
    Broadcast,
    Concat,
    Convert,
    Gather,
    Maximum,
    ScatterUpdate,
    ShapeOf,
    Slice,
    Unsqueeze,
)

from irconv_tf.dtypes import numpy_dtype
from irconv_tf.extractors._base import int_const, table

_I64 = ElementType.i64


def _element_dims(ctx: ExtractContext, idx: int) -> OutPort:
    """The element shape input as i64 dims, unknown (-1) dims as 1."""
    value = ctx.input_value(idx)
    if value is not None:
        dims = np.asarray(value, dtype=np.int64).reshape(-1)
        if np.asarray(value).ndim == 0:
            raise ConversionError(
                f"node {ctx.node.name!r} ({ctx.source_op.op_type}): a TensorList of elements of unknown rank "
                "cannot be reserved; give the list an element shape"
            )
        return int_const(ctx, np.maximum(dims, 1), "element_dims")
    dims = ctx.op(Convert(destination_type=_I64), ctx.input(idx), suffix="element_dims")
    return ctx.op(Maximum(), dims, int_const(ctx, [1], "one"), suffix="known_dims")


def _zeros(ctx: ExtractContext, count: OutPort) -> OutPort:
    dtype = numpy_dtype(int(ctx.attr("element_dtype", 1)), f"node {ctx.node.name!r}")
    zero = ctx.const(np.zeros((), dtype), suffix="zero")
    shape = ctx.op(Concat(axis=0), count, _element_dims(ctx, 0), suffix="list_shape")
    return ctx.op(Broadcast(mode="numpy"), zero, shape, suffix="list")


def _reserve(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = ctx.op(Convert(destination_type=_I64), ctx.input(1), suffix="count")
    count = ctx.op(Unsqueeze(), count, int_const(ctx, 0, "axis"), suffix="count_1d") if _scalar(ctx, 1) else count
    return [_zeros(ctx, count)]


def _empty(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_zeros(ctx, int_const(ctx, [0], "count"))]


def _scalar(ctx: ExtractContext, idx: int) -> bool:
    shape = ctx.input_shape(idx)
    return shape is None or len(shape) == 0


def _shaped_like(ctx: ExtractContext, items: OutPort) -> OutPort:
    """The list broadcast to [length, *item shape] (a reserved list takes its real element shape)."""
    lst = ctx.input(0)
    length = ctx.op(
        Slice(),
        ctx.op(ShapeOf(output_type=_I64), lst, suffix="list_dims"),
        int_const(ctx, [0], "zero"),
        int_const(ctx, [1], "one"),
        int_const(ctx, [1], "step"),
        suffix="length",
    )
    item_dims = ctx.op(ShapeOf(output_type=_I64), items, suffix="item_dims")
    target = ctx.op(Concat(axis=0), length, item_dims, suffix="target")
    return ctx.op(Broadcast(mode="numpy"), lst, target, suffix="shaped")


def _set_item(node: Node, ctx: ExtractContext) -> list[OutPort]:
    item = ctx.input(2)
    index = ctx.op(Unsqueeze(), ctx.input(1), int_const(ctx, 0, "axis"), suffix="index")
    update = ctx.op(Unsqueeze(), item, int_const(ctx, 0, "axis"), suffix="update")
    lst = _shaped_like(ctx, item)
    return [ctx.op(ScatterUpdate(), lst, index, update, int_const(ctx, 0, "axis"), suffix="set")]


def _get_item(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), int_const(ctx, 0, "axis"), suffix="get")]


def _gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), int_const(ctx, 0, "axis"), suffix="gather")]


def _the_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


def _length(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dims = ctx.op(ShapeOf(output_type=ElementType.i32), ctx.input(0), suffix="dims")
    return [ctx.op(Gather(batch_dims=0), dims, int_const(ctx, 0, "index"), int_const(ctx, 0, "axis"), suffix="length")]


def _element_shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    out_type = ElementType.i64 if int(ctx.attr("shape_type", 3)) == 9 else ElementType.i32
    dims = ctx.op(ShapeOf(output_type=out_type), ctx.input(0), suffix="dims")
    big = int_const(ctx, [np.iinfo(np.int64).max], "end")
    return [ctx.op(Slice(), dims, int_const(ctx, [1], "begin"), big, int_const(ctx, [1], "step"), suffix="element_shape")]


def _push_back(node: Node, ctx: ExtractContext) -> list[OutPort]:
    item = ctx.input(1)
    update = ctx.op(Unsqueeze(), item, int_const(ctx, 0, "axis"), suffix="update")
    return [ctx.op(Concat(axis=0), _shaped_like(ctx, item), update, suffix="pushed")]


def _pop_back(node: Node, ctx: ExtractContext) -> list[OutPort]:
    lst = ctx.input(0)
    rest = ctx.op(
        Slice(),
        lst,
        int_const(ctx, [0], "begin"),
        int_const(ctx, [-1], "end"),
        int_const(ctx, [1], "step"),
        suffix="rest",
    )
    last = ctx.op(Gather(batch_dims=0), lst, int_const(ctx, -1, "last"), int_const(ctx, 0, "axis"), suffix="last")
    return [rest, last]


def extractors() -> list[Extractor]:
    return table(
        {
            "TensorListReserve": (_reserve, "Broadcast"),
            "EmptyTensorList": (_empty, "Broadcast"),
            "TensorListFromTensor": (_the_tensor, ""),
            "TensorListStack": (_the_tensor, ""),
            "TensorListSetItem": (_set_item, "ScatterUpdate"),
            "TensorListGetItem": (_get_item, "Gather"),
            "TensorListGather": (_gather, "Gather"),
            "TensorListLength": (_length, "ShapeOf,Gather"),
            "TensorListElementShape": (_element_shape, "ShapeOf,Slice"),
            "TensorListPushBack": (_push_back, "Concat"),
            "TensorListPopBack": (_pop_back, "Slice,Gather"),
        }
    )
