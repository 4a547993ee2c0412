"""Shape and data movement: reshape, concat, reductions, padding, transpose, slicing,
gathering, packing, splitting, casts and tensor creation."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, input_constant, input_scalar, normalize_axis
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    CumSum,
    Gather,
    GatherND,
    Less,
    Pad,
    Range,
    Reshape,
    Reverse,
    Select,
    ShapeOf,
    Slice,
    Split,
    Squeeze,
    StridedSlice,
    Tile,
    TopK,
    Transpose,
    Unsqueeze,
    VariadicSplit,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.reduction import Reduction, reduce

from irconv_tflite.extractors import integer
from irconv_tflite.extractors._common import (
    FUSED_ACTIVATION_OPS,
    declared_shape,
    fused_activation,
    input_dtype,
    is_complex,
    known_rank,
    output_type,
    whole,
)


@extractor("tflite", "RESHAPE", produces=[Reshape, Concat, Convert])
def reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The new shape from input 1, or from the options when that input is absent (-1: infer);
    a complex tensor keeps its trailing axis of parts."""
    if ctx.has_input(1) and ctx.input_shape(1) != (0,):
        shape = ctx.input(1)
    else:
        shape = i64(ctx, ctx.attrs.ints("new_shape"), suffix="shape")
    if is_complex(ctx, 0):  # the parts' axis stays last
        shape = ctx.op(Concat(axis=0), ctx.op(Convert(destination_type=ElementType.i64), shape, suffix="shape_i64"),
                       i64(ctx, [2], suffix="parts"), suffix="complex_shape")
    return [ctx.op(Reshape(special_zero=False), ctx.input(0), shape, suffix="reshape")]


@extractor("tflite", "CONCATENATION", produces=[Concat, *FUSED_ACTIVATION_OPS])
def concatenation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = known_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis"), rank)
    inputs = [ctx.input(i) for i in range(len(ctx.inputs))]
    return [fused_activation(ctx, ctx.op(Concat(axis=axis), *inputs, suffix="concat"))]


