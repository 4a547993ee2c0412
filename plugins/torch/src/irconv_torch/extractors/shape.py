"""Shape and layout ops: view, permute, unsqueeze/squeeze, expand, cat/stack, slice/select,
split, flatten, padding, repeat, flip, type conversion."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, extractor, i64, normalize_axes, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    DepthToSpace,
    Gather,
    Maximum,
    Pad,
    Range,
    Reshape,
    Roll,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    Tile,
    Transpose,
    Unsqueeze,
    VariadicSplit,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.repeat import REPEAT_ELEMENTS_OPS, repeat_elements

from irconv_torch.attributes import FxNode
from irconv_torch.extractors._args import (
    TORCH_2_5,
    as_i64_port,
    cast,
    int_or_port,
    ints_or_port,
    is_input,
    out_type,
    tensor,
    tensors,
)

_INT64_MAX = int(np.iinfo(np.int64).max)


def _self(ctx: ExtractContext) -> OutPort:
    return tensor(ctx, "self")


def _reshape(ctx: ExtractContext, argument: str) -> list[OutPort]:
    """Reshape to the sizes of ``argument`` (``-1`` infers one dimension; symbolic sizes
    computed in the IR)."""
    size = as_i64_port(ctx, ints_or_port(ctx, argument), suffix="size")
    return [ctx.op(Reshape(special_zero=False), _self(ctx), size, suffix="op")]


def view(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _reshape(ctx, "size")


@extractor("torch", "aten.reshape.default", versions=TORCH_2_5, produces=[Reshape, Convert])
def reshape(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _reshape(ctx, "shape")


views = aliases("torch", ["aten.view.default", "aten._unsafe_view.default"], view, versions=TORCH_2_5,
                produces=[Reshape, Convert])


@extractor("torch", "aten.flatten.using_ints", versions=TORCH_2_5, produces=[Reshape, ShapeOf, Concat, Slice])
def flatten(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = _self(ctx)
    rank = require_rank(ctx, 0)
    if rank == 0:
        return [ctx.op(Reshape(special_zero=False), data, i64(ctx, [1]), suffix="op")]
    start = normalize_axis(ctx, ctx.attrs.int("start_dim", 0), rank)
    end = normalize_axis(ctx, ctx.attrs.int("end_dim", -1), rank)
    # zeros copy the leading dims (special_zero), -1 takes the flattened span
    target = [0] * start + [-1]
    shape = shape_of(ctx, data)
    tail = ctx.op(Slice(), shape, i64(ctx, [end + 1]), i64(ctx, [_INT64_MAX]), i64(ctx, [1]), suffix="tail")
    full = ctx.op(Concat(axis=0), i64(ctx, target), tail, suffix="target")
    return [ctx.op(Reshape(special_zero=True), data, full, suffix="op")]


@extractor("torch", "aten.permute.default", versions=TORCH_2_5, produces=[Transpose])
def permute(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = require_rank(ctx, 0)
    order = normalize_axes(ctx, ctx.attrs.ints("dims"), rank)
    return [ctx.op(Transpose(), _self(ctx), i64(ctx, order, suffix="order"), suffix="op")]


@extractor("torch", "aten.transpose.int", versions=TORCH_2_5, produces=[Transpose])
def transpose(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = require_rank(ctx, 0)
    first, second = (normalize_axis(ctx, ctx.attrs.int(n), rank) for n in ("dim0", "dim1"))
    order = list(range(rank))
    order[first], order[second] = order[second], order[first]
    return [ctx.op(Transpose(), _self(ctx), i64(ctx, order, suffix="order"), suffix="op")]


@extractor("torch", "aten.t.default", versions=TORCH_2_5, produces=[Transpose])
def t(node: Node, ctx: ExtractContext) -> list[OutPort]:
    order = list(range(require_rank(ctx, 0)))[::-1]
    return [ctx.op(Transpose(), _self(ctx), i64(ctx, order, suffix="order"), suffix="op")]


#: ``Tensor.T`` (every dim reversed, any rank: Falcon's ALiBi slopes) reads as ``t``.
numpy_transposes = aliases("torch", ["aten.numpy_T.default"], t, versions=TORCH_2_5, produces=[Transpose])


@extractor("torch", "aten.unsqueeze.default", versions=TORCH_2_5, produces=[Unsqueeze])
def unsqueeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0) + 1)
    return [ctx.op(Unsqueeze(), _self(ctx), i64(ctx, [axis], suffix="axis"), suffix="op")]


def squeeze_dims(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Squeezes the listed dims that are 1; torch leaves the others. Whether a dim of symbolic
    size went is read from the rank torch traced (``allow_axis_skip`` only where that cannot tell)."""
    rank = require_rank(ctx, 0)
    if rank == 0:
        return [_self(ctx)]
    listed = normalize_axes(ctx, ctx.attrs.ints("dim"), rank)
    return _squeezed(ctx, rank, sorted(set(listed)))


