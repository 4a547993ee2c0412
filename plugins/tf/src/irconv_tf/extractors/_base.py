"""Helpers shared by the extractor families."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor

from irconv_tf.build import FRAMEWORK

ExtractFn = Callable[[Node, ExtractContext], Any]
NHWC = "NHWC"


def table(entries: dict[str, tuple[ExtractFn, str]]) -> list[Extractor]:
    """Extractor records from ``{tf op: (extract function, opset op(s) produced)}``."""
    return [Extractor(FRAMEWORK, op, fn, produces=produces) for op, (fn, produces) in entries.items()]


def channels_last(ctx: ExtractContext) -> bool:
    """True for NHWC/NWC/NDHWC data formats (TensorFlow's default)."""
    fmt = str(ctx.attr("data_format", "NHWC"))
    return not fmt.startswith("NC")


def const_input(ctx: ExtractContext, idx: int, what: str) -> np.ndarray:
    """An input that must be a constant (an axis, a count)."""
    value = ctx.input_value(idx)
    if value is None:
        raise ConversionError(
            f"node {ctx.node.name!r} ({ctx.source_op.op_type}): {what} (input {idx}) must be a constant"
        )
    return value


def laid_out(ctx: ExtractContext, op: Op, inputs: Sequence[OutPort | None], layout: str | None) -> list[OutPort]:
    """Add ``op``; mark its data input/output 0 as ``layout`` for the layout plugin."""
    node = ctx.add(op, inputs, suffix=op.type)
    node.layout = layout
    return [node.out_port(i) for i in range(node.num_outputs())]


def spatial(values: Sequence[int], ctx: ExtractContext, rank: int = 4) -> tuple[int, ...]:
    """The spatial entries of an N..C-ordered attribute such as strides or ksize."""
    values = list(values)
    if len(values) != rank:
        raise ConversionError(f"node {ctx.node.name!r}: expected {rank} values, got {values}")
    return tuple(values[1:-1]) if channels_last(ctx) else tuple(values[2:])


def int_const(ctx: ExtractContext, value: Any, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(value, dtype=np.int64), suffix=suffix)
