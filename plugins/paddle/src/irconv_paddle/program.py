"""One model of a Paddle inference program, whichever file it was read from.

Both of Paddle's forms come down to operators reading and writing named values:

- the legacy program (``.pdmodel``, a ``ProgramDesc``): named input and output slots, each
  a list of variable names; its op types are Paddle's (``conv2d``, ``elementwise_add``);
- the PIR program (``.json``): positional operands, some of them vectors of values made by
  ``builtin.combine``; its op names keep their dialect (``pd_op.conv2d``, ``pd_op.add``),
  so an extractor is keyed on the form it reads.

An operator's *arguments* are its slots (legacy, in the order :mod:`irconv_paddle.slots`
gives) or its operands (PIR), each a tuple of value names (empty when absent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class PaddleOp:
    """One operator: its arguments and results (tuples of value names) and attributes."""

    type: str
    name: str
    args: tuple[tuple[str, ...], ...]
    results: tuple[tuple[str, ...], ...]
    attrs: dict[str, Any] = field(default_factory=dict)
    slots: tuple[str, ...] = ()
    #: A loop's body as a program of its own: its feeds are the carried values, then the
    #: enclosing values it reads (captured, passed in as the op's last arguments); its
    #: fetches the continue condition, then the carried values' next ones.
    body: Program | None = None

    def spans(self) -> list[range]:
        """Where each argument's values sit in the node's inputs (an absent argument
        keeps one unconnected input, so a single-valued argument ``i`` is input ``i``
        when no argument before it is a list)."""
        spans, start = [], 0
        for values in self.args:
            width = max(1, len(values))
            spans.append(range(start, start + width))
            start += width
        return spans


@dataclass(frozen=True)
class Feed:
    """A model input: its name, shape (-1 for a dimension given at run time) and type."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype


@dataclass
class Program:
    """The operators of block 0 in execution order, the inputs, the fetched values (in
    fetch order, with the names Paddle gives them), the parameters' value names sorted as
    the ``.pdiparams`` file stores them, and each value's static type when recorded."""

    form: str
    ops: list[PaddleOp]
    feeds: list[Feed]
    fetches: list[tuple[str, str]]
    params: list[str]
    shapes: dict[str, tuple[tuple[int, ...], np.dtype]] = field(default_factory=dict)
