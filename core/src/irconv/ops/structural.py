"""The three ops every graph needs: model inputs, constants and model outputs.

They live in the core because loaders, constant folding and the test kit create them;
the opset plugin lists them with the rest of opset1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from irconv.ops.deferred import DeferredProduct
from irconv.ops.op import Op, attr
from irconv.types import DimRange, ElementType, MaybeShape

if TYPE_CHECKING:
    from irconv.graph import Node


@dataclass(eq=False)
class Parameter(Op):
    """A model input."""

    type = "Parameter"
    version = 1
    arity = (0, 0)
    declares_output = True

    shape: MaybeShape = attr(None)
    element_type: ElementType = attr(ElementType.f32)
    #: Per dimension, the (lower, upper) bounds of a dynamic dimension that has them
    #: (``1..8``; upper None is unbounded). Inference sees such a dimension as dynamic.
    bounds: tuple[DimRange | None, ...] | None = attr(None, emit=False)
    #: Per dimension, the name the source format gives a dynamic dimension (an ONNX
    #: ``dim_param``, a torch.export symbol), None where it gives none. Dimensions of the
    #: model's inputs with the same name are equal at run time: shape inference gives them one
    #: symbol (``irconv.graph.symbolic``).
    dim_names: tuple[str | None, ...] | None = attr(None, emit=False)
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
    """A constant tensor. The emitter writes its bytes into the ``.bin``.

    ``keep_precision`` keeps an f32 constant in f32 when the IR is compressed to f16 (a
    scale or an epsilon whose f16 rounding would matter): ``Const(value, keep_precision=True)``.
    """

    type = "Const"
    version = 1
    arity = (0, 0)
    declares_output = True

    value: np.ndarray = attr(factory=lambda: np.zeros((), np.float32), emit=False)
    keep_precision: bool = attr(False, emit=False)

    def ir_attributes(self) -> dict[str, str]:
        # element_type/shape/offset/size depend on where the bytes land: the emitter adds them.
        return {}

    @property
    def stored(self) -> np.ndarray | DeferredProduct:
        """What the emitter writes: the value, or (``DeferredConst``) the recipe that
        computes it. Both have ``shape``, ``dtype``, ``size`` and ``nbytes``."""
        return self.value

    @property
    def element_type(self) -> ElementType:
        return ElementType.from_numpy(self.stored.dtype)

    def declared_value(self) -> np.ndarray:
        return self.value

    def infer(self, node: Node) -> None:
        node.out_port(0).data.set_value(self.value)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [self.value]


class DeferredConst(Const):
    """A Const whose value is a ``DeferredProduct`` not computed yet.

    The emitter streams it (``stored``); reading ``value`` computes and keeps the whole
    product, so code that needs the numbers sees an ordinary Const. Until then its output
    carries a shape and a type but no value: a consumer folds only once asked to compute.
    """

    def __init__(self, value: np.ndarray | None = None, *, pending: DeferredProduct | None = None) -> None:
        self._pending = pending
        self._value = value if value is not None else np.zeros((), np.float32)  # replaced when computed

    @property
    def value(self) -> np.ndarray:
        if self._pending is not None:
            self._value, self._pending = self._pending.materialize(), None
        return self._value

    @value.setter
    def value(self, value: np.ndarray) -> None:
        self._value, self._pending = value, None

    @property
    def pending(self) -> DeferredProduct | None:
        return self._pending

    @property
    def stored(self) -> np.ndarray | DeferredProduct:
        return self._pending if self._pending is not None else self.value

    def infer(self, node: Node) -> None:
        if self._pending is None:
            super().infer(node)
            return
        data = node.out_port(0).data
        data.set_value(None)
        data.set_shape(self._pending.shape)
        data.set_type(ElementType.from_numpy(self._pending.dtype))


@dataclass(eq=False)
class Result(Op):
    """A model output."""

    type = "Result"
    version = 1
    arity = (1, 1)
    outputs = 0

    def infer(self, node: Node) -> None:
        pass
