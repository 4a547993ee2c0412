"""Array TF ops: identities, shapes, slicing, joining, gathering, type casts."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Equal,
    Pad,
    Range,
    Reshape,
    Select,
    ShapeOf,
    Slice,
    Split,
    Squeeze,
    StridedSlice,
    Tile,
    Transpose,
    Unsqueeze,
    VariadicSplit,
)

from irconv_tf.dtypes import element_type
from irconv_tf.extractors._base import const_input, int_const, table


def _identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(i) for i in range(len(ctx.inputs))]


def _reshape(node: Node, ctx: ExtractContext) -> Op:
    return Reshape(special_zero=False)


def _transpose(node: Node, ctx: ExtractContext) -> Op:
    return Transpose()


def _expand_dims(node: Node, ctx: ExtractContext) -> Op:
    return Unsqueeze()


def _squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = ctx.attr("squeeze_dims", None) or []
    if not axes:
        return [ctx.op(Squeeze(), ctx.input(0))]
    return [ctx.op(Squeeze(), ctx.input(0), int_const(ctx, axes, "axes"))]


def _concat_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = len(ctx.inputs) - 1
    axis = int(const_input(ctx, count, "axis"))
    return [ctx.op(Concat(axis=axis), *[ctx.input(i) for i in range(count)])]


def _concat_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = int(const_input(ctx, 0, "concat_dim"))
    return [ctx.op(Concat(axis=axis), *[ctx.input(i) for i in range(1, len(ctx.inputs))])]


def _pack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = int(ctx.attr("axis", 0))
    axis_port = int_const(ctx, [axis], "axis")
    parts = [ctx.op(Unsqueeze(), ctx.input(i), axis_port, suffix=f"unsqueeze{i}") for i in range(len(ctx.inputs))]
    return [ctx.op(Concat(axis=axis), *parts)]


def _unpack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    num, axis = int(ctx.attr("num")), int(ctx.attr("axis", 0))
    axis_port = int_const(ctx, axis, "axis")
    split = ctx.add(Split(num_splits=num), [ctx.input(0), axis_port], suffix="split")
    axes = int_const(ctx, [axis], "axes")
    return [ctx.op(Squeeze(), split.out_port(i), axes, suffix=f"squeeze{i}") for i in range(num)]


def _split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    num = int(ctx.attr("num_split"))
    split = ctx.add(Split(num_splits=num), [ctx.input(1), ctx.input(0)], suffix="Split")
    return [split.out_port(i) for i in range(num)]


def _split_v(node: Node, ctx: ExtractContext) -> list[OutPort]:
    num = int(ctx.attr("num_split"))
    split = ctx.add(VariadicSplit(), [ctx.input(0), ctx.input(2), ctx.input(1)], suffix="VariadicSplit")
    return [split.out_port(i) for i in range(num)]


def _bits(mask: int, count: int) -> list[int]:
    return [(mask >> i) & 1 for i in range(count)]


def _strided_slice(node: Node, ctx: ExtractContext) -> Op:
    begin = const_input(ctx, 1, "begin") if ctx.input_value(1) is not None else None
    count = begin.size if begin is not None else 32
    if begin is None:
        shape = ctx.input(1).data.get_shape()
        if shape and shape[0] is not None:
            count = shape[0]
    return StridedSlice(
        begin_mask=_bits(int(ctx.attr("begin_mask", 0)), count),
        end_mask=_bits(int(ctx.attr("end_mask", 0)), count),
        new_axis_mask=_bits(int(ctx.attr("new_axis_mask", 0)), count),
        shrink_axis_mask=_bits(int(ctx.attr("shrink_axis_mask", 0)), count),
        ellipsis_mask=_bits(int(ctx.attr("ellipsis_mask", 0)), count),
    )


def _slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Slice(x, begin, size): stop = begin + size, where size -1 means "to the end"."""
    begin = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="begin")
    size = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2), suffix="size")
    to_end = ctx.op(Equal(), size, int_const(ctx, -1, "minus_one"), suffix="to_end")
    stop = ctx.op(
        Select(), to_end, int_const(ctx, np.iinfo(np.int64).max, "max"), ctx.op(Add(), begin, size), suffix="stop"
    )
    ones = ctx.op(Broadcast(), int_const(ctx, 1, "one"), ctx.op(ShapeOf(), begin, suffix="rank"), suffix="step")
    return [ctx.op(Slice(), ctx.input(0), begin, stop, ones)]


