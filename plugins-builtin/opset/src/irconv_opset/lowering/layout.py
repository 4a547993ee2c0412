"""Layout marks: a front end's statement that a node's data input 0 and output 0 are
channels-last while the op it chose follows the IR's channels-first definition.

The layout plugin (``layout.wrap_marked``) reads these marks and wraps the node in
transposes; front ends set them through :func:`laid_out`. The mark is stored on
``Node.layout``, a string, so :class:`LayoutMark` is a ``str`` enum: a mark compares equal
to its spelling and the plugin accepts a plain ``"NHWC"`` as well.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING

from irconv.errors import LoweringError

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import Node, OutPort
    from irconv.ops import Op


class LayoutMark(str, enum.Enum):
    """A channels-last layout of rank 3, 4 or 5 (batch first, channels last)."""

    NWC = "NWC"
    NHWC = "NHWC"
    NDHWC = "NDHWC"

    def __str__(self) -> str:  # the spelling, as the plain string it stands for would print
        return self.value

    @property
    def rank(self) -> int:
        return len(self.value)

    @property
    def channels_first(self) -> str:
        """The same axes with channels second (``"NCHW"`` for ``NHWC``): the node's layout once wrapped."""
        return "N" + self.value[-1] + self.value[1:-1]

    @classmethod
    def for_rank(cls, rank: int) -> LayoutMark:
        """The channels-last mark of a ``rank``-dimensional tensor (3, 4 or 5)."""
        for mark in cls:
            if mark.rank == rank:
                return mark
        raise LoweringError(f"no channels-last layout mark for rank {rank} (3, 4 or 5)")

    @classmethod
    def parse(cls, value: str | None) -> LayoutMark | None:
        """The mark ``value`` spells, or None (no mark, or a layout that is not channels-last)."""
        try:
            return None if value is None else cls(value)
        except ValueError:
            return None


def laid_out(ctx: ExtractContext, op: Op, inputs: Sequence[OutPort | None], mark: LayoutMark | None) -> Node:
    """Add ``op`` (named after its type) with its data input 0 and output 0 marked ``mark``;
    None adds it unmarked (the framework's data is already channels-first)."""
    node = ctx.add(op, inputs, suffix=op.type)
    node.layout = mark
    return node
