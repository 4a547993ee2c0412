"""Sharpen(x) = x * factor, elementwise: declared with traits, so layout and fusing know it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from irconv import Node, Op, Trait, attr


@dataclass(eq=False)
class Sharpen(Op):
    type = "Sharpen"
    custom_opset = "testplug_ops"
    traits = frozenset({Trait.ELEMENTWISE, Trait.LAYOUT_AGNOSTIC})

    factor: float = attr(2.0)

    def infer(self, node: Node) -> None:
        data = node.in_port(0).data
        out = node.out_port(0).data
        out.set_shape(data.get_shape())
        out.set_type(data.get_type())

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [(inputs[0] * self.factor).astype(inputs[0].dtype)]
