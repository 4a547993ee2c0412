"""The attributes of an ONNX NodeProto: a ``SourceAttributes`` adapter with typed accessors.

``get(name)`` gives plain Python values (the protocol every extractor can use through
``ctx.attr``); ``int``/``ints``/``string``/... read one expected kind and fail with a clear
message naming the node when a required attribute is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from irconv.errors import ConversionError

# AttributeProto.AttributeType values.
_FLOAT, _INT, _STRING, _TENSOR, _GRAPH = 1, 2, 3, 4, 5
_FLOATS, _INTS, _STRINGS, _TENSORS, _GRAPHS = 6, 7, 8, 9, 10

_MISSING: Any = object()


def attribute_value(a: Any) -> Any:
    """One AttributeProto as a Python value (graphs stay GraphProtos)."""
    kind = a.type
    if kind == _FLOAT:
        return float(a.f)
    if kind == _INT:
        return int(a.i)
    if kind == _STRING:
        return a.s.decode("utf-8")
    if kind == _TENSOR:
        from irconv_onnx.tensors import tensor_to_array

        return tensor_to_array(a.t)
    if kind == _GRAPH:
        return a.g
    if kind == _FLOATS:
        return [float(v) for v in a.floats]
    if kind == _INTS:
        return [int(v) for v in a.ints]
    if kind == _STRINGS:
        return [s.decode("utf-8") for s in a.strings]
    if kind == _TENSORS:
        from irconv_onnx.tensors import tensor_to_array

        return [tensor_to_array(t) for t in a.tensors]
    if kind == _GRAPHS:
        return list(a.graphs)
    return a  # sparse tensors, type protos: the proto itself


class Attributes:
    """``attrs.int("axis", 1)``, ``attrs.ints("pads")``, ``attrs.string("mode", "constant")``;
    ``attrs.get("axis")`` for the ``SourceAttributes`` protocol.

    A missing attribute without a default is a ConversionError naming the node.
    """

    __slots__ = ("_name", "_op_type", "_node", "_found")

    def __init__(self, node: Any, node_name: str = "", op_type: str = "") -> None:
        """The adapter over a NodeProto's attributes, read when first asked for: protobuf
        keeps a container object (~350 bytes) alive per node whose attributes were touched,
        and most nodes' attributes are never asked for."""
        self._name = node_name or node.name or node.op_type
        self._op_type = op_type or node.op_type
        self._node: Any = node  # until the attributes are first asked for
        self._found: dict[str, Any] | None = None

    @property
    def _by_name(self) -> dict[str, Any]:
        if self._found is None:
            self._found = {a.name: a for a in self._node.attribute}
            self._node = None
        return self._found

    # -------------------------------------------------------- SourceAttributes
    def get(self, name: str, default: Any = None) -> Any:
        found = self._by_name.get(name)
        return default if found is None else attribute_value(found)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def names(self) -> list[str]:
        return list(self._by_name)

    # -------------------------------------------------------- typed accessors
    def _get(self, name: str, default: Any) -> Any:
        found = self._by_name.get(name)
        if found is None and default is _MISSING:
            raise ConversionError(
                f"node {self._name!r} ({self._op_type}): required attribute {name!r} is missing"
            )
        return found

    def int(self, name: str, default: Any = _MISSING) -> int:
        a = self._get(name, default)
        return default if a is None else int(a.i)

    def float(self, name: str, default: Any = _MISSING) -> float:
        a = self._get(name, default)
        return default if a is None else float(a.f)

    def string(self, name: str, default: Any = _MISSING) -> str:
        a = self._get(name, default)
        return default if a is None else a.s.decode("utf-8")

    def ints(self, name: str, default: Any = _MISSING) -> list[int]:
        a = self._get(name, default)
        return (None if default is None else list(default)) if a is None else [int(v) for v in a.ints]

    def floats(self, name: str, default: Any = _MISSING) -> list[float]:
        a = self._get(name, default)
        return (None if default is None else list(default)) if a is None else [float(v) for v in a.floats]

    def strings(self, name: str, default: Any = _MISSING) -> list[str]:
        a = self._get(name, default)
        return (None if default is None else list(default)) if a is None else [s.decode("utf-8") for s in a.strings]

    def tensor(self, name: str, default: Any = _MISSING) -> np.ndarray:
        a = self._get(name, default)
        if a is None:
            return default
        from irconv_onnx.tensors import tensor_to_array

        return tensor_to_array(a.t)

    def graph(self, name: str) -> Any:
        return self._get(name, _MISSING).g

    def bad(self, name: str, value: Any, why: str) -> ConversionError:
        """An error for an attribute value OpenVINO cannot express."""
        return ConversionError(
            f"node {self._name!r} ({self._op_type}): attribute {name}={value!r} is not supported: {why}"
        )


def graph_attributes(node: Any) -> list[Any]:
    """A NodeProto's sub-graph attributes (If branches, Loop bodies)."""
    # ListFields() names only the fields that are set. Reading ``node.attribute`` instead
    # would leave a container object (~350 bytes) on every node, attributes or not.
    for field, value in node.ListFields():
        if field.name == "attribute":
            return [a for a in value if a.type == _GRAPH]
    return []


def one_of(attrs: Attributes, name: str, default: str, allowed: Sequence[str]) -> str:
    """A string attribute restricted to ``allowed`` (else a clear error)."""
    value = attrs.string(name, default)
    if value not in allowed:
        raise attrs.bad(name, value, f"expected one of {', '.join(allowed)}")
    return value