def _pad(mode: str):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        pad_mode = mode
        if mode == "mirror":
            pad_mode = "reflect" if ctx.attr("mode").upper() == "REFLECT" else "symmetric"
        paddings = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="paddings")
        halves = ctx.add(Split(num_splits=2), [paddings, int_const(ctx, 1, "axis")], suffix="split")
        axis = int_const(ctx, [1], "squeeze_axis")
        begin = ctx.op(Squeeze(), halves.out_port(0), axis, suffix="pads_begin")
        end = ctx.op(Squeeze(), halves.out_port(1), axis, suffix="pads_end")
        inputs = [ctx.input(0), begin, end]
        if pad_mode == "constant" and ctx.has_input(2):
            inputs.append(ctx.input(2))
        return [ctx.op(Pad(pad_mode=pad_mode), *inputs)]

    return extract


def _tile(node: Node, ctx: ExtractContext) -> Op:
    return Tile()


def _fill(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Broadcast(mode="numpy"), ctx.input(1), ctx.input(0))]


def _broadcast_to(node: Node, ctx: ExtractContext) -> Op:
    return Broadcast(mode="bidirectional")


def _shape(node: Node, ctx: ExtractContext) -> Op:
    return ShapeOf(output_type_=element_type(ctx.attr("out_type", 3), node.name))


def _size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import ReduceProd

    out = element_type(ctx.attr("out_type", 3), node.name)
    shape = ctx.op(ShapeOf(output_type_=out), ctx.input(0))
    return [ctx.op(ReduceProd(keep_dims=False), shape, int_const(ctx, 0, "axis"))]