squeezes_dims = aliases("torch", ["aten.squeeze.dims", "aten.squeeze.dim"], squeeze_dims, versions=TORCH_2_5,
                        produces=[Squeeze])


@extractor("torch", "aten.squeeze.default", versions=TORCH_2_5, produces=[Squeeze])
def squeeze(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = require_rank(ctx, 0)
    return _squeezed(ctx, rank, list(range(rank)))


def _squeezed(ctx: ExtractContext, rank: int, listed: list[int]) -> list[OutPort]:
    """Squeeze of the ``listed`` axes that are 1. Static sizes decide for themselves; for the
    axes of symbolic size torch's traced output rank says whether all of them went or none."""
    shape = ctx.input_shape(0) or (None,) * rank
    ones = [a for a in listed if shape[a] == 1]
    symbolic = [a for a in listed if shape[a] is None]
    ranks = ctx.source_as(FxNode).output_ranks
    traced = ranks[0] if ranks else None
    if symbolic and traced == rank - len(ones):
        symbolic = []  # torch kept them (it traces a symbolic size as not 1)
    elif symbolic and traced == rank - len(ones) - len(symbolic):
        ones, symbolic = sorted(ones + symbolic), []
    axes = sorted(ones + symbolic)
    if not axes:
        return [_self(ctx)]
    return [ctx.op(Squeeze(allow_axis_skip=bool(symbolic)), _self(ctx), i64(ctx, axes, suffix="axes"), suffix="op")]


def expand(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``-1`` keeps a dimension: bidirectional broadcasting to 1 there does the same. In a
    size computed at run time the -1s are the literal elements (a computed one is a dim,
    never negative): only they are raised to 1, so the target's other elements stay the dims
    they are, which shape inference can follow."""
    size = ints_or_port(ctx, "size")
    if isinstance(size, list):
        target = i64(ctx, [1 if s == -1 else s for s in size], suffix="size")
    else:
        literals = ctx.source_as(FxNode).list_literals.get("size")
        lowest = np.iinfo(np.int64).min
        floor = [1 if v == -1 else lowest for v in literals] if literals is not None else 1
        target = ctx.op(Maximum(), cast(ctx, size, ElementType.i64, "size_i64"), i64(ctx, floor), suffix="size")
    return [ctx.op(Broadcast(mode="bidirectional"), _self(ctx), target, suffix="op")]


expands = aliases("torch", ["aten.expand.default", "aten.broadcast_to.default"], expand, versions=TORCH_2_5,
                  produces=[Broadcast, Maximum, Convert])


@extractor("torch", "aten.expand_as.default", versions=TORCH_2_5, produces=[Broadcast, ShapeOf])
def expand_as(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Broadcast(), _self(ctx), shape_of(ctx, tensor(ctx, "other")), suffix="op")]


@extractor("torch", "aten.reshape_as.default", versions=TORCH_2_5, produces=[Reshape, ShapeOf])
def reshape_as(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Reshape(special_zero=False), _self(ctx), shape_of(ctx, tensor(ctx, "other")), suffix="op")]


@extractor("torch", "aten.cat.default", versions=TORCH_2_5, produces=[Concat, Convert])
def cat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Concat in the result's type; empty 1-D tensors (torch skips them) are left out."""
    element_type = out_type(ctx)
    parts = [p for p in tensors(ctx, "tensors") if p is not None and p.data.shape != (0,)]
    rank = next((len(p.data.shape) for p in parts if p.data.shape is not None), None)
    if rank is None:
        raise ConversionError(f"{ctx.where()}: the rank of the concatenated tensors is unknown")
    axis = normalize_axis(ctx, ctx.attrs.int("dim", 0), rank)
    parts = [cast(ctx, p, element_type, suffix=f"convert{i}") for i, p in enumerate(parts)]
    return [ctx.add(Concat(axis=axis), parts, suffix="op").out_port(0)]


@extractor("torch", "aten.stack.default", versions=TORCH_2_5, produces=[Concat, Unsqueeze, Convert])
def stack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    element_type = out_type(ctx)
    parts = [p for p in tensors(ctx, "tensors") if p is not None]
    shape = parts[0].data.shape
    if shape is None:
        raise ConversionError(f"{ctx.where()}: the rank of the stacked tensors is unknown")
    axis = normalize_axis(ctx, ctx.attrs.int("dim", 0), len(shape) + 1)
    lifted = [ctx.op(Unsqueeze(), cast(ctx, p, element_type, f"convert{i}"), i64(ctx, [axis]), suffix=f"part{i}")
              for i, p in enumerate(parts)]
    return [ctx.add(Concat(axis=axis), lifted, suffix="op").out_port(0)]


def _bound(ctx: ExtractContext, name: str, default: int) -> OutPort:
    value = int_or_port(ctx, name, default)
    if isinstance(value, OutPort):
        return ctx.op(Reshape(special_zero=False), cast(ctx, value, ElementType.i64, f"{name}_i64"), i64(ctx, [1]),
                      suffix=name)
    return i64(ctx, [min(int(value), _INT64_MAX)], suffix=name)


@extractor("torch", "aten.slice.Tensor", versions=TORCH_2_5, produces=[Slice, Reshape, Convert])
def slice_tensor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim", 0), require_rank(ctx, 0))
    start, end = _bound(ctx, "start", 0), _bound(ctx, "end", _INT64_MAX)
    step = ctx.attrs.int("step", 1)
    return [ctx.op(Slice(), _self(ctx), start, end, i64(ctx, [step]), i64(ctx, [axis], suffix="axis"), suffix="op")]


@extractor("torch", "aten.select.int", versions=TORCH_2_5, produces=[Gather, Convert])
def select(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))
    index = int_or_port(ctx, "index")
    index_port = cast(ctx, index, ElementType.i64, "index_i64") if isinstance(index, OutPort) else i64(ctx, index)
    return [ctx.op(Gather(), _self(ctx), index_port, i64(ctx, axis, suffix="axis"), suffix="op")]


def _split(ctx: ExtractContext, sizes: list[int] | None, size: int | None) -> list[OutPort]:
    data = _self(ctx)
    rank = require_rank(ctx, 0)
    axis = normalize_axis(ctx, ctx.attrs.int("dim", 0), rank)
    count = len(ctx.source_as(FxNode).output_types)
    if sizes is None:
        assert size is not None
        sizes = [size] * (count - 1) + [-1]
    node = ctx.add(VariadicSplit(), [data, i64(ctx, axis, suffix="axis"), i64(ctx, sizes, suffix="sizes")],
                   suffix="op")
    return [node.out_port(i) for i in range(count)]


@extractor("torch", "aten.chunk.default", versions=TORCH_2_5, produces=[VariadicSplit])
def chunk(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Pieces of ``ceil(length / chunks)`` along ``dim``, the last one shorter (torch gives
    fewer pieces when they run out: the program records how many)."""
    axis = normalize_axis(ctx, ctx.attrs.int("dim", 0), require_rank(ctx, 0))
    shape = _self(ctx).data.shape
    length = None if shape is None else shape[axis]
    if length is None:
        raise ConversionError(f"{ctx.where()}: chunk along dimension {axis}, whose length is not known")
    chunks = ctx.attrs.int("chunks")
    return _split(ctx, None, -(-length // chunks))


@extractor("torch", "aten.split.Tensor", versions=TORCH_2_5, produces=[VariadicSplit])
def split(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _split(ctx, None, ctx.attrs.int("split_size"))


@extractor("torch", "aten.split_with_sizes.default", versions=TORCH_2_5, produces=[VariadicSplit])
def split_with_sizes(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _split(ctx, ctx.attrs.ints("split_sizes"), None)


@extractor("torch", "aten.unbind.int", versions=TORCH_2_5, produces=[VariadicSplit, Squeeze])
def unbind(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim", 0), require_rank(ctx, 0))
    parts = _split(ctx, [1] * len(ctx.source_as(FxNode).output_types), None)
    return [ctx.op(Squeeze(), p, i64(ctx, [axis]), suffix=f"item{i}") for i, p in enumerate(parts)]


@extractor("torch", "aten.unfold.default", versions=TORCH_2_5,
           produces=[Add, Gather, Range, Reshape, ShapeOf, Subtract, Transpose, Unsqueeze])
def unfold(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``x.unfold(dimension, size, step)``: the windows ``x[..., i*step : i*step+size, ...]``
    stacked along ``dimension``, each window's elements on a new last axis. One Gather of
    ``starts[:, None] + arange(size)``; the starts are computed from the length, so a
    dynamic length stays dynamic (and a static one folds)."""
    data, size, step = _self(ctx), ctx.attrs.int("size"), ctx.attrs.int("step")
    rank = require_rank(ctx, 0)
    if rank == 0:  # torch views a scalar as one element
        data, rank = ctx.op(Reshape(special_zero=False), data, i64(ctx, [1]), suffix="as_1d"), 1
    axis = normalize_axis(ctx, ctx.attrs.int("dimension"), rank)
    length = ctx.op(Gather(), shape_of(ctx, data), i64(ctx, axis), i64(ctx, 0), suffix="length")
    end = ctx.op(Add(), ctx.op(Subtract(), length, i64(ctx, size), suffix="last_start"), i64(ctx, 1), suffix="end")
    starts = ctx.op(Range(), i64(ctx, 0), end, i64(ctx, step), suffix="starts")
    windows = ctx.op(Add(), ctx.op(Unsqueeze(), starts, i64(ctx, [1]), suffix="starts_column"),
                     i64(ctx, list(range(size))), suffix="windows")
    gathered = ctx.op(Gather(), data, windows, i64(ctx, axis), suffix="gather")
    order = [*range(axis + 1), *range(axis + 2, rank + 1), axis + 1]
    return [ctx.op(Transpose(), gathered, i64(ctx, order, suffix="order"), suffix="op")]


@extractor("torch", "aten.copy.default", versions=TORCH_2_5, produces=[Broadcast, ShapeOf, Convert])
def copy(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``self`` overwritten by ``src``: ``src`` broadcast to ``self``'s shape, in its dtype."""
    source = cast(ctx, tensor(ctx, "src"), out_type(ctx), suffix="src")
    return [ctx.op(Broadcast(), source, shape_of(ctx, _self(ctx)), suffix="op")]


def identity(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The first argument as it is (``self``, or ``input`` for dropout, which is inference's
    identity)."""
    return [tensor(ctx, "input" if is_input(ctx, "input") else "self")]


identities = aliases("torch", ["aten.clone.default", "aten.alias.default", "aten.contiguous.default",
                               "aten.detach.default", "aten.lift_fresh_copy.default", "aten.dropout.default",
                               "aten.detach_.default"], identity, versions=TORCH_2_5, produces=[])


def _to_type(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A copy, maybe to another dtype (device and layout do not matter to the IR)."""
    return [cast(ctx, _self(ctx), out_type(ctx), suffix="op")]


to_copy = aliases("torch", ["aten._to_copy.default", "aten.to.dtype", "aten.to.device", "aten.to.dtype_layout",
                            "aten.to.other", "aten.type_as.default"], _to_type, versions=TORCH_2_5,
                  produces=[Convert])


@extractor("torch", "aten.constant_pad_nd.default", versions=TORCH_2_5, produces=[Pad, Convert])
def constant_pad(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``pad`` lists (begin, end) pairs from the last dimension backwards."""
    rank = require_rank(ctx, 0)
    pads = ctx.attrs.ints("pad")
    begin, end = [0] * rank, [0] * rank
    for index in range(len(pads) // 2):
        begin[rank - 1 - index], end[rank - 1 - index] = pads[2 * index], pads[2 * index + 1]
    data = _self(ctx)
    value = tensor(ctx, "value", data.data.element_type) if ctx.attrs.get("value") is not None else \
        ctx.const(np.zeros((), data.data.element_type.numpy))
    value = cast(ctx, value, data.data.element_type, suffix="value_convert")
    return [ctx.op(Pad(pad_mode="constant"), data, i64(ctx, begin, "begin"), i64(ctx, end, "end"), value, suffix="op")]


@extractor("torch", "aten.repeat.default", versions=TORCH_2_5, produces=[Tile, Unsqueeze])
def repeat(node: Node, ctx: ExtractContext) -> list[OutPort]:
    repeats = ctx.attrs.ints("repeats")
    data = _self(ctx)
    rank = require_rank(ctx, 0)
    if len(repeats) > rank:
        data = ctx.op(Unsqueeze(), data, i64(ctx, list(range(len(repeats) - rank))), suffix="lifted")
    return [ctx.op(Tile(), data, i64(ctx, repeats, suffix="repeats"), suffix="op")]


@extractor("torch", "aten.repeat_interleave.self_int", versions=TORCH_2_5, produces=[*REPEAT_ELEMENTS_OPS, Convert])
def repeat_interleave(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Each element ``repeats`` times in a row along ``dim`` (mixture-of-experts layers repeat
    each token once per chosen expert)."""
    repeats = int_or_port(ctx, "repeats")
    if isinstance(repeats, OutPort):
        repeats = cast(ctx, repeats, ElementType.i64, suffix="repeats_i64")
    dim = ctx.attrs.get("dim")
    return [repeat_elements(ctx, _self(ctx), repeats, None if dim is None else int(dim))]


@extractor("torch", "aten.flip.default", versions=TORCH_2_5, produces=[Slice])
def flip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = normalize_axes(ctx, ctx.attrs.ints("dims"), require_rank(ctx, 0))
    count = len(axes)
    return [ctx.op(Slice(), _self(ctx), i64(ctx, [-1] * count), i64(ctx, [-_INT64_MAX - 1] * count),
                   i64(ctx, [-1] * count), i64(ctx, axes), suffix="op")]


@extractor("torch", "aten.roll.default", versions=TORCH_2_5, produces=[Roll, Reshape, ShapeOf])
def roll(node: Node, ctx: ExtractContext) -> list[OutPort]:
    shifts, dims = ctx.attrs.ints("shifts"), ctx.attrs.ints("dims", [])
    data = _self(ctx)
    if not dims:  # the flattened tensor rolls, then takes its shape back
        flat = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1]), suffix="flat")
        rolled = ctx.op(Roll(), flat, i64(ctx, shifts), i64(ctx, [0]), suffix="op")
        return [ctx.op(Reshape(special_zero=False), rolled, shape_of(ctx, data), suffix="unflat")]
    return [ctx.op(Roll(), data, i64(ctx, shifts), i64(ctx, dims), suffix="op")]


@extractor("torch", "aten.pixel_shuffle.default", versions=TORCH_2_5, produces=[DepthToSpace])
def pixel_shuffle(node: Node, ctx: ExtractContext) -> list[OutPort]:
    factor = ctx.attrs.int("upscale_factor")
    return [ctx.op(DepthToSpace(block_size=factor, mode="depth_first"), _self(ctx), suffix="op")]
