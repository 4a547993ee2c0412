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
from irconv.frontend import aliases, extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Gather,
    GreaterEqual,
    Maximum,
    ReduceMin,
    ReduceProd,
    Reshape,
    ScatterUpdate,
    Select,
    ShapeOf,
    Slice,
    Subtract,
    Unsqueeze,
)

from irconv_tf.dtypes import numpy_dtype

_I64 = ElementType.i64
#: What each shared piece below may build (the extractors' produces are made of them).
_ELEMENT_DIMS_OPS = (Convert, Broadcast, ShapeOf, ReduceMin, GreaterEqual, Select)
_ZEROS_OPS = (Concat, Broadcast, *_ELEMENT_DIMS_OPS)
_LENGTH_OPS = (ShapeOf, Slice)
_RESHAPED_LIKE_OPS = (*_LENGTH_OPS, ReduceProd, Reshape, Concat, Broadcast)
_WRITE_OPS = (Unsqueeze, ScatterUpdate, *_RESHAPED_LIKE_OPS)
_GROWING_WRITE_OPS = (*_WRITE_OPS, Add, Convert, Maximum, Subtract)


def _element_dims(ctx: ExtractContext, idx: int) -> OutPort:
    """Dims of a reserved list's elements: the element shape when fully known, else all 1
    (one value per element, which the first write broadcasts to the element's real shape;
    an element shape of unknown rank gives a list of one value per element)."""
    value = ctx.input_value(idx)
    if value is not None:
        dims = np.asarray(value, dtype=np.int64).reshape(-1)
        if np.asarray(value).ndim == 0:
            return i64(ctx, np.zeros(0, np.int64), "element_dims")
        return i64(ctx, dims if (dims >= 0).all() else np.ones_like(dims), "element_dims")
    computed = ctx.op(Convert(destination_type=_I64), ctx.input(idx), suffix="element_dims")
    ones = ctx.op(Broadcast(mode="numpy"), i64(ctx, 1, "one"), ctx.op(ShapeOf(output_type=_I64), computed))
    known = ctx.op(ReduceMin(keep_dims=False), computed, i64(ctx, [0], "axis"), suffix="smallest")
    is_known = ctx.op(GreaterEqual(), known, i64(ctx, 0, "zero"), suffix="all_known")
    return ctx.op(Select(), is_known, computed, ones, suffix="reserved_dims")


def _zeros(ctx: ExtractContext, count: OutPort) -> OutPort:
    dtype = numpy_dtype(ctx.attrs.int("element_dtype", 1), ctx.where())
    zero = ctx.const(np.zeros((), dtype), suffix="zero")
    shape = ctx.op(Concat(axis=0), count, _element_dims(ctx, 0), suffix="list_shape")
    return ctx.op(Broadcast(mode="numpy"), zero, shape, suffix="list")


