"""Partially known values of small integer tensors (shapes being computed), as the runtime has.

OpenVINO's shape inference follows a shape sub-graph (``ShapeOf -> Gather -> Concat ->
Reshape``) even when some dims are dynamic: it knows ``[batch, -1]`` has a -1 after one
element that *is* the data's batch dim, and so finds ``[?, 32]`` where a fully-unknown
pattern gives ``[?, ?]``. When a broken model then disagrees with that dim, the runtime
refuses the IR. Ops use these partial values so inference knows as much as the runtime and
such a model fails at conversion.

A partial value is a NumPy object array whose elements are Python ints, ``None`` (unknown) or
a :class:`DimOf` (the still-dynamic dim ``axis`` of the tensor at an output port).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from irconv.graph import OutPort

#: How far back a partial value is followed (shape sub-graphs are short).
MAX_DEPTH = 16

#: Ops whose ``evaluate`` only moves elements around: it runs unchanged on object arrays.
_MOVERS = frozenset({"Concat", "Gather", "Unsqueeze", "Squeeze", "Reshape", "StridedSlice", "Slice"})
_PASS_THROUGH = frozenset({"Convert", "ConvertLike", "Identity"})


@dataclass(frozen=True)
class DimOf:
    """The runtime value of dim ``axis`` of the tensor at output ``port`` of node ``node``."""

    node: int
    port: int
    axis: int

    @staticmethod
    def key(port: OutPort) -> tuple[int, int]:
        return port.node.id, port.idx


def partial_value(port: OutPort | None, depth: int = 0) -> np.ndarray | None:
    """The value at ``port`` as far as it is known (an object array), or None."""
    if port is None or depth > MAX_DEPTH:
        return None
    data = port.data
    if data.value is not None:
        value = np.asarray(data.value)
        if value.size > 64 or not np.issubdtype(value.dtype, np.integer):
            return None
        return value.astype(object)
    node = port.node
    if not node.op.is_opset_op or port.idx != 0:
        return None
    kind = node.op.type
    if kind == "ShapeOf":
        source = node.in_port(0).get_source()
        if source is None or source.data.shape is None:
            return None
        elements: list[int | None | DimOf] = [
            d if d is not None else DimOf(source.node.id, source.idx, i) for i, d in enumerate(source.data.shape)
        ]
        return _objects(elements)
    if kind in _PASS_THROUGH:
        out_type = data.element_type
        return partial_value(node.in_port(0).get_source(), depth + 1) if out_type.is_integer else None
    if kind in _MOVERS:
        return _moved(port, depth)
    return None


def partial_elements(port: OutPort | None) -> list[int | None | DimOf] | None:
    """The partial value of a 1-D (or scalar) tensor as a flat list."""
    value = partial_value(port)
    if value is None or value.ndim > 1:
        return None
    return [_element(v) for v in value.reshape(-1)]


def _moved(port: OutPort, depth: int) -> np.ndarray | None:
    node = port.node
    inputs = []
    for idx in range(node.num_inputs()):
        source = node.in_port(idx).get_source()
        if node.op.type == "Concat" or idx == 0:
            value = partial_value(source, depth + 1)
        else:
            constant = None if source is None else source.data.value
            value = None if constant is None else np.asarray(constant)
        if value is None:
            return None
        inputs.append(value)
    try:
        results = node.op.evaluate(inputs)
    except (TypeError, ValueError, IndexError, AttributeError):
        return None
    if not results:
        return None
    out = np.asarray(results[0], dtype=object)
    return out if out.ndim <= 1 else None


def _objects(elements: list[int | None | DimOf]) -> np.ndarray:
    out = np.empty(len(elements), dtype=object)
    out[:] = elements
    return out


def _element(value: object) -> int | None | DimOf:
    if value is None or isinstance(value, DimOf):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    return None
