"""``as_strided``: a view of a tensor's storage by sizes and strides (Longformer's overlapping
chunks, sliding windows written by hand). IR tensors have no storage, so the view becomes a
Gather of the elements it reads from the tensor flattened in storage order."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, i64
from irconv.graph import Node, OutPort
from irconv_opset import Gather, Reshape, Transpose

from irconv_torch.attributes import FxNode
from irconv_torch.extractors._args import TORCH_2_5, is_input, tensor


def _as_strided(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``self`` laid out densely (any order of dimensions, as a permute leaves it) is put in
    storage order and flattened; the view reads position ``offset + sum(i_k * stride_k)``
    of that storage, a constant index per output element."""
    shape = ctx.input_shape(0)
    if shape is None or any(d is None for d in shape):
        raise ConversionError(f"{ctx.where()}: as_strided of a tensor with dynamic dimensions; export it with "
                              "static shapes")
    if any(is_input(ctx, name) for name in ("size", "stride", "storage_offset")):
        raise ConversionError(f"{ctx.where()}: as_strided with symbolic sizes, strides or offset; export it with "
                              "static shapes")
    dims = [d for d in shape if d is not None]
    strides, base_offset = ctx.source_as(FxNode).layouts.get("self") or (_contiguous(dims), 0)
    order = sorted(range(len(dims)), key=lambda d: -strides[d])
    if any(dims[d] > 1 and strides[d] != expected
           for d, expected in zip(order, _contiguous([dims[d] for d in order]), strict=True)):
        raise ConversionError(f"{ctx.where()}: as_strided of a tensor with strides {list(strides)} for shape "
                              f"{dims}, which overlap or leave gaps; call .contiguous() before as_strided")
    sizes = ctx.attrs.ints("size")
    view_strides = ctx.attrs.ints("stride", length=len(sizes))
    start = int(ctx.attrs.get("storage_offset", base_offset)) - base_offset
    positions = np.full(sizes, start, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(sizes, view_strides, strict=True)):
        positions += np.arange(size, dtype=np.int64).reshape([-1 if a == axis else 1 for a in range(len(sizes))]) \
            * stride
    count = int(np.prod(dims))
    if positions.size and (positions.min() < 0 or positions.max() >= count):
        raise ConversionError(f"{ctx.where()}: as_strided reads outside its tensor of {count} elements (positions "
                              f"{positions.min()}..{positions.max()})")
    data = tensor(ctx, "self")
    if order != sorted(order):
        data = ctx.op(Transpose(), data, i64(ctx, order, suffix="storage_order"), suffix="storage")
    flat = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1], suffix="flat_shape"), suffix="flat")
    return [ctx.op(Gather(), flat, ctx.const(positions, suffix="positions"), i64(ctx, 0, suffix="axis"), suffix="op")]


def _contiguous(dims: list[int]) -> tuple[int, ...]:
    """Row-major strides of ``dims``."""
    strides = [1] * len(dims)
    for axis in range(len(dims) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * max(dims[axis + 1], 1)
    return tuple(strides)


as_strided = aliases("torch", ["aten.as_strided.default", "aten.as_strided_copy.default"], _as_strided,
                     versions=TORCH_2_5, produces=[Gather, Reshape, Transpose])
