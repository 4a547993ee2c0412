"""Array TF ops: identities, shapes, slicing, joining, gathering, type casts."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, extractor, i64, input_constant, input_scalar
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    BatchToSpace,
    Broadcast,
    Concat,
    Convert,
    CumSum,
    Equal,
    Gather,
    GatherND,
    Greater,
    Less,
    Maximum,
    Minimum,
    NonZero,
    OneHot,
    Pad,
    Range,
    ReduceProd,
    Reshape,
    Select,
    ShapeOf,
    Slice,
    SpaceToBatch,
    Split,
    Squeeze,
    StridedSlice,
    Subtract,
    Tile,
    Transpose,
    Unsqueeze,
    VariadicSplit,
)

from irconv_tf.dtypes import element_type, numpy_dtype
from irconv_tf.extractors._base import on_inputs


def _identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(i) for i in range(len(ctx.inputs))]


@extractor("tf", "Reshape", produces=[Reshape])
def _reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Reshape(special_zero=False))


@extractor("tf", "Transpose", produces=[Transpose])
def _transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Transpose())


@extractor("tf", "ExpandDims", produces=[Unsqueeze, Add, Concat, Convert, Equal, Gather, Greater, Less, Reshape, Select, ShapeOf, Subtract])
def _expand_dims(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ExpandDims(x, axis): axis is a scalar or a one-element list, constant or computed.
    A computed axis becomes a Reshape to x's shape with a 1 inserted at the (normalised)
    axis, so the result's rank stays known: an Unsqueeze with computed axes has a dynamic
    rank, which the CPU plugin refuses.
    """
    axis = ctx.input_value(1)
    rank = ctx.input_rank(0)
    if axis is not None or rank is None:
        axes = i64(ctx, np.reshape(axis, [-1]), "axes") if axis is not None else ctx.input(1)
        return [ctx.op(Unsqueeze(), ctx.input(0), axes)]
    scalar = ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [], "scalar"), suffix="axis_scalar")
    given = ctx.op(Convert(destination_type=ElementType.i64), scalar, suffix="axis_i64")
    wrapped = ctx.op(Add(), given, i64(ctx, rank + 1, "out_rank"), suffix="axis_wrapped")
    negative = ctx.op(Less(), given, i64(ctx, 0, "zero"), suffix="axis_negative")
    at = ctx.op(Select(), negative, wrapped, given, suffix="axis")
    positions = i64(ctx, np.arange(rank + 1), "positions")
    after = ctx.op(Convert(destination_type=ElementType.i64), ctx.op(Greater(), positions, at), suffix="after_axis")
    source = ctx.op(Subtract(), positions, after, suffix="source_dim")
    source = ctx.op(Select(), ctx.op(Equal(), positions, at), i64(ctx, rank, "new_dim"), source, suffix="source")
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), ctx.input(0), suffix="dims")
    extended = ctx.op(Concat(axis=0), dims, i64(ctx, [1], "one"), suffix="dims_and_one")
    target = ctx.op(Gather(batch_dims=0), extended, source, i64(ctx, 0, "gather_axis"), suffix="target")
    return [ctx.op(Reshape(special_zero=False), ctx.input(0), target)]


@extractor("tf", "Squeeze", produces=[Squeeze])
def _squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = ctx.attrs.ints("squeeze_dims", [])
    if not axes:
        _refuse_run_time_rank(ctx)
        return [ctx.op(Squeeze(), ctx.input(0))]
    return [ctx.op(Squeeze(), ctx.input(0), i64(ctx, axes, "axes"))]


def _refuse_run_time_rank(ctx: ExtractContext) -> None:
    """Squeeze without axes drops every dim that is 1: with a dim known only at run time the
    result's rank is too, and OpenVINO's CPU plugin compiles no tensor of dynamic rank."""
    shape = ctx.input_shape(0)
    if shape is None or None not in shape:
        return  # unknown rank: only a body's argument, whose shape the Loop/If infers later
    unknown = [i for i, d in enumerate(shape) if d is None]
    shown = ",".join("?" if d is None else str(d) for d in shape)
    raise ConversionError(
        f"{ctx.where()}: Squeeze without squeeze_dims on a tensor of shape [{shown}]: whether dims {unknown} "
        "are dropped is known only at run time, so the result's rank is too, which OpenVINO's CPU plugin "
        "cannot compile; give the model inputs' shapes with --input, or name the axes in the model "
        "(tf.squeeze(x, axis=...))"
    )


@extractor("tf", "ConcatV2", produces=[Concat])
def _concat_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = len(ctx.inputs) - 1
    axis = int(input_scalar(ctx, count, "axis"))
    return [ctx.op(Concat(axis=axis), *_contributing(ctx, range(count), axis))]


