"""Writing into tensors: scatter, slice_scatter, index_put (the functional forms torch.export
makes of in-place assignments), and the PReLU kernel."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Gather,
    NonZero,
    PReLU,
    ScatterElementsUpdate,
    ScatterNDUpdate,
    ShapeOf,
    SliceScatter,
    Transpose,
    Unsqueeze,
)
from irconv_opset.build import shape_of

from irconv_torch.extractors._args import TORCH_2_5, cast, int_or_port, optional, out_type, tensor, tensors
from irconv_torch.extractors.creation import integer_indices

_INT64_MAX = int(np.iinfo(np.int64).max)


def _scatter(ctx: ExtractContext, updates: OutPort) -> list[OutPort]:
    data = tensor(ctx, "self")
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))
    index = tensor(ctx, "index")
    updates = cast(ctx, updates, data.data.element_type, suffix="updates")
    if updates.data.shape != index.data.shape:  # a scalar value fills every indexed place
        updates = ctx.op(Broadcast(), updates, shape_of(ctx, index), suffix="filled")
    op = ScatterElementsUpdate(reduction="none", use_init_val=True)
    return [ctx.op(op, data, index, updates, i64(ctx, axis, suffix="axis"), suffix="op")]


#: What a scatter builds.
_SCATTER_OPS: tuple[type[Op], ...] = (ScatterElementsUpdate, Broadcast, ShapeOf, Convert)


@extractor("torch", "aten.scatter.src", versions=TORCH_2_5, produces=_SCATTER_OPS)
def scatter_src(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _scatter(ctx, tensor(ctx, "src"))


@extractor("torch", "aten.scatter.value", versions=TORCH_2_5, produces=_SCATTER_OPS)
def scatter_value(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _scatter(ctx, tensor(ctx, "value", out_type(ctx)))


@extractor("torch", "aten.slice_scatter.default", versions=TORCH_2_5, produces=[SliceScatter, Convert])
def slice_scatter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``self`` with ``self[start:end:step]`` along ``dim`` replaced by ``src``."""
    data = tensor(ctx, "self")
    axis = normalize_axis(ctx, ctx.attrs.int("dim", 0), require_rank(ctx, 0))
    bounds = []
    for name, default in (("start", 0), ("end", _INT64_MAX)):
        value = int_or_port(ctx, name, default)
        bounds.append(cast(ctx, value, ElementType.i64, f"{name}_i64") if isinstance(value, OutPort)
                      else i64(ctx, [min(int(value), _INT64_MAX)], suffix=name))
    source = cast(ctx, tensor(ctx, "src"), data.data.element_type, suffix="src")
    return [ctx.op(SliceScatter(), data, source, bounds[0], bounds[1], i64(ctx, [ctx.attrs.int("step", 1)]),
                   i64(ctx, [axis], suffix="axis"), suffix="op")]


@extractor("torch", "aten.index_put.default", versions=TORCH_2_5,
           produces=[ScatterNDUpdate, Unsqueeze, Broadcast, Concat, Transpose, NonZero, Add, Gather, ShapeOf, Convert])
def index_put(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``self[i0, i1, ...] = values`` (``accumulate`` adds instead), indexed as
    ``aten.index.Tensor`` reads: None keeps an axis, a boolean mask gives the indices of its
    True elements. The indexed axes are moved to the front for one ScatterNDUpdate of the
    broadcast indices stacked; ``values`` is broadcast to what ``self[...]`` would be (the
    index dims in place of adjacent indexed axes, leading otherwise) and ordered to match."""
    data = tensor(ctx, "self")
    rank = require_rank(ctx, 0)
    given = integer_indices(ctx, tensors(ctx, "indices"))
    if not given:
        raise ConversionError(f"{ctx.where()}: index_put without an index tensor")
    axes = [axis for axis, _ in given]
    ports = [cast(ctx, port, ElementType.i64, suffix=f"index{i}") for i, (_, port) in enumerate(given)]
    common = ports[0]
    for i, port in enumerate(ports[1:]):
        common = ctx.op(Add(), common, port, suffix=f"broadcast{i}")
    if common.data.shape is None:
        raise ConversionError(f"{ctx.where()}: the rank of the index tensors is unknown")
    index_rank = len(common.data.shape)
    index_shape = shape_of(ctx, common, suffix="index_shape")
    stacked = ctx.add(Concat(axis=-1), [
        ctx.op(Unsqueeze(), ctx.op(Broadcast(), p, index_shape, suffix=f"full{i}"), i64(ctx, [-1]), suffix=f"last{i}")
        for i, p in enumerate(ports)], suffix="indices").out_port(0)
    rest = [a for a in range(rank) if a not in axes]
    order = axes + rest
    front = data if order == list(range(rank)) else \
        ctx.op(Transpose(), data, i64(ctx, order, suffix="front_order"), suffix="front")
    data_shape = shape_of(ctx, data, suffix="shape")
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    lead = [a for a in rest if adjacent and a < axes[0]]  # axes before the index dims in self[...]
    trail = [a for a in rest if a not in lead]
    parts = [ctx.op(Gather(), data_shape, i64(ctx, lead), i64(ctx, 0), suffix="lead")] if lead else []
    parts.append(index_shape)
    if trail:
        parts.append(ctx.op(Gather(), data_shape, i64(ctx, trail), i64(ctx, 0), suffix="trail"))
    indexed_shape = ctx.add(Concat(axis=0), parts, suffix="indexed_shape").out_port(0)
    values = ctx.op(Broadcast(), cast(ctx, tensor(ctx, "values"), data.data.element_type, suffix="values"),
                    indexed_shape, suffix="updates")
    if lead:  # index dims first, as the front-moved tensor has them
        value_order = [len(lead) + i for i in range(index_rank)] + list(range(len(lead))) + \
            list(range(len(lead) + index_rank, len(lead) + index_rank + len(trail)))
        values = ctx.op(Transpose(), values, i64(ctx, value_order, suffix="updates_order"), suffix="updates_front")
    reduction = "sum" if ctx.attrs.bool("accumulate", False) else "none"
    written = ctx.op(ScatterNDUpdate(reduction=reduction), front, stacked, values, suffix="op")
    if front is data:
        return [written]
    back = [order.index(a) for a in range(rank)]
    return [ctx.op(Transpose(), written, i64(ctx, back, suffix="back_order"), suffix="back")]


@extractor("torch", "aten._prelu_kernel.default", versions=TORCH_2_5, produces=[PReLU, Convert])
def prelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = tensor(ctx, "self")
    slope = optional(ctx, "weight")
    assert slope is not None
    return [ctx.op(PReLU(), data, cast(ctx, slope, data.data.element_type, "slope"), suffix="op")]
