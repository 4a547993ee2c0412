"""A flatten from axis 1 computed from ShapeOf -> Reshape(x, [0, -1]) with ``special_zero``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import Match, Node, Pat, Rewriter, any_, const, op
from irconv_opset import Concat, ReduceProd, Reshape, ShapeOf, Slice

from irconv_transforms._fusion import Fusion

_X = any_("x")


def _values(*expected: list[int]) -> list[Pat]:
    """Integer constants holding exactly these values."""
    return [const(where=_equal_to(e)) for e in expected]


def _equal_to(expected: list[int]) -> Callable[[Node], bool]:
    def equal(node: Node) -> bool:
        value = node.out_port(0).constant(shape_derived=False)
        return value is not None and value.dtype.kind in "iu" and value.reshape(-1).tolist() == expected

    return equal


class FuseFlattenReshape(Fusion):
    """``Reshape(x, Concat(ReduceProd(Slice(ShapeOf(x), [0], [1], [1]), [0]), [-1]))`` (how
    front ends keep a flatten from axis 1 reshapeable) -> ``Reshape(x, [0, -1],
    special_zero=True)``: the same for every input shape, four layers and their constants
    fewer."""

    id = "fuse.flatten_reshape"
    pattern = op(
        Reshape,
        _X,
        op(
            Concat,
            op(
                ReduceProd,
                op(Slice, op(ShapeOf, _X, single_use=True), *_values([0], [1], [1]), single_use=True, bind="slice"),
                *_values([0]),
                single_use=True,
            ),
            *_values([-1]),
            single_use=True,
            bind="concat",
        ),
        bind="reshape",
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        concat, piece = match["concat"], match["slice"]
        if concat.num_inputs() != 2 or match.op("concat", Concat).axis != 0:
            return False
        if piece.num_inputs() > 4:
            axes = piece.in_port(4).constant(shape_derived=False)
            if axes is None or axes.reshape(-1).tolist() != [0]:
                return False
        reshape = match["reshape"]
        target = rw.const(np.array([0, -1], np.int64), like=reshape)
        rw.replace(reshape, rw.op(Reshape(special_zero=True), match.port("x"), target, like=reshape))
        return True
