"""ReadValue-6 and Assign-6: a variable that lives across inference requests.

ReadValue yields the variable's value (its input, the initial value, on the first request
after a reset); Assign stores a new value for the next request. Assign has no consumer:
the runtime finds it as a sink, so it carries the SIDE_EFFECTS trait (never folded,
never removed as dead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr
from irconv.ops.traits import Trait
from irconv.types import ElementType, MaybeShape

if TYPE_CHECKING:
    from irconv.graph import Node


def _shape_text(shape: MaybeShape) -> str:
    if shape is None:
        return "..."
    return ",".join("?" if d is None else str(d) for d in shape)


@dataclass(eq=False)
class ReadValue(Op):
    """ReadValue-6: the value of variable ``variable_id``, of ``variable_type`` and
    ``variable_shape`` (dynamic dims ``None``); input 0 is its initial value."""

    type = "ReadValue"
    version = 6
    arity = (0, 1)
    traits = frozenset({Trait.SIDE_EFFECTS})

    variable_id: str = attr("")
    variable_type: ElementType = attr(ElementType.f32)
    variable_shape: MaybeShape = attr(None)

    def ir_attributes(self) -> dict[str, str]:
        return {
            "variable_id": self.variable_id,
            "variable_type": self.variable_type.value,
            "variable_shape": _shape_text(self.variable_shape),
        }

    def infer(self, node: Node) -> None:
        data = node.out_port(0).data
        data.set_shape(self.variable_shape)
        data.set_type(self.variable_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        return None  # a variable is never a constant


@dataclass(eq=False)
class Assign(Op):
    """Assign-6: stores input 0 into variable ``variable_id``; output 0 passes it through."""

    type = "Assign"
    version = 6
    arity = (1, 1)
    traits = frozenset({Trait.SIDE_EFFECTS})

    variable_id: str = attr("")

    def infer(self, node: Node) -> None:
        source = node.in_port(0).data
        data = node.out_port(0).data
        data.set_shape(source.get_shape())
        data.set_type(source.get_type())

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        return None


OPS: tuple[type[Op], ...] = (ReadValue, Assign)
