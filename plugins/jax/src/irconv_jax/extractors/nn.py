"""StableHLO's network ops: dot_general, convolution, reduce and reduce_window.

Each reads StableHLO's dimension numbers, which put batch, feature and spatial axes anywhere
(Flax's default is NHWC data and HWIO filters): operands are transposed into the opset's
order, the shared lowering builds the op, and the result is transposed into StableHLO's.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np
from irconv import ConversionError, ExtractContext
from irconv.errors import shortened
from irconv.frontend import extractor, i64, numpy_dtype
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Convert,
    Einsum,
    Gather,
    GatherElements,
    Multiply,
    ShapeOf,
    Slice,
    Squeeze,
    TopK,
    Transpose,
    Unsqueeze,
)
from irconv_opset.lowering.convolution import (
    CONVOLUTION_BACKPROP_OPS,
    CONVOLUTION_OPS,
    Window,
    convolution,
    convolution_backprop,
)
from irconv_opset.lowering.elementwise import Binary, binary
from irconv_opset.lowering.pooling import AVG_POOL_OPS, MAX_POOL_OPS, PoolWindow, avg_pool, max_pool
from irconv_opset.lowering.reduction import Reduction, reduce

from irconv_jax.program import HloOp

# A reducer region's one op: what the reduction computes, and how its init value combines.
_REDUCERS = {
    "stablehlo.add": (Reduction.SUM, Binary.ADD), "stablehlo.multiply": (Reduction.PROD, Binary.MULTIPLY),
    "stablehlo.maximum": (Reduction.MAX, Binary.MAXIMUM), "stablehlo.minimum": (Reduction.MIN, Binary.MINIMUM),
    "stablehlo.and": (Reduction.ALL, Binary.LOGICAL_AND), "stablehlo.or": (Reduction.ANY, Binary.LOGICAL_OR),
}

_REDUCE_OPS = tuple(kind.op for kind, _ in _REDUCERS.values())
_COMBINE_OPS = tuple(combine.op for _, combine in _REDUCERS.values())


def _permuted(ctx: ExtractContext, port: OutPort, order: Sequence[int], suffix: str) -> OutPort:
    if list(order) == list(range(len(order))):
        return port
    return ctx.op(Transpose(), port, i64(ctx, list(order), f"{suffix}_perm"), suffix=suffix)


def _numbers(ctx: ExtractContext, name: str) -> dict[str, Any]:
    numbers = ctx.attrs.required(name)
    if not isinstance(numbers, dict):
        raise ctx.attrs.bad(name, numbers, "expected StableHLO dimension numbers")
    return numbers


# ----------------------------------------------------------------------------- dot_general


def _einsum_equation(lhs_rank: int, rhs_rank: int, numbers: dict[str, Any]) -> str:
    """dot_general as an einsum: batch axes, then lhs free axes, then rhs free axes."""
    letters = iter(string.ascii_letters)
    lhs = [next(letters) for _ in range(lhs_rank)]
    rhs: list[str | None] = [None] * rhs_rank
    for left, right in zip(numbers["lhs_batching_dimensions"], numbers["rhs_batching_dimensions"], strict=True):
        rhs[right] = lhs[left]
    for left, right in zip(numbers["lhs_contracting_dimensions"], numbers["rhs_contracting_dimensions"], strict=True):
        rhs[right] = lhs[left]
    rhs_free = [axis for axis in range(rhs_rank) if rhs[axis] is None]
    for axis in rhs_free:
        rhs[axis] = next(letters)
    paired = set(numbers["lhs_batching_dimensions"]) | set(numbers["lhs_contracting_dimensions"])
    out = [lhs[a] for a in numbers["lhs_batching_dimensions"]]
    out += [lhs[a] for a in range(lhs_rank) if a not in paired] + [str(rhs[a]) for a in rhs_free]
    return f"{''.join(lhs)},{''.join(str(r) for r in rhs)}->{''.join(out)}"


@extractor("jax", "stablehlo.dot_general", produces=[Einsum])
def extract_dot_general(node: Node, ctx: ExtractContext) -> list[OutPort]:
    numbers = _numbers(ctx, "dot_dimension_numbers")
    lhs_rank, rhs_rank = ctx.input_rank(0), ctx.input_rank(1)
    if lhs_rank is None or rhs_rank is None:
        raise ConversionError(f"{ctx.where()}: dot_general needs operands of known rank")
    equation = _einsum_equation(lhs_rank, rhs_rank, numbers)
    return [ctx.op(Einsum(equation=equation), ctx.input(0), ctx.input(1))]


# ----------------------------------------------------------------------------- convolution


def _padding(ctx: ExtractContext, name: str, spatial: int) -> tuple[list[int], list[int]]:
    """StableHLO's ``[[low, high], ...]`` padding per spatial axis (zeros when absent)."""
    value = ctx.attrs.get(name, None)
    pads = np.zeros((spatial, 2), np.int64) if value is None else np.asarray(value, np.int64).reshape(spatial, 2)
    return [int(p) for p in pads[:, 0]], [int(p) for p in pads[:, 1]]


