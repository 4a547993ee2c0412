"""Caffe layer parameters as plain values: the ``SourceAttributes`` adapter extractors read.

A layer's attributes are the fields of its ``LayerParameter`` — the parameter blocks
(``convolution_param``), and the layer's own fields (``top``, ``bottom``) — addressed by
name or by dotted path (``ctx.attrs.float("relu_param.negative_slope")``). Every field the
schema declares is an attribute, with caffe.proto's default when the prototxt leaves it
out (that default *is* Caffe's meaning); a name the schema does not declare is absent.
Whether the prototxt spelled a field out (Caffe's ``has_kernel_h()``) is ``is_set``.

Values are decoded: numbers, bools and strings as they are, enums as their names
(``"MAX"``), repeated fields as lists, and messages as ``ParamBlock`` views that decode
their own fields on access (``p.kernel_size``, ``p.is_set("kernel_h")``).
Parameter blocks the schema does not know (fork layers' custom blocks) come from the
text reader as plain values and are attributes too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from irconv.errors import quoted

_MISSING: Any = object()


def _decode(field: FieldDescriptor, value: Any) -> Any:
    if field.is_repeated:
        return [_decode_one(field, item) for item in value]
    return _decode_one(field, value)


def _decode_one(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return ParamBlock(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        found = field.enum_type.values_by_number.get(value)
        return found.name if found is not None else value
    return value


class ParamBlock:
    """A read-only view of one Caffe parameter message, decoding fields on access."""

    __slots__ = ("_message",)

    def __init__(self, message: Message) -> None:
        self._message = message

    def __getattr__(self, name: str) -> Any:
        field = self._message.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            raise AttributeError(f"{self._message.DESCRIPTOR.name} has no field {quoted(name)}")
        return _decode(field, getattr(self._message, name))

    def get(self, name: str, default: Any = None) -> Any:
        if name not in self._message.DESCRIPTOR.fields_by_name:
            return default
        return getattr(self, name)

    def is_set(self, name: str) -> bool:
        """Whether the prototxt gave the field (a non-empty list, for repeated fields)."""
        field = self._message.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            return False
        if field.is_repeated:
            return len(getattr(self._message, name)) > 0
        return bool(self._message.HasField(name))

    def names(self) -> list[str]:
        """The fields the prototxt gave."""
        return [field.name for field, _ in self._message.ListFields()]

    def __repr__(self) -> str:
        return f"ParamBlock({self._message.DESCRIPTOR.name}: {', '.join(self.names())})"


class CaffeAttributes:
    """``SourceAttributes`` over a ``LayerParameter`` and its unknown (custom) blocks."""

    def __init__(self, layer: Message, extra: Mapping[str, object] | None = None) -> None:
        self._layer = ParamBlock(layer)
        self._extra = dict(extra or {})

    def _resolve(self, name: str) -> Any:
        head, _, rest = name.partition(".")
        if head in self._extra:
            value: Any = self._extra[head]
            for part in rest.split(".") if rest else ():
                if not isinstance(value, Mapping) or part not in value:
                    return _MISSING
                value = value[part]
            return value
        value = self._layer
        for part in name.split("."):
            if not isinstance(value, ParamBlock):
                return _MISSING
            value = value.get(part, _MISSING)
            if value is _MISSING:
                return _MISSING
        return value

    def get(self, name: str, default: Any = None) -> Any:
        value = self._resolve(name)
        return default if value is _MISSING else value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._resolve(name) is not _MISSING

    def is_set(self, name: str) -> bool:
        """Whether the prototxt spelled out the field at the dotted path ``name``."""
        head, _, rest = name.rpartition(".")
        if not head and name in self._extra:
            return True
        parent = self._resolve(head) if head else self._layer
        if isinstance(parent, ParamBlock):
            return parent.is_set(rest)
        return isinstance(parent, Mapping) and rest in parent

    def names(self) -> Iterable[str]:
        """The fields and blocks the prototxt gave (every schema field is readable)."""
        return [*self._layer.names(), *self._extra]
