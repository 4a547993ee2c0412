"""Tensors made from sizes and values: full, full_like, arange, scalar_tensor, tril/triu,
and the indexing ops index/index_select/gather."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, extractor, i64, normalize_axis, require_rank, typed
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Gather,
    GatherElements,
    GatherND,
    GreaterEqual,
    LessEqual,
    NonZero,
    Range,
    Reshape,
    Select,
    ShapeOf,
    Subtract,
    Transpose,
    Unique,
    Unsqueeze,
)
from irconv_opset.build import shape_of

from irconv_torch.extractors._args import (
    TORCH_2_5,
    as_i64_port,
    cast,
    ints_or_port,
    optional,
    out_type,
    tensor,
    tensors,
)


def _fill(ctx: ExtractContext, shape: OutPort, name: str = "fill_value") -> OutPort:
    element_type = out_type(ctx)
    value = cast(ctx, tensor(ctx, name, element_type), element_type, suffix="value")
    return ctx.op(Broadcast(), value, shape, suffix="op")


def _constant_fill(ctx: ExtractContext, value: float, shape: OutPort) -> OutPort:
    return ctx.op(Broadcast(), typed(ctx, value, out_type(ctx), suffix="value"), shape, suffix="op")


def _size(ctx: ExtractContext) -> OutPort:
    return as_i64_port(ctx, ints_or_port(ctx, "size"), "size")


def _shape_of_self(ctx: ExtractContext) -> OutPort:
    return shape_of(ctx, tensor(ctx, "self"))


def full(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_fill(ctx, _size(ctx))]


@extractor("torch", "aten.full_like.default", versions=TORCH_2_5, produces=[Broadcast, ShapeOf, Convert])
def full_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_fill(ctx, _shape_of_self(ctx))]


def fill(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``x.fill_(v)``, read as a new value of ``x`` (``irconv_torch.program.in_place_as_value``)."""
    return [_fill(ctx, _shape_of_self(ctx), "value")]


