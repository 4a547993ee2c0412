"""Reading a Paddle operator's arguments: by position, the same for both program forms.

A legacy operator's slots are ordered as the PIR operator's operands
(:mod:`irconv_paddle.slots`), so argument ``i`` is the same thing in both. Where the
legacy form keeps a value in an attribute and the PIR form passes it as an operand
(``scale``'s factor, ``reshape``'s shape, ``pool2d``'s kernel), :func:`known` reads
whichever the node has.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.frontend import input_constant
from irconv.graph import OutPort

from irconv_paddle.program import PaddleOp


def op_of(ctx: ExtractContext) -> PaddleOp:
    return ctx.source_as(PaddleOp)


def args(ctx: ExtractContext, i: int) -> list[OutPort]:
    """The values of argument ``i`` (a vector operand, a slot of several variables)."""
    spans = op_of(ctx).spans()
    if i >= len(spans):
        return []
    return [ctx.input(j) for j in spans[i] if ctx.has_input(j)]


def arg(ctx: ExtractContext, i: int) -> OutPort | None:
    """Argument ``i``'s one value, or None when the node does not have it."""
    values = args(ctx, i)
    return values[0] if values else None


def x(ctx: ExtractContext) -> OutPort:
    """Argument 0, the operand every operator has."""
    port = arg(ctx, 0)
    assert port is not None, "argument 0 is required"  # the loader connects every named value
    return port


def known(ctx: ExtractContext, attr: str, i: int | None, default: Any = None) -> Any:
    """A value the legacy form may hold in attribute ``attr`` and the PIR form in argument
    ``i``: the argument's constant when connected (a list for a tensor, a number for one
    value), else the attribute, else ``default``."""
    if i is not None:
        values = args(ctx, i)
        if len(values) == 1:
            index = op_of(ctx).spans()[i][0]
            return _plain(input_constant(ctx, index, f"{attr!r} (argument {i})"))
        if values:  # a list of scalar tensors (legacy *TensorList slots, PIR combined scalars)
            return [_plain(input_constant(ctx, j, f"{attr!r}")) for j in op_of(ctx).spans()[i]]
    if attr in ctx.attrs:
        return ctx.attrs.get(attr, default)
    return default


def known_ints(ctx: ExtractContext, attr: str, i: int | None, default: list[int] | None = None) -> list[int]:
    value = known(ctx, attr, i, default)
    if value is None:
        raise ctx.attrs.bad(attr, value, "the value is needed at conversion time")
    flat = np.asarray(value).reshape(-1)
    return [int(v) for v in flat]


def known_floats(ctx: ExtractContext, attr: str, i: int | None) -> list[float]:
    value = known(ctx, attr, i, None)
    if value is None:
        raise ctx.attrs.bad(attr, value, "the value is needed at conversion time")
    return [float(v) for v in np.asarray(value, np.float64).reshape(-1)]


def known_int(ctx: ExtractContext, attr: str, i: int | None, default: int) -> int:
    """One integer (an axis): the attribute, or a one-element tensor operand."""
    value = known(ctx, attr, i, default)
    return int(np.asarray(value).reshape(-1)[0])


def known_float(ctx: ExtractContext, attr: str, i: int | None, default: float) -> float:
    value = known(ctx, attr, i, default)
    return float(np.asarray(value).reshape(-1)[0])


def _plain(value: np.ndarray) -> Any:
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else array.tolist()


def shape_tensor(ctx: ExtractContext, parts: list[OutPort]) -> OutPort:
    """A shape given at run time as one tensor or as scalars (a PIR vector of them, a legacy
    ``*TensorList`` slot), as one 1-D i64 tensor."""
    from irconv.frontend import i64
    from irconv.types import ElementType
    from irconv_opset import Concat, Convert, Reshape

    if len(parts) == 1:
        shape = parts[0]
    else:
        shape = ctx.op(Concat(axis=0), *(ctx.op(Reshape(special_zero=False), p, i64(ctx, [1]), suffix=f"dim{i}")
                                         for i, p in enumerate(parts)), suffix="shape")
    if shape.data.element_type is not ElementType.i64:
        shape = ctx.op(Convert(destination_type=ElementType.i64), shape, suffix="shape_i64")
    return shape
