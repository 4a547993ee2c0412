"""Writing into tensors: scatter, slice_scatter, index_put (the functional forms torch.export
makes of in-place assignments), and the PReLU kernel."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Broadcast, PReLU, ScatterElementsUpdate, ScatterNDUpdate, SliceScatter, Unsqueeze
from irconv_opset.build import shape_of

from irconv_torch.extractors._args import TORCH_2_5, cast, int_or_port, optional, out_type, tensor, tensors

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


scatter_src = extractor("torch", "aten.scatter.src", lambda node, ctx: _scatter(ctx, tensor(ctx, "src")),
                        versions=TORCH_2_5, produces=[ScatterElementsUpdate, Broadcast])
scatter_value = extractor("torch", "aten.scatter.value",
                          lambda node, ctx: _scatter(ctx, tensor(ctx, "value", out_type(ctx))),
                          versions=TORCH_2_5, produces=[ScatterElementsUpdate, Broadcast])


@extractor("torch", "aten.slice_scatter.default", versions=TORCH_2_5, produces=[SliceScatter])
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


@extractor("torch", "aten.index_put.default", versions=TORCH_2_5, produces=[ScatterNDUpdate, Unsqueeze, Broadcast])
def index_put(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``self[idx] = values`` with one integer index tensor on the first axis (KV-cache style
    updates); ``accumulate`` adds instead."""
    data = tensor(ctx, "self")
    indices = tensors(ctx, "indices")
    if len(indices) != 1 or indices[0] is None or indices[0].data.element_type is ElementType.boolean:
        raise ConversionError(f"{ctx.where()}: index_put with other than one integer index on the first axis")
    index = ctx.op(Unsqueeze(), cast(ctx, indices[0], ElementType.i64, "index_i64"), i64(ctx, [-1]), suffix="index")
    values = cast(ctx, tensor(ctx, "values"), data.data.element_type, suffix="values")
    # the updates' shape: the index's, then the rest of self's
    index_shape = shape_of(ctx, indices[0], suffix="index_shape")
    from irconv_opset import Concat, Slice

    rest = ctx.op(Slice(), shape_of(ctx, data), i64(ctx, [1]), i64(ctx, [_INT64_MAX]), i64(ctx, [1]), suffix="rest")
    target = ctx.add(Concat(axis=0), [index_shape, rest], suffix="updates_shape").out_port(0)
    values = ctx.op(Broadcast(), values, target, suffix="updates")
    reduction = "sum" if ctx.attrs.bool("accumulate", False) else "none"
    return [ctx.op(ScatterNDUpdate(reduction=reduction), data, index, values, suffix="op")]


@extractor("torch", "aten._prelu_kernel.default", versions=TORCH_2_5, produces=[PReLU])
def prelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = tensor(ctx, "self")
    slope = optional(ctx, "weight")
    assert slope is not None
    return [ctx.op(PReLU(), data, cast(ctx, slope, data.data.element_type, "slope"), suffix="op")]
