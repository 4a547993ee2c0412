"""Ops that generate tensors from scalars: Eye, RandomUniform, Multinomial.

Random ops have no ``evaluate``: their values depend on the runtime's generator, so they
are never folded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType, MaybeShape

from irconv_opset.ops._attrs import INDEX_TYPES, NUMERIC_TYPES
from irconv_opset.shapes import dynamic_shape, in_shape, in_type, in_value, set_output, shape_of_value

if TYPE_CHECKING:
    from irconv.graph import Node


def _scalar(value: np.ndarray | None) -> int | None:
    return None if value is None else int(np.asarray(value).reshape(-1)[0])


@dataclass(eq=False)
class Eye(Op):
    """Inputs num_rows, num_columns, diagonal_index (scalars) and optional batch_shape [K]."""

    type = "Eye"
    version = 9
    arity = (3, 4)

    output_type: ElementType = attr(ElementType.f32, choices=NUMERIC_TYPES)

    def infer(self, node: Node) -> None:
        rows, cols = _scalar(in_value(node, 0)), _scalar(in_value(node, 1))
        batch: MaybeShape = ()
        if node.has_input(3):
            batch = shape_of_value(in_value(node, 3))
            if batch is None:
                length = in_shape(node, 3)
                batch = None if length is None or length[0] is None else dynamic_shape(length[0])
        shape = None if batch is None else tuple(batch) + (rows, cols)
        set_output(node, 0, shape, self.output_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        rows, cols, diagonal = (_scalar(v) for v in inputs[:3])
        eye = np.eye(rows or 0, cols or 0, k=diagonal or 0, dtype=self.output_type.numpy)
        if len(inputs) > 3:
            batch = tuple(int(v) for v in np.asarray(inputs[3]).reshape(-1))
            eye = np.broadcast_to(eye, batch + eye.shape).copy()
        return [eye]


@dataclass(eq=False)
class RandomUniform(Op):
    """Inputs shape [K], min and max (scalars of ``output_type``)."""

    type = "RandomUniform"
    version = 8
    arity = (3, 3)

    #: the runtime reads no other output type (8- and 16-bit integers, unsigned ones)
    output_type: ElementType = attr(ElementType.f32, choices=("f16", "bf16", "f32", "f64", "i32", "i64"))
    global_seed: int = attr(0)
    op_seed: int = attr(0)
    alignment: str = attr("tensorflow", choices=("tensorflow", "pytorch"))

    def infer(self, node: Node) -> None:
        for idx, role in ((1, "min"), (2, "max")):
            found = in_type(node, idx) if node.has_input(idx) else ElementType.dynamic
            if found not in (ElementType.dynamic, self.output_type):
                raise ConversionError(
                    f"node {quoted(node.name)} ({self.describe()}): input {idx} ({role}) must have the "
                    f"output_type's element type ({self.output_type.value}), got {found.value}"
                )
        shape = shape_of_value(in_value(node, 0))
        if shape is None:
            length = in_shape(node, 0)
            shape = None if length is None or length[0] is None else dynamic_shape(length[0])
        set_output(node, 0, shape, self.output_type)


@dataclass(eq=False)
class Multinomial(Op):
    """Inputs probs [B, C] (or [C]) and num_samples; output [B, num_samples] class indices."""

    type = "Multinomial"
    version = 13
    arity = (2, 2)

    convert_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)
    with_replacement: bool = attr(False)
    log_probs: bool = attr(False)
    global_seed: int = attr(0)
    op_seed: int = attr(0)

    def infer(self, node: Node) -> None:
        probs = in_shape(node, 0)
        samples: Dim = _scalar(in_value(node, 1))
        shape: MaybeShape = None
        if probs is not None:
            shape = (samples,) if len(probs) == 1 else (probs[0], samples)
        set_output(node, 0, shape, self.convert_type)


OPS: tuple[type[Op], ...] = (Eye, RandomUniform, Multinomial)
