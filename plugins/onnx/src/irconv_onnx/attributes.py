"""The attributes of an ONNX NodeProto as a ``SourceAttributes`` adapter.

``get(name)`` gives plain Python values: ints, floats, str, lists of them, NumPy arrays for
tensors and GraphProtos for graphs. Extractors read them typed through ``ctx.attrs``.
"""

from __future__ import annotations

from typing import Any

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
    """A NodeProto's attributes by name (``get``/``__contains__``/``names``), for ``ctx.attrs``."""

    __slots__ = ("_node", "_found")

    def __init__(self, node: Any) -> None:
        """The adapter over a NodeProto's attributes, read when first asked for: protobuf
        keeps a container object (~350 bytes) alive per node whose attributes were touched,
        and most nodes' attributes are never asked for."""
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


def graph_attributes(node: Any) -> list[Any]:
    """A NodeProto's sub-graph attributes (If branches, Loop bodies)."""
    # ListFields() names only the fields that are set. Reading ``node.attribute`` instead
    # would leave a container object (~350 bytes) on every node, attributes or not.
    for field, value in node.ListFields():
        if field.name == "attribute":
            return [a for a in value if a.type == _GRAPH]
    return []