def zeros(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Zeros, also for the values torch leaves undefined (``empty``)."""
    return [_constant_fill(ctx, 0, _size(ctx))]


def ones(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_constant_fill(ctx, 1, _size(ctx))]


def zeros_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_constant_fill(ctx, 0, _shape_of_self(ctx))]


@extractor("torch", "aten.ones_like.default", versions=TORCH_2_5, produces=[Broadcast, ShapeOf])
def ones_like(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_constant_fill(ctx, 1, _shape_of_self(ctx))]


fulls = aliases("torch", ["aten.full.default", "aten.new_full.default"], full, versions=TORCH_2_5,
                produces=[Broadcast, Convert])
fills = aliases("torch", ["aten.fill.Scalar", "aten.fill.Tensor"], fill, versions=TORCH_2_5,
                produces=[Broadcast, ShapeOf, Convert])
zeroses = aliases("torch", ["aten.zeros.default", "aten.new_zeros.default", "aten.empty.memory_format",
                            "aten.new_empty.default"], zeros, versions=TORCH_2_5, produces=[Broadcast, Convert])
oneses = aliases("torch", ["aten.ones.default", "aten.new_ones.default"], ones, versions=TORCH_2_5,
                 produces=[Broadcast, Convert])
zeros_likes = aliases("torch", ["aten.zeros_like.default", "aten.empty_like.default"], zeros_like, versions=TORCH_2_5,
                      produces=[Broadcast, ShapeOf])


@extractor("torch", "aten.meshgrid.indexing", versions=TORCH_2_5, produces=[Reshape, ShapeOf, Concat, Broadcast])
def meshgrid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """One tensor per 1-D input, each broadcast along every other input's axis: the axes
    follow the inputs (``ij``), the first two swapped for ``xy`` (Cartesian)."""
    inputs = [port for port in tensors(ctx, "tensors") if port is not None]
    order = list(range(len(inputs)))
    if ctx.attrs.choice("indexing", ["ij", "xy"], "ij") == "xy" and len(inputs) > 1:
        order[0], order[1] = 1, 0
    flat = [ctx.op(Reshape(special_zero=False), port, i64(ctx, [-1], suffix=f"flat{i}_shape"), suffix=f"flat{i}")
            for i, port in enumerate(inputs)]
    shape = ctx.add(Concat(axis=0), [shape_of(ctx, flat[i], suffix=f"size{i}") for i in order],
                    suffix="shape").out_port(0)
    grids = []
    for i, port in enumerate(flat):
        axes = [1] * len(inputs)
        axes[order.index(i)] = -1
        column = ctx.op(Reshape(special_zero=False), port, i64(ctx, axes, suffix=f"axis{i}_shape"), suffix=f"axis{i}")
        grids.append(ctx.op(Broadcast(), column, shape, suffix=f"grid{i}"))
    return grids


@extractor("torch", "aten.scalar_tensor.default", versions=TORCH_2_5, produces=[Convert])
def scalar_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [cast(ctx, tensor(ctx, "s"), out_type(ctx))]


def _scalar(ctx: ExtractContext, name: str, default: float | None, element_type: ElementType) -> OutPort:
    port = optional(ctx, name, element_type)
    if port is None:
        port = typed(ctx, default, element_type, suffix=name)
    port = cast(ctx, port, element_type, suffix=f"{name}_convert")
    if port.data.shape not in ((), None):
        port = ctx.op(Reshape(special_zero=False), port, i64(ctx, []), suffix=f"{name}_scalar")
    return port


def arange(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    start = _scalar(ctx, "start", 0, element_type)
    end = _scalar(ctx, "end", None, element_type)
    step = _scalar(ctx, "step", 1, element_type)
    return [ctx.op(Range(output_type=element_type), start, end, step, suffix="op")]


aranges = aliases("torch", ["aten.arange.default", "aten.arange.start", "aten.arange.start_step"], arange,
                  versions=TORCH_2_5, produces=[Range, Convert, Reshape])

#: What keeping a triangle builds, besides its comparison.
_TRIANGLE_OPS: tuple[type[Op], ...] = (ShapeOf, Gather, Range, Unsqueeze, Subtract, Select)


def _triangle(ctx: ExtractContext, *, lower: bool) -> list[OutPort]:
    """Keeps ``col - row <= diagonal`` (tril) or ``>= diagonal`` (triu) of the last two dims."""
    data = tensor(ctx, "self")
    shape = shape_of(ctx, data)
    rows = ctx.op(Gather(), shape, i64(ctx, -2), i64(ctx, 0), suffix="rows")
    cols = ctx.op(Gather(), shape, i64(ctx, -1), i64(ctx, 0), suffix="cols")
    row_ids = ctx.op(Unsqueeze(), ctx.op(Range(), i64(ctx, 0), rows, i64(ctx, 1), suffix="row_ids"), i64(ctx, [1]))
    col_ids = ctx.op(Range(), i64(ctx, 0), cols, i64(ctx, 1), suffix="col_ids")
    offset = ctx.op(Subtract(), col_ids, row_ids, suffix="offset")
    diagonal = i64(ctx, ctx.attrs.int("diagonal", 0), suffix="diagonal")
    keep = ctx.op(LessEqual() if lower else GreaterEqual(), offset, diagonal, suffix="keep")
    zero = ctx.const(np.zeros((), data.data.element_type.numpy), suffix="zero")
    return [ctx.op(Select(), keep, data, zero, suffix="op")]


@extractor("torch", "aten.tril.default", versions=TORCH_2_5, produces=[*_TRIANGLE_OPS, LessEqual])
def tril(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _triangle(ctx, lower=True)


@extractor("torch", "aten.triu.default", versions=TORCH_2_5, produces=[*_TRIANGLE_OPS, GreaterEqual])
def triu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _triangle(ctx, lower=False)


@extractor("torch", "aten.index_select.default", versions=TORCH_2_5, produces=[Gather])
def index_select(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))
    return [ctx.op(Gather(), tensor(ctx, "self"), tensor(ctx, "index"), i64(ctx, axis), suffix="op")]


@extractor("torch", "aten.gather.default", versions=TORCH_2_5, produces=[GatherElements])
def gather(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))
    return [ctx.op(GatherElements(axis=axis), tensor(ctx, "self"), tensor(ctx, "index"), suffix="op")]


@extractor("torch", "aten.index.Tensor", versions=TORCH_2_5,
           produces=[Gather, GatherND, Transpose, Broadcast, NonZero, Convert, Add, ShapeOf, Concat, Unsqueeze])
def index(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``x[i0, i1, ...]`` with index tensors (None keeps an axis). One index is a Gather;
    several are broadcast together and stacked for a GatherND over the indexed axes moved to
    the front. As in NumPy, the broadcast index dims replace the indexed axes when those are
    adjacent, and lead the result otherwise. A boolean mask over ``k`` axes is the ``k``
    integer indices of its True elements (NonZero), so its length depends on the values."""
    data = tensor(ctx, "self")
    rank = require_rank(ctx, 0)
    given = integer_indices(ctx, tensors(ctx, "indices"))
    if len(given) == 1:
        axis, port = given[0]
        return [ctx.op(Gather(), data, port, i64(ctx, axis), suffix="op")]
    axes = [axis for axis, _ in given]
    ports = [cast(ctx, port, ElementType.i64, suffix=f"index{i}") for i, (_, port) in enumerate(given)]
    common = ports[0]
    for i, port in enumerate(ports[1:]):
        common = ctx.op(Add(), common, port, suffix=f"broadcast{i}")
    shape = shape_of(ctx, common, suffix="index_shape")
    stacked = ctx.add(Concat(axis=-1), [
        ctx.op(Unsqueeze(), ctx.op(Broadcast(), p, shape, suffix=f"full{i}"), i64(ctx, [-1]), suffix=f"last{i}")
        for i, p in enumerate(ports)], suffix="indices").out_port(0)
    rest = [a for a in range(rank) if a not in axes]
    front = ctx.op(Transpose(), data, i64(ctx, axes + rest, suffix="front_order"), suffix="front")
    gathered = ctx.op(GatherND(batch_dims=0), front, stacked, suffix="op")
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    if not adjacent or axes[0] == 0:
        return [gathered]
    if common.data.shape is None:
        raise ConversionError(f"{ctx.where()}: the rank of the index tensors is unknown")
    index_rank = len(common.data.shape)
    first = axes[0]
    order = [index_rank + i for i in range(first)] + list(range(index_rank)) + \
        [index_rank + i for i in range(first, len(rest))]
    return [ctx.op(Transpose(), gathered, i64(ctx, order, suffix="back_order"), suffix="back")]


def integer_indices(ctx: ExtractContext, indices: list[OutPort | None]) -> list[tuple[int, OutPort]]:
    """``(axis, integer index)`` for each index given; a boolean mask of rank ``k`` covers
    ``k`` axes and gives one index per axis (the rows of its NonZero)."""
    found: list[tuple[int, OutPort]] = []
    axis = 0
    for number, port in enumerate(indices):
        if port is None:
            axis += 1
        elif port.data.element_type in (ElementType.boolean, ElementType.u8):
            shape = port.data.shape
            if shape is None:
                raise ConversionError(f"{ctx.where()}: the rank of boolean index {number} is unknown")
            rows = _nonzero_rows(ctx, port, suffix=f"mask{number}")
            for row in range(len(shape)):
                found.append((axis, ctx.op(Gather(), rows, i64(ctx, row), i64(ctx, 0), suffix=f"mask{number}_{row}")))
                axis += 1
        else:
            found.append((axis, port))
            axis += 1
    return found


def _nonzero_rows(ctx: ExtractContext, mask: OutPort, suffix: str) -> OutPort:
    """NonZero of ``mask``: ``[rank, count]`` i64 coordinates, ``count`` known at run time."""
    return ctx.op(NonZero(output_type=ElementType.i64), mask, suffix=suffix)


@extractor("torch", "aten.nonzero.default", versions=TORCH_2_5, produces=[NonZero, Transpose])
def nonzero(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The coordinates of the non-zero elements, one row each (``[count, rank]``)."""
    rows = _nonzero_rows(ctx, tensor(ctx, "self"), suffix="coordinates")
    return [ctx.op(Transpose(), rows, i64(ctx, [1, 0], suffix="order"), suffix="op")]


@extractor("torch", "aten.masked_select.default", versions=TORCH_2_5,
           produces=[NonZero, GatherND, Broadcast, Convert, Select, Add, ShapeOf, Transpose])
def masked_select(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The elements of ``self`` where ``mask`` (both broadcast together) is True, flat."""
    data, mask = tensor(ctx, "self"), tensor(ctx, "mask")
    mask = cast(ctx, mask, ElementType.boolean, suffix="mask")
    zero = ctx.const(np.zeros((), data.data.element_type.numpy), suffix="zero")
    shape = shape_of(ctx, ctx.op(Add(), ctx.op(Select(), mask, zero, zero, suffix="mask_shape"), data,
                                 suffix="common"), suffix="shape")
    full_mask = ctx.op(Broadcast(), mask, shape, suffix="full_mask")
    coordinates = ctx.op(Transpose(), _nonzero_rows(ctx, full_mask, suffix="coordinates"), i64(ctx, [1, 0]),
                         suffix="rows")
    return [ctx.op(GatherND(batch_dims=0), ctx.op(Broadcast(), data, shape, suffix="full"), coordinates,
                   suffix="op")]


@extractor("torch", "aten._unique2.default", versions=TORCH_2_5, produces=[Unique, Reshape, ShapeOf])
def unique(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The distinct values of the flattened ``self`` (sorted ascending, as torch's CPU
    kernel gives them whether or not ``sorted`` is asked), the index of each element's value
    among them (``self``'s shape) and each value's count."""
    data = tensor(ctx, "self")
    found = ctx.add(Unique(sorted=True, index_element_type=ElementType.i64, count_element_type=ElementType.i64),
                    [data], suffix="op")
    inverse = ctx.op(Reshape(special_zero=False), found.out_port(2), shape_of(ctx, data), suffix="inverse")
    return [found.out_port(0), inverse, found.out_port(3)]