@extractor("jax", "stablehlo.convolution", produces=[*CONVOLUTION_OPS, *CONVOLUTION_BACKPROP_OPS, Transpose, Slice])
def extract_convolution(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Convolution; with ``lhs_dilation`` (jax.lax.conv_transpose, Flax's ConvTranspose) the
    transposed convolution it spells, ConvolutionBackpropData."""
    numbers = _numbers(ctx, "dimension_numbers")
    spatial = len(numbers["input_spatial_dimensions"])
    ones = [1] * spatial
    if ctx.attrs.int("batch_group_count", 1) != 1:
        raise ctx.attrs.bad("batch_group_count", ctx.attrs.int("batch_group_count"), "only 1 is supported")
    begin, end = _padding(ctx, "padding", spatial)
    strides = ctx.attrs.ints("window_strides", ones, length=spatial)
    dilations = ctx.attrs.ints("rhs_dilation", ones, length=spatial)
    data = _permuted(ctx, ctx.input(0), [numbers["input_batch_dimension"], numbers["input_feature_dimension"],
                                         *numbers["input_spatial_dimensions"]], "data")
    filters = _permuted(ctx, ctx.input(1), [numbers["kernel_output_feature_dimension"],
                                            numbers["kernel_input_feature_dimension"],
                                            *numbers["kernel_spatial_dimensions"]], "filters")
    groups = ctx.attrs.int("feature_group_count", 1)
    lhs_dilation = ctx.attrs.ints("lhs_dilation", ones, length=spatial)
    if lhs_dilation == ones:
        out = convolution(ctx, data, filters, Window.of(strides, dilations, begin, end), groups)
    else:
        kernel = ctx.input_shape(1)
        if strides != ones or groups != 1 or kernel is None or None in kernel:
            raise ConversionError(f"{ctx.where()}: a convolution with lhs_dilation is supported as a transposed "
                                  "convolution: unit window strides, one group, a kernel of known shape")
        sizes = [(int(kernel[a]) - 1) * d + 1 for a, d in zip(numbers["kernel_spatial_dimensions"], dilations,
                                                                 strict=True)]
        pads_begin = [k - 1 - p for k, p in zip(sizes, begin, strict=True)]
        # padding the high side beyond the kernel adds outputs: the op's output_padding
        extra = [k - 1 - p for k, p in zip(sizes, end, strict=True)]
        pads_end, output_padding = [max(e, 0) for e in extra], [max(-e, 0) for e in extra]
        if min(pads_begin) < 0 or any(o >= s for o, s in zip(output_padding, lhs_dilation, strict=True)):
            raise ConversionError(f"{ctx.where()}: a transposed convolution padded beyond its kernel "
                                  f"(padding {begin}, {end}, kernel {sizes}) is not supported")
        axes = list(range(2, 2 + spatial))
        flipped = ctx.op(Slice(), filters, i64(ctx, [-1] * spatial, "flip_start"),
                         i64(ctx, [-(2**63)] * spatial, "flip_stop"), i64(ctx, [-1] * spatial, "flip_step"),
                         i64(ctx, axes, "flip_axes"), suffix="flipped")
        weights = _permuted(ctx, flipped, [1, 0, *axes], "weights")
        out = convolution_backprop(ctx, data, weights, Window.of(lhs_dilation, dilations, pads_begin, pads_end),
                                   output_padding)
    layout = [numbers["output_batch_dimension"], numbers["output_feature_dimension"],
              *numbers["output_spatial_dimensions"]]
    return [_permuted(ctx, out, list(np.argsort(layout)), "output")]


# ----------------------------------------------------------------------------- reductions


def _reducer(ctx: ExtractContext) -> tuple[Reduction, Binary]:
    body = ctx.source_as(HloOp).body
    if len(body) != 1 or body[0] not in _REDUCERS:
        computed = shortened(" then ".join(body)) or "nothing"
        raise ConversionError(f"{ctx.where()}: a reducer computing {computed} is not supported "
                              f"(one of {', '.join(_REDUCERS)})")
    return _REDUCERS[body[0]]


def _is_identity(kind: Reduction, init: np.ndarray | None) -> bool:
    """Whether reducing from ``init`` is reducing without it (jax's usual init values)."""
    if init is None or init.size != 1:
        return False
    value = init.reshape(()).item()
    if kind is Reduction.SUM:
        return bool(value == 0)
    if kind is Reduction.PROD:
        return bool(value == 1)
    if kind in (Reduction.MAX, Reduction.MIN) and init.dtype.kind in "fiu":
        low, high = (-np.inf, np.inf) if init.dtype.kind == "f" else (np.iinfo(init.dtype).min, np.iinfo(init.dtype).max)
        return bool(value == (low if kind is Reduction.MAX else high))
    return kind in (Reduction.ALL, Reduction.ANY) and bool(value) == (kind is Reduction.ALL)


def _with_init(ctx: ExtractContext, kind: Reduction, combine: Binary, reduced: OutPort, init_index: int) -> OutPort:
    """``reduced`` combined with the init value unless that is the reduction's identity."""
    if _is_identity(kind, ctx.input_value(init_index)):
        return reduced
    return binary(ctx, combine, reduced, ctx.input(init_index), suffix="init")


@extractor("jax", "stablehlo.reduce", produces=[*_REDUCE_OPS, *_COMBINE_OPS, TopK, Squeeze, Convert])
def extract_reduce(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if len(node.in_ports()) == 4:
        return _arg_reduce(ctx)
    if len(node.in_ports()) != 2:
        raise ConversionError(f"{ctx.where()}: a reduce over several tensors at once is supported as argmax and "
                              "argmin only")
    kind, combine = _reducer(ctx)
    reduced = reduce(ctx, kind, ctx.input(0), i64(ctx, ctx.attrs.ints("dimensions"), "axes"), False, suffix="reduce")
    return [_with_init(ctx, kind, combine, reduced, 1)]


def _arg_reduce(ctx: ExtractContext) -> list[OutPort]:
    """jnp.argmax/argmin: a reduce of (values, iota along the axis) whose reducer keeps the
    greater (GT) or smaller (LT) value and, on ties, the lower index: a stable TopK of 1."""
    source = ctx.source_as(HloOp)
    axes = ctx.attrs.ints("dimensions")
    shape = ctx.input_shape(0)
    positions = ctx.input_value(1)
    directions = source.body_directions[:1]
    if (len(axes) != 1 or shape is None or positions is None or directions not in (("GT",), ("LT",))
            or not np.array_equal(positions, np.broadcast_to(np.arange(positions.shape[axes[0]]).reshape(
                [-1 if a == axes[0] else 1 for a in range(positions.ndim)]), positions.shape))):
        raise ConversionError(f"{ctx.where()}: a reduce over two tensors is supported as argmax or argmin over one "
                              "axis (values and their positions)")
    mode = "max" if directions == ("GT",) else "min"
    top = ctx.add(TopK(axis=axes[0], mode=mode, sort="value", index_element_type=ElementType.i64, stable=True),
                  [ctx.input(0), i64(ctx, 1, "k")], suffix="top")
    axis = i64(ctx, axes, "axis")
    values = ctx.op(Squeeze(), top.out_port(0), axis, suffix="values")
    indices = ctx.op(Squeeze(), top.out_port(1), axis, suffix="squeezed")
    return [values, ctx.op(Convert(destination_type=source.results[1].element_type), indices, suffix="indices")]


@extractor("jax", "stablehlo.reduce_window", produces=[*MAX_POOL_OPS, *AVG_POOL_OPS, Multiply, Transpose, Unsqueeze, Squeeze,
                                                     *_COMBINE_OPS])
def extract_reduce_window(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Max pooling (a maximum reducer) or sum pooling (an add reducer: average times the window
    size) over the axes the window moves on; the two other axes play N and C."""
    if len(node.in_ports()) != 2:
        raise ConversionError(f"{ctx.where()}: a reduce_window over several tensors at once is not supported")
    kind, combine = _reducer(ctx)
    rank = len(ctx.attrs.ints("window_dimensions"))
    sizes = ctx.attrs.ints("window_dimensions")
    strides = ctx.attrs.ints("window_strides", [1] * rank, length=rank)
    dilations = ctx.attrs.ints("window_dilations", [1] * rank, length=rank)
    if ctx.attrs.ints("base_dilations", [1] * rank, length=rank) != [1] * rank:
        raise ctx.attrs.bad("base_dilations", ctx.attrs.ints("base_dilations"), "only 1 is supported")
    begin, end = _padding(ctx, "padding", rank)
    pooled = [a for a in range(rank) if (sizes[a], strides[a], dilations[a], begin[a], end[a]) != (1, 1, 1, 0, 0)]
    kept = [a for a in range(rank) if a not in pooled]
    if len(kept) > 2 or not 1 <= len(pooled) <= 3 or kind not in (Reduction.MAX, Reduction.SUM):
        raise ConversionError(f"{ctx.where()}: reduce_window is supported as a 1-3-D max or sum pool with at most "
                              f"two axes outside the window (window {sizes}, reducer {kind.name.lower()})")
    order = kept + pooled
    x = _permuted(ctx, ctx.input(0), order, "data")
    # fewer than two axes outside the window (jnp.cumsum over a vector or matrix): size-1
    # axes play N and C
    missing = list(range(2 - len(kept)))
    if missing:
        x = ctx.op(Unsqueeze(), x, i64(ctx, missing, "nc_axes"), suffix="nc")
    pool = PoolWindow.of([sizes[a] for a in pooled], [strides[a] for a in pooled], [begin[a] for a in pooled],
                         [end[a] for a in pooled], dilations=[dilations[a] for a in pooled])
    if kind is Reduction.MAX:
        out = max_pool(ctx, x, pool, values_only=False, suffix="pool").out_port(0)
    else:
        if any(dilations[a] != 1 for a in pooled):
            raise ctx.attrs.bad("window_dilations", dilations, "a sum pool has no dilations here")
        average = avg_pool(ctx, x, pool, exclude_pad=False, suffix="pool")
        out = ctx.op(Multiply(), average, ctx.const(np.asarray(pool.size, numpy_dtype(ctx.input_type(0))), suffix="size"),
                     suffix="sum")
    if missing:
        out = ctx.op(Squeeze(), out, i64(ctx, missing, "nc_axes_out"), suffix="pooled")
    out = _permuted(ctx, out, list(np.argsort(order)), "output")
    return [_with_init(ctx, kind, combine, out, 1)]



@extractor("jax", "chlo.top_k", produces=[TopK])
def extract_top_k(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The ``k`` largest along the last axis, largest first, ties in index order, and their
    indices (``jax.lax.top_k``)."""
    index_type = ctx.source_as(HloOp).results[1].element_type
    top = ctx.add(TopK(axis=-1, mode="max", sort="value", index_element_type=index_type, stable=True),
                  [ctx.input(0), i64(ctx, ctx.attrs.int("k"), "k")])
    return [top.out_port(0), top.out_port(1)]


@extractor("jax", "stablehlo.sort", produces=[ShapeOf, Gather, TopK, GatherElements])
def extract_sort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """jnp.sort and jnp.argsort: the first operand ordered along ``dimension`` by a stable TopK
    of the whole axis (ascending for jax's LT comparator, descending for GT), the other
    operands (argsort's positions) rearranged alike. NaNs are not ordered as jax orders them."""
    orders = [d for d in ctx.source_as(HloOp).body_directions if d in ("LT", "GT", "LE", "GE")]
    if len(orders) != 1 or orders[0] in ("LE", "GE"):
        comparisons = shortened(", ".join(ctx.source_as(HloOp).body_directions)) or "none"
        raise ConversionError(f"{ctx.where()}: a sort is supported with one key and jax's comparator "
                              f"(comparisons {comparisons})")
    axis = ctx.attrs.int("dimension")
    keys = ctx.input(0)
    size = ctx.op(Gather(), ctx.op(ShapeOf(), keys, suffix="shape"), i64(ctx, axis, "axis_index"),
                  i64(ctx, 0, "gather_axis"), suffix="size")
    top = ctx.add(TopK(axis=axis, mode="min" if orders[0] == "LT" else "max", sort="value",
                       index_element_type=ElementType.i64, stable=True), [keys, size], suffix="top")
    followers = [ctx.op(GatherElements(axis=axis), ctx.input(i), top.out_port(1), suffix=f"operand{i}")
                 for i in range(1, len(node.in_ports()))]
    return [top.out_port(0), *followers]