@extractor("tflite", "MEAN", produces=[Reduction.MEAN.op, *integer.INTEGER_OPS])
def mean(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A full-integer MEAN as LiteRT computes it (``extractors.integer``), else ReduceMean."""
    keep = ctx.attrs.bool("keep_dims", False)
    axes = ctx.input_value(1)
    if axes is not None:
        rank = known_rank(ctx)
        exact = integer.mean(ctx, np.asarray([normalize_axis(ctx, int(a), rank) for a in np.ravel(axes)]), keep)
        if exact is not None:
            return [exact]
    return reduction(node, ctx)


#: Reductions over the axes at input 1, keeping them when ``keep_dims``.
_REDUCTIONS = {"SUM": Reduction.SUM, "REDUCE_MAX": Reduction.MAX, "REDUCE_MIN": Reduction.MIN,
               "REDUCE_PROD": Reduction.PROD, "REDUCE_ANY": Reduction.ANY, "REDUCE_ALL": Reduction.ALL,
               "MEAN": Reduction.MEAN}


def reduction(node: Node, ctx: ExtractContext) -> list[OutPort]:
    kind = _REDUCTIONS[ctx.source_op.op_type]
    return [reduce(ctx, kind, ctx.input(0), ctx.input(1), ctx.attrs.bool("keep_dims", False))]


REDUCTIONS = [record for name, kind in _REDUCTIONS.items() if name != "MEAN"
              for record in aliases("tflite", [name], reduction, produces=[kind.op])]


def pad(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """PAD / PADV2 (constant, PADV2's value at input 2) and MIRROR_PAD; paddings [rank, 2]."""
    pads = input_constant(ctx, 1, "the paddings").reshape(-1, 2).astype(np.int64)
    if ctx.source_op.op_type == "MIRROR_PAD":
        pad_mode = ctx.attrs.choice("mode", ["REFLECT", "SYMMETRIC"]).lower()
    else:
        pad_mode = "constant"
    inputs = [ctx.input(0), i64(ctx, pads[:, 0], suffix="begin"), i64(ctx, pads[:, 1], suffix="end")]
    if pad_mode == "constant":
        inputs.append(ctx.input(2) if ctx.has_input(2) else ctx.const(np.zeros((), input_dtype(ctx, 0))))
    return [ctx.op(Pad(pad_mode=pad_mode), *inputs, suffix="pad")]


PADS = aliases("tflite", ["PAD", "PADV2", "MIRROR_PAD"], pad, produces=[Pad])


@extractor("tflite", "TRANSPOSE", produces=[Transpose])
def transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Transpose())


def _mask(bits: int, length: int) -> list[int]:
    return [(bits >> i) & 1 for i in range(length)]


@extractor("tflite", "STRIDED_SLICE", produces=[StridedSlice, Add])
def strided_slice(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF's bit masks as OpenVINO's per-axis lists; ``offset``: end counts from begin."""
    shape = ctx.input_shape(1)
    if shape is None or shape[0] is None:
        raise ctx.attrs.bad("begin", "unknown length", "the slice's begin must have a known length")
    length = int(shape[0])
    masks = {name: _mask(ctx.attrs.int(name, 0), length)
             for name in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")}
    end = ctx.input(2)
    if ctx.attrs.bool("offset", False):
        end = ctx.op(Add(), ctx.input(1), end, suffix="end")
    op = StridedSlice(**masks)
    return [ctx.op(op, ctx.input(0), ctx.input(1), end, ctx.input(3), suffix="slice")]


@extractor("tflite", "SLICE", produces=[Slice, Convert, Add, Less, Select, ShapeOf])
def slice_(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """begin and size (-1: to the end) as Slice's start/stop. Computed ones (a WHILE body
    writing row i of a sequence) become the same arithmetic in the graph, with the input's
    own dims as the stop of a -1 size (OpenVINO 2026.4's CPU plugin sliced nothing when a
    computed stop took the largest integer there)."""
    shape = ctx.input_shape(1)
    if shape is None or len(shape) != 1 or shape[0] is None:
        raise ctx.attrs.bad("begin", shape, "the slice's begin must be a vector of known length")
    axes = i64(ctx, np.arange(int(shape[0]), dtype=np.int64), "axes")
    begin_value, size_value = ctx.input_value(1), ctx.input_value(2)
    if begin_value is not None and size_value is not None:
        begin = np.asarray(begin_value, np.int64).reshape(-1)
        size = np.asarray(size_value, np.int64).reshape(-1)
        to_end = np.iinfo(np.int64).max
        start, stop = i64(ctx, begin, "start"), i64(ctx, np.where(size < 0, to_end, begin + size), "stop")
    else:
        start = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="start")
        size_port = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(2), suffix="size")
        stop = ctx.op(Select(), ctx.op(Less(), size_port, i64(ctx, 0, "zero"), suffix="to_end"),
                      shape_of(ctx, ctx.input(0)), ctx.op(Add(), start, size_port, suffix="begin_plus_size"),
                      suffix="stop")
    step = i64(ctx, np.ones(int(shape[0]), np.int64), "step")
    return [ctx.op(Slice(), ctx.input(0), start, stop, step, axes, suffix="slice")]


@extractor("tflite", "GATHER", produces=[Gather])
def gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = ctx.attrs.int("axis", 0)
    return [ctx.op(Gather(batch_dims=ctx.attrs.int("batch_dims", 0)), ctx.input(0), ctx.input(1),
                   i64(ctx, axis, suffix="axis"), suffix="gather")]


@extractor("tflite", "GATHER_ND", produces=[GatherND])
def gather_nd(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, GatherND(batch_dims=0))


@extractor("tflite", "SQUEEZE", produces=[Squeeze])
def squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dims = ctx.attrs.ints("squeeze_dims", [])
    if not dims:
        shape = declared_shape(ctx, 0)
        if shape is None or None in shape:
            return [ctx.op(Squeeze(), ctx.input(0), suffix="squeeze")]
        dims = [i for i, d in enumerate(shape) if d == 1]
    return [ctx.op(Squeeze(), ctx.input(0), i64(ctx, dims, suffix="axes"), suffix="squeeze")]


@extractor("tflite", "EXPAND_DIMS", produces=[Unsqueeze])
def expand_dims(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Unsqueeze())


@extractor("tflite", "SHAPE", produces=[ShapeOf])
def shape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, ShapeOf(output_type=output_type(ctx)))


@extractor("tflite", "PACK", produces=[Unsqueeze, Concat])
def pack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = known_rank(ctx) + 1
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 0), rank)
    parts = [ctx.op(Unsqueeze(), ctx.input(i), i64(ctx, [axis], suffix="axis"), suffix=f"item{i}")
             for i in range(len(ctx.inputs))]
    return [ctx.op(Concat(axis=axis), *parts, suffix="pack")]


@extractor("tflite", "UNPACK", produces=[Split, Squeeze])
def unpack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = known_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 0), rank)
    count = ctx.attrs.int("num")
    split = ctx.add(Split(num_splits=count), [ctx.input(0), i64(ctx, axis, suffix="axis")], suffix="split")
    return [ctx.op(Squeeze(), split.out_port(i), i64(ctx, [axis], suffix="axes"), suffix=f"item{i}")
            for i in range(count)]


@extractor("tflite", "SPLIT", produces=[Split])
def split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: the axis, then the tensor."""
    count = ctx.attrs.int("num_splits")
    if count < 1:
        raise ctx.attrs.error("num_splits", "a count of parts of at least 1", str(count))
    parts = ctx.add(Split(num_splits=count), [ctx.input(1), ctx.input(0)], suffix="split")
    return [parts.out_port(i) for i in range(count)]


@extractor("tflite", "SPLIT_V", produces=[VariadicSplit])
def split_v(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = ctx.attrs.int("num_splits")
    parts = ctx.add(VariadicSplit(), [ctx.input(0), ctx.input(2), ctx.input(1)], suffix="split")
    return [parts.out_port(i) for i in range(count)]


@extractor("tflite", "TILE", produces=[Tile])
def tile(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Tile())


@extractor("tflite", "BROADCAST_TO", produces=[Broadcast])
def broadcast_to(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Broadcast(mode="numpy"))


@extractor("tflite", "CAST", produces=[Convert])
def cast(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Convert(destination_type=output_type(ctx)))


@extractor("tflite", "FILL", produces=[Broadcast])
def fill(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: dims, value."""
    return [ctx.op(Broadcast(mode="numpy"), ctx.input(1), ctx.input(0), suffix="fill")]


@extractor("tflite", "ZEROS_LIKE", produces=[Broadcast, ShapeOf])
def zeros_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    zero = ctx.const(np.zeros((), input_dtype(ctx, 0)), suffix="zero")
    return [ctx.op(Broadcast(mode="numpy"), zero, shape_of(ctx, ctx.input(0)), suffix="zeros")]


@extractor("tflite", "RANGE", produces=[Range])
def range_(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Range(output_type=output_type(ctx)))


def arg_extreme(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ARG_MAX / ARG_MIN: the index of a TopK of one along the axis at input 1."""
    mode = "max" if ctx.source_op.op_type == "ARG_MAX" else "min"
    rank = known_rank(ctx)
    axis = normalize_axis(ctx, int(input_scalar(ctx, 1, "the axis")), rank)
    top = ctx.add(TopK(axis=axis, mode=mode, sort="none", index_element_type=output_type(ctx)),
                  [ctx.input(0), i64(ctx, 1, suffix="k")], suffix="topk")
    return [ctx.op(Squeeze(), top.out_port(1), i64(ctx, [axis], suffix="axes"), suffix="index")]


ARG_EXTREMES = aliases("tflite", ["ARG_MAX", "ARG_MIN"], arg_extreme, produces=[TopK, Squeeze])


@extractor("tflite", "TOPK_V2", produces=[TopK])
def topk_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    top = ctx.add(TopK(axis=-1, mode="max", sort="value", index_element_type=output_type(ctx, 1), stable=True),
                  [ctx.input(0), ctx.input(1)], suffix="topk")
    return [top.out_port(0), top.out_port(1)]


@extractor("tflite", "CUMSUM", produces=[CumSum])
def cumsum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, CumSum(exclusive=ctx.attrs.bool("exclusive", False), reverse=ctx.attrs.bool("reverse", False)))


@extractor("tflite", "REVERSE_V2", produces=[Reverse])
def reverse_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return whole(ctx, Reverse(mode="index"))


@extractor("tflite", "DENSIFY", produces=[])
def densify(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A sparse constant made dense: the reader already made it dense."""
    return [ctx.input(0)]
