"""Reading an ``.onnx`` file without copying its weights.

Parsing a ModelProto copies every initializer's ``raw_data`` into the message, which for a
model with hundreds of MiB of inline weights is most of the load time and doubles the
memory the weights take. Instead, one pass over the protobuf wire format finds the large
``raw_data`` fields of the main graph's initializers, and the message is parsed from a
copy of the file in which each of those tensors instead says where its bytes are: as
ONNX external data pointing into the model file itself. The weights are then memory
mapped like any external data (``tensors.tensor_to_array``).

The pass is deliberately strict: anything unexpected (a malformed field, a tensor whose
byte count does not match its shape, a graph given twice) returns ``None`` and the file is
parsed the ordinary way, which reports what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Iterator

#: raw_data fields at least this large are left in the file.
MIN_BYTES = 256 * 1024

# Field numbers (onnx.proto).
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_TENSOR_DIMS, _TENSOR_DATA_TYPE, _TENSOR_RAW_DATA = 1, 2, 9
_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION = 13, 14
_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5

#: Bytes per element of the TensorProto data types whose raw_data is plain elements.
_ITEM_SIZE = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2}


class _Malformed(Exception):
    pass


def externalized(data: memoryview, location: str) -> bytes | None:
    """``data`` (a serialized ModelProto) with the main graph's large initializers turned
    into external data at their own offsets in the file named ``location``; ``None`` when
    there is nothing to gain or the file is not what the pass expects."""
    try:
        return _model(data, location)
    except (_Malformed, IndexError):
        return None


def _model(data: memoryview, location: str) -> bytes | None:
    out: list[bytes] = []
    changed = graphs = 0
    for number, wire, start, end, field_start in _fields(data, 0, len(data)):
        if number == _MODEL_GRAPH and wire == _LEN:
            graphs += 1
            graph, count = _graph(data, start, end, location)
            changed += count
            out.append(_tag(number, _LEN) + _varint(len(graph)) + graph)
        else:
            out.append(bytes(data[field_start:end]))
    if graphs != 1 or not changed:
        return None
    return b"".join(out)


def _graph(data: memoryview, begin: int, stop: int, location: str) -> tuple[bytes, int]:
    out: list[bytes] = []
    changed = 0
    for number, wire, start, end, field_start in _fields(data, begin, stop):
        tensor = _tensor(data, start, end, location) if number == _GRAPH_INITIALIZER and wire == _LEN else None
        if tensor is None:
            out.append(bytes(data[field_start:end]))
        else:
            changed += 1
            out.append(_tag(number, _LEN) + _varint(len(tensor)) + tensor)
    return b"".join(out), changed


def _tensor(data: memoryview, begin: int, stop: int, location: str) -> bytes | None:
    """The TensorProto without its raw_data and pointing at it instead, or None to keep it."""
    kept: list[bytes] = []
    dims: list[int] = []
    data_type = raw = None
    for number, wire, start, end, field_start in _fields(data, begin, stop):
        if number in (_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION):
            return None  # already external (or something unusual): leave it as it is
        if number == _TENSOR_RAW_DATA and wire == _LEN:
            if raw is not None:
                return None
            raw = (start, end - start)
            continue
        if number == _TENSOR_DIMS:
            dims.extend(_varints(data, start, end) if wire == _LEN else [start] if wire == _VARINT else [])
        elif number == _TENSOR_DATA_TYPE and wire == _VARINT:
            data_type = start
        kept.append(bytes(data[field_start:end]))
    if raw is None or raw[1] < MIN_BYTES or data_type not in _ITEM_SIZE:
        return None
    count = 1
    for d in dims:
        count *= d
    if any(d < 0 for d in dims) or count * _ITEM_SIZE[data_type] != raw[1]:
        return None  # the ordinary path explains the mismatch
    entries = {"location": location, "offset": str(raw[0]), "length": str(raw[1])}
    for key, value in entries.items():
        entry = _string(1, key) + _string(2, value)
        kept.append(_tag(_TENSOR_EXTERNAL_DATA, _LEN) + _varint(len(entry)) + entry)
    kept.append(_tag(_TENSOR_DATA_LOCATION, _VARINT) + _varint(1))  # EXTERNAL
    return b"".join(kept)


def _fields(data: memoryview, pos: int, stop: int) -> Iterator[tuple[int, int, int, int, int]]:
    """(field number, wire type, start, end, field start) per field in ``data[pos:stop]``.

    For a length-delimited field ``start:end`` is its payload; for a varint ``start`` is its
    value and ``end`` the position after it; fixed-size fields span their bytes.
    """
    if stop > len(data):
        raise _Malformed
    while pos < stop:
        field_start = pos
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed
        if wire == _VARINT:
            value, pos = _read_varint(data, pos)
            yield number, wire, value, pos, field_start
        elif wire == _LEN:
            length, pos = _read_varint(data, pos)
            if pos + length > stop:
                raise _Malformed
            yield number, wire, pos, pos + length, field_start
            pos += length
        elif wire in (_FIXED64, _FIXED32):
            size = 8 if wire == _FIXED64 else 4
            if pos + size > stop:
                raise _Malformed
            yield number, wire, pos, pos + size, field_start
            pos += size
        else:
            raise _Malformed  # groups are not used by onnx.proto


def _read_varint(data: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise _Malformed


def _varints(data: memoryview, pos: int, stop: int) -> list[int]:
    values = []
    while pos < stop:
        value, pos = _read_varint(data, pos)
        values.append(value - (1 << 64) if value >= 1 << 63 else value)
    return values


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _string(number: int, text: str) -> bytes:
    raw = text.encode()
    return _tag(number, _LEN) + _varint(len(raw)) + raw
