"""Reading a frozen GraphDef without copying its weights.

Parsing a GraphDef copies every constant's ``tensor_content`` into the message, and reading
it copies it again into a Python ``bytes``. Instead, one pass over the protobuf wire format
finds the large ``tensor_content`` of the graph's ``Const`` nodes; the message is parsed
from a copy of the file without them, and the loader gives those nodes arrays mapped from
the file (``TFNode.value``). Anything the pass does not expect returns ``None`` and the file
is parsed whole, which reports what is wrong with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from irconv.protowire import LEN, VARINT, Malformed, fields, length_delimited, signed

#: tensor_content fields at least this large are left in the file.
MIN_BYTES = 256 * 1024

_GRAPH_NODE = 1
_NODE_NAME, _NODE_OP, _NODE_ATTR = 1, 2, 5
_ENTRY_KEY, _ENTRY_VALUE = 1, 2
_ATTR_TENSOR = 8
_TENSOR_DTYPE, _TENSOR_SHAPE, _TENSOR_VERSION, _TENSOR_CONTENT = 1, 2, 3, 4
_SHAPE_DIM, _SHAPE_UNKNOWN_RANK = 2, 3
_DIM_SIZE = 1


@dataclass(frozen=True)
class MappedTensor:
    """Where a constant's bytes lie in the file, and what they are."""

    offset: int
    length: int
    dtype: int  # TensorFlow DataType enum
    shape: tuple[int, ...]


def without_large_constants(data: memoryview) -> tuple[bytes, dict[str, MappedTensor]] | None:
    """The GraphDef ``data`` without the large constants' contents, and where each of them
    lies (by node name); None when there is nothing to gain or anything looks unusual."""
    try:
        out: list[bytes] = []
        found: dict[str, MappedTensor] = {}
        for f in fields(data, 0, len(data)):
            rebuilt = _node(data, f.value, f.end, found) if f.number == _GRAPH_NODE and f.wire == LEN else None
            out.append(bytes(data[f.begin : f.end]) if rebuilt is None else length_delimited(f.number, rebuilt))
    except Malformed:
        return None
    return (b"".join(out), found) if found else None


def _node(data: memoryview, begin: int, stop: int, found: dict[str, MappedTensor]) -> bytes | None:
    parts = list(fields(data, begin, stop))
    text = {f.number: bytes(data[f.value : f.end]) for f in parts if f.wire == LEN and f.number <= _NODE_OP}
    if text.get(_NODE_OP) != b"Const" or _NODE_NAME not in text:
        return None
    name = text[_NODE_NAME].decode("utf-8", "replace")
    out: list[bytes] = []
    mapped = None
    for f in parts:
        entry = _attr_entry(data, f.value, f.end) if f.number == _NODE_ATTR and f.wire == LEN else None
        if entry is None:
            out.append(bytes(data[f.begin : f.end]))
        else:
            if mapped is not None or name in found:
                raise Malformed("two constant values for one node")
            payload, mapped = entry
            out.append(length_delimited(f.number, payload))
    if mapped is None:
        return None
    found[name] = mapped
    return b"".join(out)


def _attr_entry(data: memoryview, begin: int, stop: int) -> tuple[bytes, MappedTensor] | None:
    """The ``value`` attribute's map entry without the tensor's content, or None."""
    parts = list(fields(data, begin, stop))
    keys = [bytes(data[f.value : f.end]) for f in parts if f.number == _ENTRY_KEY and f.wire == LEN]
    values = [f for f in parts if f.number == _ENTRY_VALUE and f.wire == LEN]
    if keys != [b"value"] or len(values) != 1:
        return None
    out: list[bytes] = []
    mapped = None
    for f in parts:
        if f is values[0]:
            rebuilt = _attr_value(data, f.value, f.end)
            if rebuilt is None:
                return None
            payload, mapped = rebuilt
            out.append(length_delimited(f.number, payload))
        else:
            out.append(bytes(data[f.begin : f.end]))
    assert mapped is not None
    return b"".join(out), mapped


def _attr_value(data: memoryview, begin: int, stop: int) -> tuple[bytes, MappedTensor] | None:
    parts = list(fields(data, begin, stop))
    tensors = [f for f in parts if f.number == _ATTR_TENSOR and f.wire == LEN]
    if len(tensors) != 1 or len(parts) != 1:
        return None
    rebuilt = _tensor(data, tensors[0].value, tensors[0].end)
    if rebuilt is None:
        return None
    payload, mapped = rebuilt
    return length_delimited(_ATTR_TENSOR, payload), mapped


def _tensor(data: memoryview, begin: int, stop: int) -> tuple[bytes, MappedTensor] | None:
    kept: list[bytes] = []
    dtype = content = shape = None
    for f in fields(data, begin, stop):
        if f.number == _TENSOR_CONTENT and f.wire == LEN:
            if content is not None:
                return None
            content = (f.value, f.end - f.value)
            continue
        if f.number == _TENSOR_DTYPE and f.wire == VARINT:
            dtype = f.value
        elif f.number == _TENSOR_SHAPE and f.wire == LEN:
            if shape is not None:
                return None
            shape = _shape(data, f.value, f.end)
        elif f.number != _TENSOR_VERSION:  # values given another way: keep the tensor ordinary
            return None
        kept.append(bytes(data[f.begin : f.end]))
    if content is None or content[1] < MIN_BYTES or dtype is None or shape is None:
        return None
    return b"".join(kept), MappedTensor(content[0], content[1], dtype, shape)


def _shape(data: memoryview, begin: int, stop: int) -> tuple[int, ...] | None:
    dims: list[int] = []
    for f in fields(data, begin, stop):
        if f.number == _SHAPE_UNKNOWN_RANK and f.value:
            return None
        if f.number == _SHAPE_DIM and f.wire == LEN:
            dim = fields(data, f.value, f.end)
            sizes = [signed(d.value) for d in dim if d.number == _DIM_SIZE and d.wire == VARINT]
            dims.append(sizes[-1] if sizes else 0)
    return None if any(d < 0 for d in dims) else tuple(dims)