@extractor("tf", "TensorListReserve", produces=[Convert, Unsqueeze, *_ZEROS_OPS])
def reserve(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = ctx.op(Convert(destination_type=_I64), ctx.input(1), suffix="count")
    count = ctx.op(Unsqueeze(), count, i64(ctx, 0, "axis"), suffix="count_1d") if _scalar(ctx, 1) else count
    return [_zeros(ctx, count)]


@extractor("tf", "EmptyTensorList", produces=[*_ZEROS_OPS])
def empty(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_zeros(ctx, i64(ctx, [0], "count"))]


def _scalar(ctx: ExtractContext, idx: int) -> bool:
    shape = ctx.input_shape(idx)
    return shape is None or len(shape) == 0


def _length(ctx: ExtractContext, lst: OutPort) -> OutPort:
    dims = ctx.op(ShapeOf(output_type=_I64), lst, suffix="list_dims")
    one = i64(ctx, [1], "one")
    return ctx.op(Slice(), dims, i64(ctx, [0], "zero"), one, one, suffix="length")


def _reshaped_like(ctx: ExtractContext, lst: OutPort, items: OutPort) -> OutPort:
    """The list as [length, *item shape]: a list just reserved holds one value per element
    (see ``_element_dims``), broadcast to the item's size; a written list already has it."""
    length = _length(ctx, lst)
    item_dims = ctx.op(ShapeOf(output_type=_I64), items, suffix="item_dims")
    size = ctx.op(ReduceProd(keep_dims=True), item_dims, i64(ctx, [0], "axis"), suffix="item_size")
    # [length, values per element], explicit so an empty list reshapes too
    list_dims = ctx.op(ShapeOf(output_type=_I64), lst, suffix="all_dims")
    big = i64(ctx, [np.iinfo(np.int64).max], "end")
    one = i64(ctx, [1], "one")
    element_dims = ctx.op(Slice(), list_dims, one, big, one, suffix="element_dims")
    per_element = ctx.op(ReduceProd(keep_dims=True), element_dims, i64(ctx, [0], "axis"), suffix="per_element")
    flat = ctx.op(Reshape(special_zero=False), lst, ctx.op(Concat(axis=0), length, per_element), suffix="flat")
    wide = ctx.op(Broadcast(mode="numpy"), flat, ctx.op(Concat(axis=0), length, size), suffix="wide")
    target = ctx.op(Concat(axis=0), length, item_dims, suffix="target")
    return ctx.op(Reshape(special_zero=False), wide, target, suffix="shaped")


@extractor("tf", "TensorListSetItem", produces=[*_GROWING_WRITE_OPS])
def set_item(node: Node, ctx: ExtractContext) -> list[OutPort]:
    grow = ctx.attrs.bool("resize_if_index_out_of_bounds", False)
    return [_write(ctx, ctx.input(0), ctx.input(1), ctx.input(2), grow)]


def _write(ctx: ExtractContext, lst: OutPort, index: OutPort, item: OutPort, grow: bool = False) -> OutPort:
    """``lst[index] = item``; with ``grow`` a list shorter than ``index + 1`` is first padded
    with zeros (a TensorArray with ``dynamic_size``)."""
    index = ctx.op(Unsqueeze(), index, i64(ctx, 0, "axis"), suffix="index")
    update = ctx.op(Unsqueeze(), item, i64(ctx, 0, "axis"), suffix="update")
    lst = _reshaped_like(ctx, lst, item)
    if grow:
        wanted = ctx.op(Add(), ctx.op(Convert(destination_type=_I64), index), i64(ctx, [1], "one"))
        missing = ctx.op(Maximum(), ctx.op(Subtract(), wanted, _length(ctx, lst)), i64(ctx, [0], "zero"))
        pad_dims = ctx.op(Concat(axis=0), missing, ctx.op(ShapeOf(output_type=_I64), item), suffix="pad_dims")
        dtype = numpy_dtype(int(ctx.attrs.int("element_dtype", ctx.attrs.int("T", 1))), ctx.where())
        zero = ctx.const(np.zeros((), dtype), suffix="zero")
        pad = ctx.op(Broadcast(mode="numpy"), zero, pad_dims, suffix="pad")
        lst = ctx.op(Concat(axis=0), lst, pad, suffix="grown")
    return ctx.op(ScatterUpdate(), lst, index, update, i64(ctx, 0, "axis"), suffix="set")


@extractor("tf", "TensorListGetItem", produces=[Gather])
def get_item(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), i64(ctx, 0, "axis"), suffix="get")]


@extractor("tf", "TensorListGather", produces=[Gather])
def gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), i64(ctx, 0, "axis"), suffix="gather")]


def the_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


