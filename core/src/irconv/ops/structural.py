"""The three ops every graph needs: model inputs, constants and model outputs.

They live in the core because loaders, constant folding and the test kit create them;
the opset plugin lists them with the rest of opset1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from irconv.ops.op import Op, attr
from irconv.types import DimRange, ElementType, MaybeShape

if TYPE_CHECKING:
    from irconv.graph import Node


@dataclass(eq=False)
class Parameter(Op):
    """A model input."""

    type = "Parameter"
    version = 1

    shape: MaybeShape = attr(None)
    element_type: ElementType = attr(ElementType.f32)
    #: Per dimension, the (lower, upper) bounds of a dynamic dimension that has them
    #: (``1..8``; upper None is unbounded). Inference sees such a dimension as dynamic.
    bounds: tuple[DimRange | None, ...] | None = attr(None, emit=False)
    #: The input's layout as OpenVINO spells it (``[N,C,H,W]``), written into the IR's runtime
    #: info so OpenVINO's preprocessing knows it; None when not known.
    layout: str | None = attr(None, emit=False)

    def ir_attributes(self) -> dict[str, str]:
        if self.shape is None:
            return {"shape": "...", "element_type": self.element_type.value}
        dims = []
        for i, d in enumerate(self.shape):
            bound = self.bounds[i] if self.bounds is not None and i < len(self.bounds) else None
            if d is not None:
                dims.append(str(d))
            elif bound is not None:
                lo, hi = bound
                dims.append(f"{lo or ''}..{'' if hi is None else hi}")
            else:
                dims.append("?")
        return {"shape": ",".join(dims), "element_type": self.element_type.value}

    def infer(self, node: Node) -> None:
        data = node.out_port(0).data
        data.set_shape(self.shape)
        data.set_type(self.element_type)


@dataclass(eq=False)
class Const(Op):
    """A constant tensor. The emitter writes its bytes into the ``.bin``."""

    type = "Const"
    version = 1

    value: np.ndarray = attr(factory=lambda: np.zeros((), np.float32), emit=False)

    def ir_attributes(self) -> dict[str, str]:
        # element_type/shape/offset/size depend on where the bytes land: the emitter adds them.
        return {}

    @property
    def element_type(self) -> ElementType:
        return ElementType.from_numpy(self.value.dtype)

    def infer(self, node: Node) -> None:
        node.out_port(0).data.set_value(self.value)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [self.value]


@dataclass(eq=False)
class Result(Op):
    """A model output."""

    type = "Result"
    version = 1
    outputs = 0

    def infer(self, node: Node) -> None:
        pass
