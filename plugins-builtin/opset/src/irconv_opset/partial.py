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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from irconv.graph import Node, OutPort

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


def _moved(
    port: OutPort, depth: int, value_at: Callable[[OutPort | None, int], np.ndarray | None] = partial_value
) -> np.ndarray | None:
    """A mover's output over ``value_at``'s values of its moved inputs (partial or symbolic)."""
    node = port.node
    inputs = []
    for idx in range(node.num_inputs()):
        source = node.in_port(idx).get_source()
        if node.op.type == "Concat" or idx == 0:
            value = value_at(source, depth + 1)
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


def _objects(elements: Sequence[object]) -> np.ndarray:
    out = np.empty(len(elements), dtype=object)
    out[:] = elements
    return out


def _element(value: object) -> int | None | DimOf:
    if value is None or isinstance(value, DimOf):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    return None


# ----------------------------------------------------------------- symbolic values
#: Integer arithmetic a shape sub-graph computes on dims (``view(b, s, h * d)``, ``s // 2``).
_ARITHMETIC = {
    "Add": lambda a, b: a + b,
    "Subtract": lambda a, b: a - b,
    "Multiply": lambda a, b: a * b,
    "Divide": lambda a, b: _divide(a, b),
    "Maximum": lambda a, b: _extreme(a, b, larger=True),
    "Minimum": lambda a, b: _extreme(a, b, larger=False),
}


def _extreme(a: object, b: object, larger: bool) -> object:
    """Maximum (``larger``) or Minimum of two dims: decided when they are equal, both
    constants, or one's bounds lie wholly on the chosen side of the other's; else None."""
    if a == b:
        return a
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b) if larger else min(a, b)
    range_a, range_b = _range(a), _range(b)
    if range_a is None or range_b is None:
        return None
    (low_a, high_a), (low_b, high_b) = range_a, range_b
    if high_b is not None and low_a >= high_b:  # a >= b whatever the symbols' values
        return a if larger else b
    if high_a is not None and low_b >= high_a:
        return b if larger else a
    return None


def _range(value: object) -> tuple[int, int | None] | None:
    """(lower, upper or None) of a constant or of a sum of dims with positive coefficients
    (never negative); None for other expressions (``s - 4`` may be negative)."""
    from irconv.types_symbols import Expr, bounds

    if isinstance(value, int):
        return value, value
    if isinstance(value, Expr) and all(c > 0 for _, c in value.terms):
        return bounds(value)
    return None


def symbolic_value(port: OutPort | None, depth: int = 0) -> np.ndarray | None:
    """The value at ``port`` over symbolic dims: an object array of ints (constants of the
    model), :class:`~irconv.types_symbols.Expr` (dims known by their symbols) and None
    (unknown); None when nothing is known. A value computed from shapes is followed back to
    the shapes' symbols, so a dim of a model input's static shape stays a (pinned) symbol."""
    if port is None or depth > MAX_DEPTH:
        return None
    data = port.data
    if data.value is not None and not data.shape_derived:
        value = np.asarray(data.value)
        if value.size > 64 or not np.issubdtype(value.dtype, np.integer):
            return None
        return _objects([int(v) for v in value.reshape(-1)]).reshape(value.shape)
    node = port.node
    if not node.op.is_opset_op or port.idx != 0 or not data.element_type.is_integer:
        return None
    kind = node.op.type
    if kind == "ShapeOf":
        from irconv.graph.symbolic import input_symbols

        dims = input_symbols(node, 0)
        return None if dims is None else _objects(list(dims))
    if kind in _PASS_THROUGH:
        return symbolic_value(node.in_port(0).get_source(), depth + 1)
    if kind in _MOVERS:
        return _moved(port, depth, symbolic_value)
    if kind == "Select" and getattr(node.op, "auto_broadcast", "numpy") == "numpy":
        return _selected(node, depth)
    if kind == "Broadcast" and getattr(node.op, "mode", "") in ("numpy", "bidirectional"):
        return _broadcast_symbolic(node, depth)
    if kind in _REDUCTIONS:
        return _reduced(node, depth)
    if kind in _ARITHMETIC and getattr(node.op, "auto_broadcast", "numpy") == "numpy":
        a = symbolic_value(node.in_port(0).get_source(), depth + 1)
        b = symbolic_value(node.in_port(1).get_source(), depth + 1)
        if a is None or b is None:
            return None
        return _elementwise(_ARITHMETIC[kind], a, b)
    return None


