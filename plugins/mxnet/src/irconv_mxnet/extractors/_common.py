"""What the MXNet extractors share: records, typed attribute reads, constants."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.ops import Const
from irconv.plugins import Extractor
from irconv.types import ElementType

from irconv_mxnet.attr_values import as_bool, as_float, as_int, as_tuple

FRAMEWORK = "mxnet"
Extract = Callable[[Node, ExtractContext], Any]


def mx_op(names: str | Sequence[str], extract: Extract, produces: str = "") -> list[Extractor]:
    """Extractor records for an MXNet op and its aliases (older symbol files use them)."""
    if isinstance(names, str):
        names = (names,)
    return [Extractor(FRAMEWORK, name, extract, produces=produces) for name in names]


def bad(ctx: ExtractContext, name: str, value: Any, why: str) -> ConversionError:
    return ConversionError(f"MXNet node {ctx.node.name!r} ({ctx.source_op.op_type}): {name}={value!r}: {why}")


def ints(ctx: ExtractContext, name: str, default: Sequence[int] = (), length: int | None = None) -> tuple[int, ...]:
    value = ctx.attr(name, None)
    if value is None:
        return tuple(default)
    try:
        return tuple(as_int(v) for v in as_tuple(value, length))
    except (TypeError, ValueError):
        raise bad(ctx, name, value, "expected integers") from None


def optional_ints(ctx: ExtractContext, name: str) -> tuple[int | None, ...]:
    """A tuple whose items may be None (``slice`` begin/end)."""
    value = ctx.attr(name, None)
    return tuple(None if v is None else as_int(v) for v in as_tuple(value))


def floats(ctx: ExtractContext, name: str, default: Sequence[float] = ()) -> tuple[float, ...]:
    value = ctx.attr(name, None)
    if value is None:
        return tuple(default)
    try:
        return tuple(as_float(v) for v in as_tuple(value))
    except (TypeError, ValueError):
        raise bad(ctx, name, value, "expected numbers") from None


def integer(ctx: ExtractContext, name: str, default: int | None = None) -> int:
    value = ctx.attr(name, default)
    if value is None:
        raise bad(ctx, name, value, "the attribute is required")
    try:
        return as_int(value)
    except (TypeError, ValueError):
        raise bad(ctx, name, value, "expected an integer") from None


def optional_int(ctx: ExtractContext, name: str) -> int | None:
    value = ctx.attr(name, None)
    return None if value is None else integer(ctx, name)


def number(ctx: ExtractContext, name: str, default: float | None = None) -> float:
    value = ctx.attr(name, default)
    if value is None:
        raise bad(ctx, name, value, "the attribute is required")
    try:
        return as_float(value)
    except (TypeError, ValueError):
        raise bad(ctx, name, value, "expected a number") from None


def flag(ctx: ExtractContext, name: str, default: bool) -> bool:
    value = ctx.attr(name, default)
    try:
        return as_bool(value)
    except ValueError:
        raise bad(ctx, name, value, "expected True or False") from None


def text(ctx: ExtractContext, name: str, default: str) -> str:
    value = ctx.attr(name, default)
    return default if value is None else str(value)


def i64(ctx: ExtractContext, values: Any, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.int64), suffix=suffix)


def dtype_of(port: OutPort) -> np.dtype:
    et = port.data.element_type
    if et is ElementType.dynamic or et is ElementType.bf16 or et is ElementType.boolean:
        return np.dtype(np.float32)
    return et.numpy


def like_const(ctx: ExtractContext, value: Any, like: OutPort, suffix: str = "const") -> OutPort:
    """A constant of ``like``'s element type (f32 when unknown)."""
    return ctx.const(np.asarray(value, dtype=dtype_of(like)), suffix=suffix)


def rank(ctx: ExtractContext, idx: int = 0) -> int:
    return ctx.require_rank(idx)


def normalize_axis(ctx: ExtractContext, axis: int, size: int) -> int:
    return ctx.normalize_axis(axis, size)


def channel_shaped(ctx: ExtractContext, port: OutPort, axis: int, data_rank: int, suffix: str) -> OutPort:
    """A 1-d per-channel tensor reshaped to broadcast against data at ``axis``."""
    from irconv_opset import Reshape

    shape = [1] * data_rank
    shape[axis] = -1
    value = port_value(port)
    if value is not None:
        return ctx.const(np.asarray(value).reshape(shape), suffix=suffix)
    return ctx.op(Reshape(special_zero=False), port, i64(ctx, shape), suffix=suffix)


def port_value(port: OutPort) -> np.ndarray | None:
    """The constant value of a tensor (a Const, or known from inference), else None."""
    op = port.node.op
    return op.value if isinstance(op, Const) else port.data.value


def shape_of(ctx: ExtractContext, port: OutPort, suffix: str = "shape") -> OutPort:
    from irconv_opset import ShapeOf

    return ctx.op(ShapeOf(output_type=ElementType.i64), port, suffix=suffix)


def to_type_of(ctx: ExtractContext, port: OutPort, like: OutPort, suffix: str = "convert") -> OutPort:
    """``port`` converted to ``like``'s element type (MXNet comparisons return the input type)."""
    from irconv_opset import Convert

    return ctx.op(Convert(destination_type=ElementType.from_numpy(dtype_of(like))), port, suffix=suffix)