def _rank(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shape = ctx.op(ShapeOf(output_type_=ElementType.i32), ctx.input(0), suffix="shape")
    rank = ctx.op(ShapeOf(output_type_=ElementType.i32), shape, suffix="rank")
    return [ctx.op(Squeeze(), rank, int_const(ctx, [0], "axis"))]


def _cast(node: Node, ctx: ExtractContext) -> Op:
    return Convert(destination_type=element_type(ctx.attr("DstT"), node.name))


def _range(node: Node, ctx: ExtractContext) -> Op:
    return Range(output_type=element_type(ctx.attr("Tidx", 3), node.name))


def _zeros_like(value: int):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        from irconv_tf.dtypes import numpy_dtype

        dtype = numpy_dtype(ctx.attr("T", 1), node.name)
        shape = ctx.op(ShapeOf(), ctx.input(0), suffix="shape")
        return [ctx.op(Broadcast(), ctx.const(np.array(value, dtype), suffix="value"), shape)]

    return extract


def _select(node: Node, ctx: ExtractContext) -> Op:
    return Select(auto_broadcast="numpy")


def _gather_v2(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import Gather

    return Gather(batch_dims=int(ctx.attr("batch_dims", 0)))


def _gather_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Gather

    return [ctx.op(Gather(batch_dims=0), ctx.input(0), ctx.input(1), int_const(ctx, 0, "axis"))]


def _gather_nd(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import GatherND

    return GatherND(batch_dims=0)


def _one_hot(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import OneHot

    return OneHot(axis=int(ctx.attr("axis", -1)))


def _cumsum(node: Node, ctx: ExtractContext) -> Op:
    from irconv_opset import CumSum

    return CumSum(exclusive=bool(ctx.attr("exclusive", False)), reverse=bool(ctx.attr("reverse", False)))


def _where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Where(condition) -> NonZero gives [rank, n] coordinates; TF wants [n, rank]."""
    from irconv_opset import NonZero

    coordinates = ctx.op(NonZero(output_type=ElementType.i64), ctx.input(0), suffix="NonZero")
    return [ctx.op(Transpose(), coordinates, int_const(ctx, [1, 0], "perm"))]


def _clip_by_value(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import Maximum, Minimum

    return [ctx.op(Minimum(), ctx.op(Maximum(), ctx.input(0), ctx.input(1), suffix="lower"), ctx.input(2))]


def _space_batch(to_batch: bool):  # type: ignore[no-untyped-def]
    """SpaceToBatchND/BatchToSpaceND over the M spatial dims of a [batch, spatial..., channels] input."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        from irconv_opset import BatchToSpace, SpaceToBatch

        block = const_input(ctx, 1, "block_shape").reshape(-1).astype(np.int64)
        pads = const_input(ctx, 2, "paddings" if to_batch else "crops").reshape(-1, 2).astype(np.int64)
        full = np.concatenate([[1], block, [1]])
        begin = np.concatenate([[0], pads[:, 0], [0]])
        end = np.concatenate([[0], pads[:, 1], [0]])
        op = SpaceToBatch() if to_batch else BatchToSpace()
        return [
            ctx.op(
                op,
                ctx.input(0),
                int_const(ctx, full, "block"),
                int_const(ctx, begin, "begin"),
                int_const(ctx, end, "end"),
            )
        ]

    return extract


def _placeholder_with_default(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


def extractors() -> list[Extractor]:
    return table(
        {
            "Identity": (_identity, "-"),
            "IdentityN": (_identity, "-"),
            "StopGradient": (_identity, "-"),
            "PreventGradient": (_identity, "-"),
            "Snapshot": (_identity, "-"),
            "CheckNumerics": (_identity, "-"),
            "EnsureShape": (_identity, "-"),
            "PlaceholderWithDefault": (_placeholder_with_default, "-"),
            "Reshape": (_reshape, "Reshape"),
            "Transpose": (_transpose, "Transpose"),
            "ExpandDims": (_expand_dims, "Unsqueeze"),
            "Squeeze": (_squeeze, "Squeeze"),
            "ConcatV2": (_concat_v2, "Concat"),
            "Concat": (_concat_v1, "Concat"),
            "Pack": (_pack, "Unsqueeze, Concat"),
            "Unpack": (_unpack, "Split, Squeeze"),
            "Split": (_split, "Split"),
            "SplitV": (_split_v, "VariadicSplit"),
            "StridedSlice": (_strided_slice, "StridedSlice"),
            "Slice": (_slice, "Slice"),
            "Pad": (_pad("constant"), "Pad"),
            "PadV2": (_pad("constant"), "Pad"),
            "MirrorPad": (_pad("mirror"), "Pad"),
            "Tile": (_tile, "Tile"),
            "Fill": (_fill, "Broadcast"),
            "BroadcastTo": (_broadcast_to, "Broadcast"),
            "Shape": (_shape, "ShapeOf"),
            "Size": (_size, "ShapeOf, ReduceProd"),
            "Rank": (_rank, "ShapeOf"),
            "Cast": (_cast, "Convert"),
            "Range": (_range, "Range"),
            "ZerosLike": (_zeros_like(0), "Broadcast"),
            "OnesLike": (_zeros_like(1), "Broadcast"),
            "Select": (_select, "Select"),
            "SelectV2": (_select, "Select"),
            "GatherV2": (_gather_v2, "Gather"),
            "Gather": (_gather_v1, "Gather"),
            "ResourceGather": (_gather_v1, "Gather"),
            "GatherNd": (_gather_nd, "GatherND"),
            "OneHot": (_one_hot, "OneHot"),
            "Cumsum": (_cumsum, "CumSum"),
            "Where": (_where, "NonZero, Transpose"),
            "ClipByValue": (_clip_by_value, "Maximum, Minimum"),
            "SpaceToBatchND": (_space_batch(True), "SpaceToBatch"),
            "BatchToSpaceND": (_space_batch(False), "BatchToSpace"),
        }
    )
