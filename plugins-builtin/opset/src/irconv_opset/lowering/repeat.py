"""Each element repeated in a row along an axis (torch's ``repeat_interleave``, MXNet's
``repeat``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError
from irconv.frontend import i64, normalize_axis
from irconv.ops import Op

from irconv_opset import Concat, Reshape, ShapeOf, Slice, Tile, Unsqueeze
from irconv_opset.build import shape_of

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import OutPort

_INT64_MAX = int(np.iinfo(np.int64).max)


def repeat_elements(ctx: ExtractContext, data: OutPort, repeats: int | OutPort, axis: int | None) -> OutPort:
    """``data`` with each element ``repeats`` times in a row along ``axis`` (of the flattened
    tensor when None): a new axis after ``axis`` tiled ``repeats`` times, merged back into it.
    ``repeats`` is an integer or an i64 scalar computed at run time. The merged shape is a
    constant when ``data``'s shape and ``repeats`` are known, else read from ``data``."""
    if axis is None:
        data, axis = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1]), suffix="flat"), 0
    shape = data.data.shape
    if shape is None:
        raise ConversionError(
            f"{ctx.where()}: repeating elements needs the input's rank; "
            "give the model input a shape with --input name[d0,d1,...]"
        )
    rank = len(shape)
    axis = normalize_axis(ctx, axis, rank)
    before, after = [1] * (axis + 1), [1] * (rank - axis - 1)
    if isinstance(repeats, int):
        times = i64(ctx, [*before, repeats, *after], "times")
    else:
        count = ctx.op(Reshape(special_zero=False), repeats, i64(ctx, [1]), suffix="repeats_vector")
        times = ctx.op(Concat(axis=0), i64(ctx, before), count, i64(ctx, after), suffix="times")
    tiled = ctx.op(Tile(), ctx.op(Unsqueeze(), data, i64(ctx, [axis + 1]), suffix="lifted"), times, suffix="tiled")
    if isinstance(repeats, int) and None not in shape:
        target = [int(d) for d in shape if d is not None]
        target[axis] *= repeats
        return ctx.op(Reshape(special_zero=False), tiled, i64(ctx, target), suffix="op")
    dims = shape_of(ctx, data)
    head = ctx.op(Slice(), dims, i64(ctx, [0]), i64(ctx, [axis]), i64(ctx, [1]), suffix="head")
    tail = ctx.op(Slice(), dims, i64(ctx, [axis + 1]), i64(ctx, [_INT64_MAX]), i64(ctx, [1]), suffix="tail")
    target_port = ctx.op(Concat(axis=0), head, i64(ctx, [-1]), tail, suffix="target")
    return ctx.op(Reshape(special_zero=False), tiled, target_port, suffix="op")


REPEAT_ELEMENTS_OPS: tuple[type[Op], ...] = (Reshape, Unsqueeze, Tile, Concat, ShapeOf, Slice)