@extractor("tf", "Concat", produces=[Concat])
def _concat_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = int(input_scalar(ctx, 0, "concat_dim"))
    return [ctx.op(Concat(axis=axis), *_contributing(ctx, range(1, len(ctx.inputs)), axis))]


def _contributing(ctx: ExtractContext, indices: range, axis: int) -> list[OutPort]:
    """The inputs of a concatenation along ``axis`` less constants with nothing along it
    (TF writes ``concat([batch_shape, [n, m]])`` with an empty batch shape; OpenVINO's
    shape inference crashes on a Broadcast to such a Concat of run-time sizes)."""
    kept = []
    for i in indices:
        value = ctx.input_value(i)
        empty = value is not None and value.ndim > 0 and value.shape[axis if axis >= 0 else axis + value.ndim] == 0
        if not empty:
            kept.append(ctx.input(i))
    return kept or [ctx.input(indices[0])]


@extractor("tf", "Pack", produces=[Unsqueeze, Concat])
def _pack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = ctx.attrs.int("axis", 0)
    axis_port = i64(ctx, [axis], "axis")
    parts = [ctx.op(Unsqueeze(), ctx.input(i), axis_port, suffix=f"unsqueeze{i}") for i in range(len(ctx.inputs))]
    return [ctx.op(Concat(axis=axis), *parts)]


@extractor("tf", "Unpack", produces=[Split, Squeeze])
def _unpack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    num, axis = ctx.attrs.int("num"), ctx.attrs.int("axis", 0)
    axis_port = i64(ctx, axis, "axis")
    split = ctx.add(Split(num_splits=num), [ctx.input(0), axis_port], suffix="split")
    axes = i64(ctx, [axis], "axes")
    return [ctx.op(Squeeze(), split.out_port(i), axes, suffix=f"squeeze{i}") for i in range(num)]


@extractor("tf", "Split", produces=[Split])
def _split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    num = ctx.attrs.int("num_split")
    split = ctx.add(Split(num_splits=num), [ctx.input(1), ctx.input(0)], suffix="Split")
    return [split.out_port(i) for i in range(num)]


@extractor("tf", "SplitV", produces=[VariadicSplit])
def _split_v(node: Node, ctx: ExtractContext) -> list[OutPort]:
    num = ctx.attrs.int("num_split")
    split = ctx.add(VariadicSplit(), [ctx.input(0), ctx.input(2), ctx.input(1)], suffix="VariadicSplit")
    return [split.out_port(i) for i in range(num)]


def _bits(mask: int, count: int) -> list[int]:
    return [(mask >> i) & 1 for i in range(count)]


@extractor("tf", "StridedSlice", produces=[StridedSlice, Squeeze])
def _strided_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    begin = input_constant(ctx, 1, "begin") if ctx.input_value(1) is not None else None
    count = begin.size if begin is not None else 32
    if begin is None:
        shape = ctx.input(1).data.get_shape()
        if shape and shape[0] is not None:
            count = shape[0]
    masks = {
        name: _bits(ctx.attrs.int(name, 0), count)
        for name in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")
    }
    computed = any(ctx.input_value(i) is None for i in (1, 2, 3))
    shrunk = _shrunk_output_axes(masks, ctx.input_rank(0)) if computed and any(masks["shrink_axis_mask"]) else None
    if shrunk is None:
        return on_inputs(ctx, StridedSlice(**masks))
    # The CPU plugin compiles no StridedSlice of static shapes that shrinks axes by run-time
    # bounds ("doesn't have compiled executor"): slice with the axes kept, then squeeze them.
    kept = StridedSlice(**{**masks, "shrink_axis_mask": [0] * count})
    sliced = ctx.op(kept, ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3), suffix="kept_axes")
    return [ctx.op(Squeeze(), sliced, i64(ctx, shrunk, "shrunk_axes"))]


def _shrunk_output_axes(masks: dict[str, list[int]], rank: int | None) -> list[int] | None:
    """Where the shrunk axes are in the slice's output when they are kept (size 1): each
    slice entry makes one output axis, an ellipsis as many as the input dims it covers.
    None when that count needs an input rank that is not known."""
    new_axis, shrink, ellipsis = masks["new_axis_mask"], masks["shrink_axis_mask"], masks["ellipsis_mask"]
    covered = 0
    if any(ellipsis):
        if rank is None:
            return None
        consuming = sum(1 for j in range(len(shrink)) if not new_axis[j] and not ellipsis[j])
        covered = max(rank - consuming, 0)
    axes, position, seen_ellipsis = [], 0, False
    for j in range(len(shrink)):
        if ellipsis[j] and not seen_ellipsis:  # only the first ellipsis counts in TF
            seen_ellipsis = True
            position += covered
            continue
        if shrink[j] and not new_axis[j]:
            axes.append(position)
        position += 1
    return axes