#: Reductions of a shape vector to one element (``ReduceProd(shape[:k])``: a flatten's rows).
_REDUCTIONS: dict[str, Callable[[Any, Any], Any]] = {"ReduceProd": lambda a, b: a * b, "ReduceSum": lambda a, b: a + b}


def _reduced(node: Node, depth: int) -> np.ndarray | None:
    """A reduction of a whole 1-D shape value (axis 0), when every element is known."""
    vector = symbolic_value(node.in_port(0).get_source(), depth + 1)
    axes = node.in_port(1).data.value if node.has_input(1) else None
    if vector is None or vector.ndim != 1 or axes is None or [int(a) for a in np.asarray(axes).reshape(-1)] not in ([0], [-1]):
        return None
    from irconv.types_symbols import Expr

    if any(not isinstance(v, (int, Expr)) for v in vector):
        return None
    combine = _REDUCTIONS[node.op.type]
    total: object = 1 if node.op.type == "ReduceProd" else 0
    for v in vector:
        total = combine(total, v)
    return _objects([total]) if getattr(node.op, "keep_dims", False) else _objects([total]).reshape(())


def symbolic_elements(port: OutPort | None) -> list[object] | None:
    """The symbolic value of a 1-D (or scalar) tensor as a flat list."""
    value = symbolic_value(port)
    if value is None or value.ndim > 1:
        return None
    return list(value.reshape(-1))


def _divide(a: object, b: object) -> object:
    """Integer Divide on dims (never negative): floor division by a positive constant, or an
    exact division of expressions; None when not provable."""
    from irconv.types_symbols import Expr, divide_exact, floor_divide

    if isinstance(b, int) and b > 0 and isinstance(a, (int, Expr)):
        return floor_divide(a, b)
    if isinstance(a, (int, Expr)) and isinstance(b, Expr):
        return divide_exact(a, b)
    return None


