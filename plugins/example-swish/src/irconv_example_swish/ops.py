"""``ExampleSwish``: an op of the custom opset ``irconv_example``, outside the OpenVINO opsets.

    y = x * sigmoid(beta * x)

The IR holds it as ``<layer type="ExampleSwish" version="irconv_example"><data beta="…"/>``;
the OpenVINO runtime runs that layer only with this plugin's runtime extension
(:mod:`irconv_example_swish.runtime`), or after the lowering transform rewrote it into
stock ops (``--example-lower-swish``). irconv infers its shape and folds it on constants
from this declaration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv import Op, Trait, attr

if TYPE_CHECKING:
    from irconv import Node

#: The IR ``version`` of this plugin's ops; the runtime extension registers the same name.
OPSET = "irconv_example"


@dataclass(eq=False)
class ExampleSwish(Op):
    """x * sigmoid(beta * x), elementwise; ``beta`` is an attribute (Swish-4 takes an input)."""

    type = "ExampleSwish"
    version = 1
    custom_opset = OPSET
    traits = frozenset({Trait.ELEMENTWISE, Trait.LAYOUT_AGNOSTIC})

    beta: float = attr(1.0)

    def infer(self, node: Node) -> None:
        data = node.in_port(0).data
        node.out_port(0).data.set_shape(data.get_shape())
        node.out_port(0).data.set_type(data.get_type())

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [reference(np.asarray(inputs[0]), self.beta)]


def reference(x: np.ndarray, beta: float) -> np.ndarray:
    """The op's meaning in NumPy (also what the runtime extension computes)."""
    with np.errstate(over="ignore"):
        return (x / (1 + np.exp(-beta * x))).astype(x.dtype)