@extractor("tf", "Slice", produces=[Slice, Add, Broadcast, Convert, Equal, Select, ShapeOf])
def _slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Slice(x, begin, size): stop = begin + size, where size -1 means "to the end".
    "To the end" is the dimension itself (ShapeOf(x)), never a huge sentinel: the CPU plugin
    computes index arithmetic in 32 bits, where INT64_MAX (or even INT32_MAX) wraps.
    """
    begin = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="begin")
    size = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2), suffix="size")
    to_end = ctx.op(Equal(), size, i64(ctx, -1, "minus_one"), suffix="to_end")
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), ctx.input(0), suffix="dims")
    stop = ctx.op(Select(), to_end, dims, ctx.op(Add(), begin, size), suffix="stop")
    ones = ctx.op(Broadcast(), i64(ctx, 1, "one"), ctx.op(ShapeOf(), begin, suffix="rank"), suffix="step")
    return [ctx.op(Slice(), ctx.input(0), begin, stop, ones)]


def _pad(node: Node, ctx: ExtractContext, mode: str) -> list[OutPort]:
    pad_mode = mode
    if mode == "mirror":
        pad_mode = "reflect" if ctx.attrs.str("mode").upper() == "REFLECT" else "symmetric"
    paddings = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="paddings")
    halves = ctx.add(Split(num_splits=2), [paddings, i64(ctx, 1, "axis")], suffix="split")
    axis = i64(ctx, [1], "squeeze_axis")
    begin = ctx.op(Squeeze(), halves.out_port(0), axis, suffix="pads_begin")
    end = ctx.op(Squeeze(), halves.out_port(1), axis, suffix="pads_end")
    inputs = [ctx.input(0), begin, end]
    if pad_mode == "constant" and ctx.has_input(2):
        inputs.append(ctx.input(2))
    return [ctx.op(Pad(pad_mode=pad_mode), *inputs)]


@extractor("tf", "Tile", produces=[Tile])
def _tile(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Tile())


@extractor("tf", "Fill", produces=[Broadcast])
def _fill(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Broadcast(mode="numpy"), ctx.input(1), ctx.input(0))]


@extractor("tf", "BroadcastTo", produces=[Broadcast])
def _broadcast_to(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Broadcast(mode="bidirectional"))


@extractor("tf", "Shape", produces=[ShapeOf])
def _shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, ShapeOf(output_type=element_type(ctx.attrs.int("out_type", 3), ctx.where())))


@extractor("tf", "Size", produces=[ShapeOf, ReduceProd])
def _size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    out = element_type(ctx.attrs.int("out_type", 3), ctx.where())
    shape = ctx.op(ShapeOf(output_type=out), ctx.input(0))
    return [ctx.op(ReduceProd(keep_dims=False), shape, i64(ctx, 0, "axis"))]


@extractor("tf", "Rank", produces=[ShapeOf, Squeeze])
def _rank(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shape = ctx.op(ShapeOf(output_type=ElementType.i32), ctx.input(0), suffix="shape")
    rank = ctx.op(ShapeOf(output_type=ElementType.i32), shape, suffix="rank")
    return [ctx.op(Squeeze(), rank, i64(ctx, [0], "axis"))]


@extractor("tf", "Cast", produces=[Convert])
def _cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Convert(destination_type=element_type(ctx.attrs.int("DstT"), ctx.where())))


@extractor("tf", "Range", produces=[Range])
def _range(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Range(output_type=element_type(ctx.attrs.int("Tidx", 3), ctx.where())))


def _zeros_like(node: Node, ctx: ExtractContext, value: int) -> list[OutPort]:
    dtype = numpy_dtype(ctx.attrs.int("T", 1), ctx.where())
    shape = ctx.op(ShapeOf(), ctx.input(0), suffix="shape")
    return [ctx.op(Broadcast(), ctx.const(np.array(value, dtype), suffix="value"), shape)]


@extractor("tf", "Select", produces=[Select, Unsqueeze])
def _select(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Select (v1): a vector condition picks whole rows of higher-rank x/y (not NumPy
    broadcasting, which would align it with the last axis), so it gets trailing 1 dims."""
    condition = ctx.input(0)
    cond_rank, data_rank = ctx.input_rank(0), ctx.input_rank(1)
    if cond_rank == 1 and data_rank is not None and data_rank > 1:
        axes = i64(ctx, np.arange(1, data_rank), "row_axes")
        condition = ctx.op(Unsqueeze(), condition, axes, suffix="rows")
    return [ctx.op(Select(auto_broadcast="numpy"), condition, ctx.input(1), ctx.input(2))]


@extractor("tf", "SelectV2", produces=[Select])
def _select_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Select(auto_broadcast="numpy"))


@extractor("tf", "GatherV2", produces=[Gather])
def _gather_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, Gather(batch_dims=ctx.attrs.int("batch_dims", 0)))


