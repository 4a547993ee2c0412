"""Shape and data movement: reshape, concat, reductions, padding, transpose, slicing,
gathering, packing, splitting, casts and tensor creation."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import extractor, i64, input_constant, normalize_axis
from irconv.graph import Node, OutPort
from irconv.ops import Op
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
from irconv_opset.lowering.reduction import Reduction

from irconv_tflite.extractors import integer
from irconv_tflite.extractors._common import (
    declared_shape,
    fused_activation,
    input_dtype,
    is_complex,
    known_rank,
    output_type,
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


@extractor("tflite", "CONCATENATION", produces=[Concat])
def concatenation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = known_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis"), rank)
    inputs = [ctx.input(i) for i in range(len(ctx.inputs))]
    return [fused_activation(ctx, ctx.op(Concat(axis=axis), *inputs, suffix="concat"))]


def _reduce(kind: Reduction):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> object:
        return kind.make(ctx.attrs.bool("keep_dims", False))

    return extract


@extractor("tflite", "MEAN", produces=[Reduction.MEAN.op, *integer.INTEGER_OPS])
def mean(node: Node, ctx: ExtractContext) -> Op | list[OutPort]:
    """A full-integer MEAN as LiteRT computes it (``extractors.integer``), else ReduceMean."""
    keep = ctx.attrs.bool("keep_dims", False)
    axes = ctx.input_value(1)
    if axes is not None:
        rank = known_rank(ctx)
        exact = integer.mean(ctx, np.asarray(axes).reshape(-1) % rank, keep)
        if exact is not None:
            return [exact]
    return Reduction.MEAN.make(keep)
sum_ = extractor("tflite", "SUM", _reduce(Reduction.SUM), produces=[Reduction.SUM.op])
reduce_max = extractor("tflite", "REDUCE_MAX", _reduce(Reduction.MAX), produces=[Reduction.MAX.op])
reduce_min = extractor("tflite", "REDUCE_MIN", _reduce(Reduction.MIN), produces=[Reduction.MIN.op])
reduce_prod = extractor("tflite", "REDUCE_PROD", _reduce(Reduction.PROD), produces=[Reduction.PROD.op])
reduce_any = extractor("tflite", "REDUCE_ANY", _reduce(Reduction.ANY), produces=[Reduction.ANY.op])
reduce_all = extractor("tflite", "REDUCE_ALL", _reduce(Reduction.ALL), produces=[Reduction.ALL.op])


def _pad(mode: str | None):  # type: ignore[no-untyped-def]
    """PAD / PADV2 (constant, PADV2's value at input 2) and MIRROR_PAD; paddings [rank, 2]."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        pads = input_constant(ctx, 1, "the paddings").reshape(-1, 2).astype(np.int64)
        pad_mode = mode or ctx.attrs.choice("mode", ["REFLECT", "SYMMETRIC"]).lower()
        inputs = [ctx.input(0), i64(ctx, pads[:, 0], suffix="begin"), i64(ctx, pads[:, 1], suffix="end")]
        if pad_mode == "constant":
            inputs.append(ctx.input(2) if ctx.has_input(2) else ctx.const(np.zeros((), input_dtype(ctx, 0))))
        return [ctx.op(Pad(pad_mode=pad_mode), *inputs, suffix="pad")]

    return extract


pad = extractor("tflite", "PAD", _pad("constant"), produces=[Pad])
padv2 = extractor("tflite", "PADV2", _pad("constant"), produces=[Pad])
mirror_pad = extractor("tflite", "MIRROR_PAD", _pad(None), produces=[Pad])
transpose = extractor("tflite", "TRANSPOSE", lambda node, ctx: Transpose(), produces=[Transpose])


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


gather_nd = extractor("tflite", "GATHER_ND", lambda node, ctx: GatherND(batch_dims=0), produces=[GatherND])


@extractor("tflite", "SQUEEZE", produces=[Squeeze])
def squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dims = ctx.attrs.ints("squeeze_dims", [])
    if not dims:
        shape = declared_shape(ctx, 0)
        if shape is None or None in shape:
            return [ctx.op(Squeeze(), ctx.input(0), suffix="squeeze")]
        dims = [i for i, d in enumerate(shape) if d == 1]
    return [ctx.op(Squeeze(), ctx.input(0), i64(ctx, dims, suffix="axes"), suffix="squeeze")]


expand_dims = extractor("tflite", "EXPAND_DIMS", lambda node, ctx: Unsqueeze(), produces=[Unsqueeze])


@extractor("tflite", "SHAPE", produces=[ShapeOf])
def shape(node: Node, ctx: ExtractContext) -> ShapeOf:
    return ShapeOf(output_type=output_type(ctx))


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
    parts = ctx.add(Split(num_splits=count), [ctx.input(1), ctx.input(0)], suffix="split")
    return [parts.out_port(i) for i in range(count)]


@extractor("tflite", "SPLIT_V", produces=[VariadicSplit])
def split_v(node: Node, ctx: ExtractContext) -> list[OutPort]:
    count = ctx.attrs.int("num_splits")
    parts = ctx.add(VariadicSplit(), [ctx.input(0), ctx.input(2), ctx.input(1)], suffix="split")
    return [parts.out_port(i) for i in range(count)]


tile = extractor("tflite", "TILE", lambda node, ctx: Tile(), produces=[Tile])
broadcast_to = extractor("tflite", "BROADCAST_TO", lambda node, ctx: Broadcast(mode="numpy"), produces=[Broadcast])


@extractor("tflite", "CAST", produces=[Convert])
def cast(node: Node, ctx: ExtractContext) -> Convert:
    return Convert(destination_type=output_type(ctx))


@extractor("tflite", "FILL", produces=[Broadcast])
def fill(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: dims, value."""
    return [ctx.op(Broadcast(mode="numpy"), ctx.input(1), ctx.input(0), suffix="fill")]


@extractor("tflite", "ZEROS_LIKE", produces=[Broadcast, ShapeOf])
def zeros_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    zero = ctx.const(np.zeros((), input_dtype(ctx, 0)), suffix="zero")
    return [ctx.op(Broadcast(mode="numpy"), zero, shape_of(ctx, ctx.input(0)), suffix="zeros")]


@extractor("tflite", "RANGE", produces=[Range])
def range_(node: Node, ctx: ExtractContext) -> Range:
    return Range(output_type=output_type(ctx))


def _arg(mode: str):  # type: ignore[no-untyped-def]
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        rank = known_rank(ctx)
        axis = normalize_axis(ctx, int(input_constant(ctx, 1, "the axis").reshape(-1)[0]), rank)
        top = ctx.add(TopK(axis=axis, mode=mode, sort="none", index_element_type=output_type(ctx)),
                      [ctx.input(0), i64(ctx, 1, suffix="k")], suffix="topk")
        return [ctx.op(Squeeze(), top.out_port(1), i64(ctx, [axis], suffix="axes"), suffix="index")]

    return extract


arg_max = extractor("tflite", "ARG_MAX", _arg("max"), produces=[TopK, Squeeze])
arg_min = extractor("tflite", "ARG_MIN", _arg("min"), produces=[TopK, Squeeze])


@extractor("tflite", "TOPK_V2", produces=[TopK])
def topk_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    top = ctx.add(TopK(axis=-1, mode="max", sort="value", index_element_type=output_type(ctx, 1), stable=True),
                  [ctx.input(0), ctx.input(1)], suffix="topk")
    return [top.out_port(0), top.out_port(1)]


@extractor("tflite", "CUMSUM", produces=[CumSum])
def cumsum(node: Node, ctx: ExtractContext) -> CumSum:
    return CumSum(exclusive=ctx.attrs.bool("exclusive", False), reverse=ctx.attrs.bool("reverse", False))


reverse_v2 = extractor("tflite", "REVERSE_V2", lambda node, ctx: Reverse(mode="index"), produces=[Reverse])


@extractor("tflite", "DENSIFY", produces=[])
def densify(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A sparse constant made dense: the reader already made it dense."""
    return [ctx.input(0)]