def _elementwise(kernel: object, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    from irconv.types_symbols import Expr

    def apply(x: object, y: object) -> object:
        if not isinstance(x, (int, Expr)) or not isinstance(y, (int, Expr)):
            return None
        try:
            return kernel(x, y)  # type: ignore[operator]
        except (ArithmeticError, ValueError):
            return None

    return _elementwise_any(apply, a, b)


def _selected(node: Node, depth: int) -> np.ndarray | None:
    """Select over a condition decided element by element: exporters write ``expand(-1)`` as
    ``Select(Equal(shape, -1), ones, shape)``, and a dim is never -1."""
    condition = _condition(node.in_port(0).get_source(), depth + 1)
    then = symbolic_value(node.in_port(1).get_source(), depth + 1)
    other = symbolic_value(node.in_port(2).get_source(), depth + 1)
    if condition is None or then is None or other is None:
        return None
    pick = np.frompyfunc(lambda c, x, y: x if c is True else y if c is False else None, 3, 1)
    try:
        return _object_array(pick(condition, then, other))
    except ValueError:  # shapes that do not broadcast
        return None


def symbolic_condition(port: OutPort | None) -> np.ndarray | None:
    """A boolean tensor as True/False/None (undecided) per element, as far as symbols decide
    it (see ``_condition``); None when nothing is known."""
    return _condition(port, 0)


#: Boolean ops over decided elements (None: undecided).
_LOGICAL = {
    "LogicalAnd": lambda a, b: False if a is False or b is False else (True if a is True and b is True else None),
    "LogicalOr": lambda a, b: True if a is True or b is True else (False if a is False and b is False else None),
    "LogicalXor": lambda a, b: None if a is None or b is None else a is not b,
}


def _condition(port: OutPort | None, depth: int) -> np.ndarray | None:
    """A boolean tensor as True/False/None (undecided) per element: a constant, Equal or
    NotEqual of symbolic values (equal expressions are equal; a sum of dims with positive
    coefficients is never a negative constant), and LogicalNot/And/Or/Xor, boolean Converts
    and the ops that move elements (Squeeze, Reshape, ...) of such conditions."""
    if port is None or depth > MAX_DEPTH:
        return None
    data = port.data
    if data.value is not None and data.value.dtype == np.bool_ and not data.shape_derived:
        flat = np.empty(data.value.size, dtype=object)
        flat[:] = [bool(v) for v in data.value.reshape(-1)]
        return flat.reshape(data.value.shape)
    node = port.node
    kind = node.op.type
    if not node.op.is_opset_op or port.idx != 0:
        return None
    if kind in ("LogicalNot", "Convert") and node.num_inputs() >= 1:
        source = node.in_port(0).get_source()
        if kind == "Convert" and (source is None or source.data.element_type != data.element_type):
            return None  # only a boolean's copy (ONNX Cast to bool of a bool)
        inner = _condition(source, depth + 1)
        return inner if inner is None or kind == "Convert" else _negated(inner)
    if kind in _MOVERS:
        return _moved(port, depth, _condition)
    if getattr(node.op, "auto_broadcast", "numpy") != "numpy":
        return None
    if kind in _LOGICAL:
        a, b = (_condition(node.in_port(i).get_source(), depth + 1) for i in (0, 1))
        return None if a is None or b is None else _elementwise_any(_LOGICAL[kind], a, b)
    if kind not in ("Equal", "NotEqual"):
        return None
    a = symbolic_value(node.in_port(0).get_source(), depth + 1)
    b = symbolic_value(node.in_port(1).get_source(), depth + 1)
    if a is None or b is None:
        return None
    equal = _elementwise(_equal, a, b)
    return equal if equal is None or kind == "Equal" else _negated(equal)


def _negated(condition: np.ndarray) -> np.ndarray:
    """A decided condition's negation, element by element (undecided stays undecided)."""
    return _object_array(np.frompyfunc(lambda c: None if c is None else not c, 1, 1)(condition))


def _elementwise_any(kernel: Callable[[object, object], object], a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``kernel`` over two object arrays, broadcast (None when their shapes do not broadcast)."""
    try:
        return _object_array(np.frompyfunc(kernel, 2, 1)(a, b))
    except ValueError:  # shapes that do not broadcast
        return None


def _object_array(result: Any) -> np.ndarray:
    """``np.frompyfunc``'s result as an object array (it returns a bare object for 0-d inputs)."""
    out = np.empty(np.shape(result), dtype=object)
    out[...] = result
    return out


def _equal(a: object, b: object) -> object:
    from irconv.types_symbols import Expr

    if a == b:
        return True
    if isinstance(a, int) and isinstance(b, int):
        return False
    for x, y in ((a, b), (b, a)):
        if isinstance(x, Expr) and isinstance(y, int) and y < 0 and all(c > 0 for _, c in x.terms):
            return False
    return None


def _broadcast_symbolic(node: Node, depth: int) -> np.ndarray | None:
    """A small value broadcast to a static target (``ConstantOfShape`` of a rank)."""
    data = symbolic_value(node.in_port(0).get_source(), depth + 1)
    target = symbolic_value(node.in_port(1).get_source(), depth + 1)
    if data is None or target is None or target.ndim != 1:
        return None
    if not all(isinstance(t, int) and 0 <= t <= 64 for t in target):
        return None
    try:
        shape = np.broadcast_shapes(data.shape, tuple(int(t) for t in target))
    except ValueError:
        return None
    out = np.empty(shape, dtype=object)
    out[...] = np.broadcast_to(data, shape)
    return out if out.ndim <= 1 else None
