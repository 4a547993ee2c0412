"""A framework node as the TF front end keeps it between parsing and extraction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from irconv.errors import ConversionError, ModelFileError, quoted

from irconv_tf.tensors import shape_of, to_numpy

Tensor = tuple[str, int]  # (producer node name, output index)


@dataclass
class TFNode:
    """One TensorFlow op after function inlining: data inputs resolved to (node, port).

    ``attr`` is the NodeDef's attribute map (``AttrValue`` protos); ``value`` is set on
    nodes the loader turned into constants (frozen weights, checkpoint variables).
    A TFNode is also the node's ``SourceAttributes`` adapter (``get``, ``in``, ``names``):
    extractors read its attributes as Python values through ``ctx.attr``.
    """

    name: str
    op: str
    inputs: list[Tensor]
    attr: Mapping[str, Any] = field(default_factory=dict)
    value: np.ndarray | None = None

    def __contains__(self, key: object) -> bool:
        return key in self.attr

    def names(self) -> Iterable[str]:
        return list(self.attr)

    def get(self, key: str, default: Any = None) -> Any:
        """An attribute as a Python value: str, int, float, bool, dtype int, shape, ndarray, list."""
        if key == "value" and self.op == "Const" and self.value is not None:
            return self.value  # its bytes were left in the file (see irconv_tf.wire)
        if key not in self.attr:
            return default
        return attr_value(self.attr[key], f"node {quoted(self.name)} attribute {quoted(key)}")

    def need(self, key: str) -> Any:
        if key not in self.attr:
            raise ConversionError(f"node {quoted(self.name)} ({self.op}) has no attribute {quoted(key)}")
        return self.get(key)


def attr_value(value: Any, where: str) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "s":
        return value.s.decode("utf-8", "replace")
    if kind in ("i", "f", "b", "type", "placeholder"):
        return getattr(value, kind)
    if kind == "shape":
        return shape_of(value.shape)
    if kind == "tensor":
        return to_numpy(value.tensor, where)
    if kind == "func":
        return value.func.name
    lst = value.list
    for name in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
        items = getattr(lst, name)
        if len(items):
            if name == "s":
                return [s.decode("utf-8", "replace") for s in items]
            if name == "shape":
                return [shape_of(s) for s in items]
            if name == "tensor":
                return [to_numpy(t, where) for t in items]
            if name == "func":
                return [f.name for f in items]
            return list(items)
    return []


def reachable(nodes: dict[str, TFNode], outputs: Sequence[Tensor]) -> list[str]:
    """Names of the nodes the outputs depend on, producers first (iterative DFS)."""
    order: list[str] = []
    state: dict[str, int] = {}
    for start, _ in outputs:
        if start not in nodes:
            raise ModelFileError(f"output tensor refers to unknown node {quoted(start)}")
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            name, i = stack.pop()
            if i == 0:
                if state.get(name):
                    continue
                state[name] = 1
            node = nodes[name]
            if i < len(node.inputs):
                stack.append((name, i + 1))
                child = node.inputs[i][0]
                if child not in nodes:
                    raise ModelFileError(f"node {quoted(name)} reads unknown node {quoted(child)}")
                if not state.get(child):
                    stack.append((child, 0))
            elif state[name] == 1:
                state[name] = 2
                order.append(name)
    return order


def keep_as_input(nodes: Mapping[str, TFNode], node: TFNode) -> None:
    """Turn a PlaceholderWithDefault into a Placeholder (a model input).

    Its ``shape`` attribute is what TensorFlow lets a caller feed; when that says nothing
    (unknown rank), the shape of a constant default stands in for it.
    """
    from irconv_tf.proto import graph_pb2, tensor_pb2

    attrs = dict(node.attr)
    default = nodes.get(node.inputs[0][0]) if node.inputs else None
    if node.get("shape") is None and default is not None and default.op == "Const":
        dims = [tensor_pb2.TensorShapeProto.Dim(size=d) for d in default.need("value").shape]
        shape = tensor_pb2.TensorShapeProto(dim=dims)
        attrs["shape"] = graph_pb2.AttrValue(shape=shape)
    node.attr = attrs
    node.op = "Placeholder"
    node.inputs = []
