"""Matrix functions on the two innermost dims: Inverse-14."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr

from irconv_opset.shapes import in_shape, in_type, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


@dataclass(eq=False)
class Inverse(Op):
    """The inverse of each ``[..., n, n]`` matrix; ``adjoint`` inverts the transpose instead."""

    type = "Inverse"
    version = 14
    arity = (1, 1)

    adjoint: bool = attr(False)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        result = np.linalg.inv(x.astype(np.float64))
        if self.adjoint:
            result = np.swapaxes(result, -1, -2)
        return [result.astype(x.dtype)]


OPS: tuple[type[Op], ...] = (Inverse,)
