"""MXNet ``Reshape`` with its special codes, as a target shape the IR can take.

Codes in ``shape`` (read left to right, or right to left with ``reverse``):
``0`` copies an input dimension, ``-1`` is inferred from the rest, ``-2`` copies all
remaining input dimensions, ``-3`` merges two consecutive input dimensions, ``-4`` splits
one input dimension into the next two values (one of which may be -1).

``plan_reshape`` turns the codes into one item per output dimension: an int, ``-1``, or
the input dimensions (indices) whose product it is. Static input dimensions fold into
constants; dynamic ones are read with ShapeOf at run time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from irconv.types import MaybeShape

Item = int | tuple[int, ...]


class ReshapeError(ValueError):
    pass


def plan_reshape(codes: Sequence[int], in_shape: MaybeShape, reverse: bool = False) -> list[Item]:
    """Output dims as ints (``-1`` at most once) or tuples of input dim indices to multiply."""
    if in_shape is None:
        raise ReshapeError("the input rank must be known")
    rank = len(in_shape)
    dims = list(in_shape)
    if reverse:
        codes = list(reversed(codes))
        dims = list(reversed(dims))
    out: list[Item] = []
    src = 0
    i = 0

    def index(position: int) -> int:
        if position >= rank:
            raise ReshapeError(f"the codes read input dimension {position} of a rank-{rank} input")
        return rank - 1 - position if reverse else position

    while i < len(codes):
        code = codes[i]
        if code == 0:
            out.append((index(src),))
            src += 1
        elif code == -1:
            out.append(-1)
            src += 1
        elif code == -2:
            out.extend((index(p),) for p in range(src, rank))
            src = rank
        elif code == -3:
            out.append((index(src), index(src + 1)))
            src += 2
        elif code == -4:
            if i + 2 >= len(codes):
                raise ReshapeError("-4 needs two values after it")
            first, second = codes[i + 1], codes[i + 2]
            source = dims[src] if src < rank else None
            index(src)
            if first == -1 and second == -1:
                raise ReshapeError("-4 splits into at most one -1")
            if first == -1 or second == -1:
                known = second if first == -1 else first
                if source is not None:
                    inferred: Item = source // known
                else:
                    inferred = -1
                pair: list[Item] = [inferred, known] if first == -1 else [known, inferred]
            else:
                pair = [first, second]
            out.extend(pair)
            src += 1
            i += 2
        elif code > 0:
            out.append(code)
            src += 1
        else:
            raise ReshapeError(f"unknown reshape code {code}")
        i += 1
    if sum(1 for item in out if item == -1) > 1:
        raise ReshapeError("more than one dimension to infer (-1)")
    if reverse:
        out.reverse()
    return out


def fold_static(plan: list[Item], in_shape: Sequence[int | None]) -> list[Item]:
    """Products of static input dims become ints."""
    folded: list[Item] = []
    for item in plan:
        dims = [in_shape[d] for d in item] if isinstance(item, tuple) else []
        static = [d for d in dims if d is not None]
        if isinstance(item, tuple) and len(static) == len(dims):
            folded.append(math.prod(static))
        else:
            folded.append(item)
    return folded
