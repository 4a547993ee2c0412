"""A transpose that only moves size-1 dimensions is a reshape (e.g. [N,1,1,C] -> [N,C,1,1])."""

from __future__ import annotations

import numpy as np
from irconv import Graph, Match, Rewriter, Transform, TransformContext, rewrite_greedily
from irconv_opset import Reshape, Transpose

from irconv_layout.options import DISABLE_NHWC_TO_NCHW
from irconv_layout.perm import transpose_perm
from irconv_layout.sink_transposes import TRANSPOSE


class TransposeToReshape(Transform):
    """Transpose(x, p) -> Reshape(x, spec, special_zero) when p keeps the order of non-unit dims.

    The spec copies dims that stay in place (0), writes the unit dims (1) and infers at most
    one moved dim (-1), so the IR stays reshapeable (no static batch is pinned).
    """

    id = "layout.transpose_to_reshape"
    run_after = ("layout.sink_transposes", "layout.hoist_transposes")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return not ctx.options.get(DISABLE_NHWC_TO_NCHW) and graph.has_type(Transpose.type)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [_AsReshape()], frozen=ctx.is_frozen) > 0


def reshape_spec(shape: tuple[int | None, ...], perm: tuple[int, ...]) -> list[int] | None:
    moving = [axis for axis in perm if shape[axis] != 1]
    if moving != sorted(moving):
        return None  # the data really moves
    spec = [1 if shape[axis] == 1 else 0 if axis == position else -1 for position, axis in enumerate(perm)]
    return spec if spec.count(-1) <= 1 else None


class _AsReshape:
    roots = (TRANSPOSE,)

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        t = match["t"]
        perm = transpose_perm(t)
        shape = match.port("x").data.get_shape()
        if perm is None or shape is None or len(shape) != len(perm):
            return False
        spec = reshape_spec(shape, perm)
        if spec is None:
            return False
        target = rw.const(np.asarray(spec, dtype=np.int64), name=f"{t.name}/shape")
        rw.replace(t, rw.op(Reshape(special_zero=True), match.port("x"), target, name=f"{t.name}/as_reshape"))
        return True