def _gather_v1(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Gather/ResourceGather: along the first axis after ``batch_dims`` (ResourceGather's attribute)."""
    batch_dims = ctx.attrs.int("batch_dims", 0)
    axis = i64(ctx, batch_dims, "axis")
    return [ctx.op(Gather(batch_dims=batch_dims), ctx.input(0), ctx.input(1), axis)]


@extractor("tf", "GatherNd", produces=[GatherND])
def _gather_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, GatherND(batch_dims=0))


@extractor("tf", "OneHot", produces=[OneHot])
def _one_hot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, OneHot(axis=ctx.attrs.int("axis", -1)))


@extractor("tf", "Cumsum", produces=[CumSum])
def _cumsum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, CumSum(exclusive=ctx.attrs.bool("exclusive", False), reverse=ctx.attrs.bool("reverse", False)))


@extractor("tf", "Where", produces=[NonZero, Transpose])
def _where(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Where(condition) -> NonZero gives [rank, n] coordinates; TF wants [n, rank]."""
    coordinates = ctx.op(NonZero(output_type=ElementType.i64), ctx.input(0), suffix="NonZero")
    return [ctx.op(Transpose(), coordinates, i64(ctx, [1, 0], "perm"))]


@extractor("tf", "ClipByValue", produces=[Maximum, Minimum])
def _clip_by_value(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Minimum(), ctx.op(Maximum(), ctx.input(0), ctx.input(1), suffix="lower"), ctx.input(2))]


def _space_batch(node: Node, ctx: ExtractContext, to_batch: bool) -> list[OutPort]:
    """SpaceToBatchND/BatchToSpaceND over the M dims after the batch of a rank-R input.
    The opset ops take one block size and one pad pair per input dim: 1 and 0 for the batch
    and for the R - 1 - M trailing dims (none on a 3-D input with M = 2, several on a 5-D
    one). ``block_shape`` and ``paddings``/``crops`` may be computed tensors.
    """
    rank = ctx.input_rank(0)
    block_shape = ctx.input_shape(1)
    if rank is None or block_shape is None or len(block_shape) != 1 or block_shape[0] is None:
        raise ConversionError(
            f"{ctx.where()}: needs the input's rank and a block_shape of known length"
        )
    trailing = rank - 1 - block_shape[0]
    if trailing < 0:
        raise ConversionError(
            f"{ctx.where()}: block_shape has {block_shape[0]} values for a rank-{rank} input"
        )

    def framed(inner: OutPort, fill: int, suffix: str) -> OutPort:
        parts = [i64(ctx, [fill], "lead"), inner]
        if trailing:
            parts.append(i64(ctx, [fill] * trailing, "trail"))
        return ctx.op(Concat(axis=0), *parts, suffix=suffix)

    block = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="block_shape")
    pads = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2), suffix="pads")
    halves = ctx.add(Split(num_splits=2), [pads, i64(ctx, 1, "pair_axis")], suffix="pairs")
    axis = i64(ctx, [1], "pair_squeeze")
    begin = ctx.op(Squeeze(), halves.out_port(0), axis, suffix="pads_begin")
    end = ctx.op(Squeeze(), halves.out_port(1), axis, suffix="pads_end")
    op = SpaceToBatch() if to_batch else BatchToSpace()
    inputs = (ctx.input(0), framed(block, 1, "block"), framed(begin, 0, "begin"), framed(end, 0, "end"))
    return [ctx.op(op, *inputs)]


@extractor("tf", "PlaceholderWithDefault")
def _placeholder_with_default(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


IDENTITY = aliases("tf", ["Identity", "IdentityN", "StopGradient", "PreventGradient", "Snapshot", "CheckNumerics", "EnsureShape"], _identity)
GATHER = aliases("tf", ["Gather", "ResourceGather"], _gather_v1, produces=[Gather])


def _pad_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _pad(node, ctx, "constant")


PAD = aliases("tf", ["Pad", "PadV2"], _pad_op, produces=[Pad, Convert, Split, Squeeze])


@extractor("tf", "MirrorPad", produces=[Pad, Convert, Split, Squeeze])
def _mirror_pad(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _pad(node, ctx, "mirror")


@extractor("tf", "ZerosLike", produces=[ShapeOf, Broadcast])
def _zeros_like_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _zeros_like(node, ctx, 0)


@extractor("tf", "OnesLike", produces=[ShapeOf, Broadcast])
def _ones_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _zeros_like(node, ctx, 1)


@extractor("tf", "SpaceToBatchND", produces=[SpaceToBatch, Concat, Convert, Split, Squeeze])
def _space_to_batch_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _space_batch(node, ctx, True)


@extractor("tf", "BatchToSpaceND", produces=[BatchToSpace, Concat, Convert, Split, Squeeze])
def _batch_to_space_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _space_batch(node, ctx, False)
