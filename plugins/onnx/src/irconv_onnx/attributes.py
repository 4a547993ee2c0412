"""Typed access to the attributes of an ONNX NodeProto."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from irconv.errors import ConversionError

# AttributeProto.AttributeType values.
_FLOAT, _INT, _STRING, _TENSOR, _GRAPH = 1, 2, 3, 4, 5
_FLOATS, _INTS, _STRINGS = 6, 7, 8

_MISSING: Any = object()


class Attributes:
    """``attrs.int("axis", 1)``, ``attrs.ints("pads")``, ``attrs.string("mode", "constant")``.

    A missing attribute without a default is a ConversionError naming the node.
    """

    def __init__(self, node: Any, node_name: str = "") -> None:
        self._node = node
        self._name = node_name or node.name or node.op_type
        self._by_name = {a.name: a for a in node.attribute}

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def names(self) -> list[str]:
        return list(self._by_name)

    def _get(self, name: str, default: Any) -> Any:
        found = self._by_name.get(name)
        if found is None and default is _MISSING:
            raise ConversionError(
                f"node {self._name!r} ({self._node.op_type}): required attribute {name!r} is missing"
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

    def raw(self, name: str) -> Any:
        """The AttributeProto itself, or None."""
        return self._by_name.get(name)

    def bad(self, name: str, value: Any, why: str) -> ConversionError:
        """An error for an attribute value OpenVINO cannot express."""
        return ConversionError(
            f"node {self._name!r} ({self._node.op_type}): attribute {name}={value!r} is not supported: {why}"
        )


def one_of(attrs: Attributes, name: str, default: str, allowed: Sequence[str]) -> str:
    """A string attribute restricted to ``allowed`` (else a clear error)."""
    value = attrs.string(name, default)
    if value not in allowed:
        raise attrs.bad(name, value, f"expected one of {', '.join(allowed)}")
    return value
