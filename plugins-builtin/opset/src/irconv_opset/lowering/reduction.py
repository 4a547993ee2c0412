"""Reductions every front end shares: the opset's Reduce* ops named by what they compute.

A front end maps its own op names onto :class:`Reduction` members and reads ``keep_dims``
and the axes itself; :func:`reduce` builds the op.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from irconv.ops import Op

import irconv_opset as opset
from irconv_opset.ops.reduction import Reduction as ReduceOp

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import OutPort


class Reduction(enum.Enum):
    """What a reduction computes over its axes; the value is the opset class."""

    SUM = opset.ReduceSum
    MEAN = opset.ReduceMean
    MAX = opset.ReduceMax
    MIN = opset.ReduceMin
    PROD = opset.ReduceProd
    L1 = opset.ReduceL1
    L2 = opset.ReduceL2
    ALL = opset.ReduceLogicalAnd
    ANY = opset.ReduceLogicalOr

    @property
    def op(self) -> type[ReduceOp]:
        op: type[ReduceOp] = self.value
        return op

    def make(self, keep_dims: bool) -> Op:
        """A fresh op of this kind (for an extractor that returns the op itself)."""
        return self.op(keep_dims=keep_dims)


def reduce(
    ctx: ExtractContext, kind: Reduction, data: OutPort, axes: OutPort, keep_dims: bool, suffix: str | None = None
) -> OutPort:
    """``kind`` of ``data`` over ``axes`` (a 1-D or scalar integer tensor)."""
    return ctx.op(kind.make(keep_dims), data, axes, suffix=suffix)


REDUCTION_OPS: tuple[type[Op], ...] = tuple(kind.op for kind in Reduction)