@extractor("tf", "TensorListLength", produces=[ShapeOf, Gather])
def list_length(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dims = ctx.op(ShapeOf(output_type=ElementType.i32), ctx.input(0), suffix="dims")
    return [ctx.op(Gather(batch_dims=0), dims, i64(ctx, 0, "index"), i64(ctx, 0, "axis"), suffix="length")]


@extractor("tf", "TensorListElementShape", produces=[ShapeOf, Slice])
def element_shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    out_type = ElementType.i64 if ctx.attrs.int("shape_type", 3) == 9 else ElementType.i32
    dims = ctx.op(ShapeOf(output_type=out_type), ctx.input(0), suffix="dims")
    big = i64(ctx, [np.iinfo(np.int64).max], "end")
    return [ctx.op(Slice(), dims, i64(ctx, [1], "begin"), big, i64(ctx, [1], "step"), suffix="element_shape")]


@extractor("tf", "TensorListPushBack", produces=[Unsqueeze, Concat, Reshape, *_LENGTH_OPS])
def push_back(node: Node, ctx: ExtractContext) -> list[OutPort]:
    item = ctx.input(1)
    update = ctx.op(Unsqueeze(), item, i64(ctx, 0, "axis"), suffix="update")
    # an empty list of any element shape reshapes to [0, *item shape]
    target = ctx.op(
        Concat(axis=0), _length(ctx, ctx.input(0)), ctx.op(ShapeOf(output_type=_I64), item), suffix="target"
    )
    lst = ctx.op(Reshape(special_zero=False), ctx.input(0), target, suffix="shaped")
    return [ctx.op(Concat(axis=0), lst, update, suffix="pushed")]


@extractor("tf", "TensorListPopBack", produces=[Slice, Gather])
def pop_back(node: Node, ctx: ExtractContext) -> list[OutPort]:
    lst = ctx.input(0)
    rest = ctx.op(
        Slice(),
        lst,
        i64(ctx, [0], "begin"),
        i64(ctx, [-1], "end"),
        i64(ctx, [1], "step"),
        suffix="rest",
    )
    last = ctx.op(Gather(batch_dims=0), lst, i64(ctx, -1, "last"), i64(ctx, 0, "axis"), suffix="last")
    return [rest, last]


# ---------------------------------------------------------------- TF1 TensorArray (v3)
# A TF1 TensorArray is a resource handle plus a scalar "flow" threaded through every op
# that touches it. Here the flow *is* the list tensor; the handle is a dummy scalar.


@extractor("tf", "TensorArrayV3", produces=[Convert, Unsqueeze, Concat, Broadcast])
def array(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shape = ctx.attrs.get("element_shape")
    if shape is None:
        dims = i64(ctx, np.zeros(0, np.int64), "element_dims")
    else:
        known = all(d is not None and d >= 0 for d in shape)
        dims = i64(ctx, [d if known else 1 for d in shape], "element_dims")
    dtype = numpy_dtype(ctx.attrs.int("dtype", 1), ctx.where())
    count = ctx.op(Convert(destination_type=_I64), ctx.input(0), suffix="count")
    count = ctx.op(Unsqueeze(), count, i64(ctx, 0, "axis"), suffix="count_1d") if _scalar(ctx, 0) else count
    shape_port = ctx.op(Concat(axis=0), count, dims, suffix="list_shape")
    flow = ctx.op(Broadcast(mode="numpy"), ctx.const(np.zeros((), dtype), suffix="zero"), shape_port, suffix="list")
    return [ctx.const(np.zeros((), np.float32), suffix="handle"), flow]


@extractor("tf", "TensorArrayWriteV3", produces=[*_GROWING_WRITE_OPS])
def array_write(node: Node, ctx: ExtractContext) -> list[OutPort]:
    # whether the array has dynamic_size is not known here (its flow may come through a
    # Loop): a write past the end always grows the list, as a dynamic array would
    return [_write(ctx, ctx.input(3), ctx.input(1), ctx.input(2), grow=True)]


@extractor("tf", "TensorArrayReadV3", produces=[Gather])
def array_read(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Gather(batch_dims=0), ctx.input(2), ctx.input(1), i64(ctx, 0, "axis"), suffix="read")]


@extractor("tf", "TensorArrayScatterV3", produces=[Gather, ScatterUpdate, *_RESHAPED_LIKE_OPS])
def array_scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    values = ctx.input(2)
    item = ctx.op(Gather(batch_dims=0), values, i64(ctx, 0, "first"), i64(ctx, 0, "axis"))
    lst = _reshaped_like(ctx, ctx.input(3), item)
    return [ctx.op(ScatterUpdate(), lst, ctx.input(1), values, i64(ctx, 0, "axis"), suffix="scatter")]


@extractor("tf", "TensorArraySizeV3", produces=[ShapeOf, Gather])
def array_size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dims = ctx.op(ShapeOf(output_type=ElementType.i32), ctx.input(1), suffix="dims")
    return [ctx.op(Gather(batch_dims=0), dims, i64(ctx, 0, "index"), i64(ctx, 0, "axis"), suffix="size")]


@extractor("tf", "TensorArrayGatherV3", produces=[Gather])
def array_gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Gather(batch_dims=0), ctx.input(2), ctx.input(1), i64(ctx, 0, "axis"), suffix="gather")]


THE_TENSOR = aliases("tf", ["TensorListFromTensor", "TensorListStack"], the_tensor)
