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

from irconv.protowire import LEN, VARINT, Malformed, fields, key, length_delimited, packed_varints, signed, varint

#: raw_data fields at least this large are left in the file.
MIN_BYTES = 256 * 1024

# Field numbers (onnx.proto).
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_TENSOR_DIMS, _TENSOR_DATA_TYPE, _TENSOR_RAW_DATA = 1, 2, 9
_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION = 13, 14

#: Bytes per element of the TensorProto data types whose raw_data is plain elements.
_ITEM_SIZE = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2}


def externalized(data: memoryview, location: str) -> bytes | None:
    """``data`` (a serialized ModelProto) with the main graph's large initializers turned
    into external data at their own offsets in the file named ``location``; ``None`` when
    there is nothing to gain or the file is not what the pass expects."""
    try:
        return _model(data, location)
    except Malformed:
        return None


def _model(data: memoryview, location: str) -> bytes | None:
    out: list[bytes] = []
    changed = graphs = 0
    for f in fields(data, 0, len(data)):
        if f.number == _MODEL_GRAPH and f.wire == LEN:
            graphs += 1
            graph, count = _graph(data, f.value, f.end, location)
            changed += count
            out.append(length_delimited(f.number, graph))
        else:
            out.append(bytes(data[f.begin : f.end]))
    if graphs != 1 or not changed:
        return None
    return b"".join(out)


def _graph(data: memoryview, begin: int, stop: int, location: str) -> tuple[bytes, int]:
    parts = list(fields(data, begin, stop))
    if not any(f.number == _GRAPH_INITIALIZER and f.end - f.value >= MIN_BYTES for f in parts):
        return b"", 0  # only small initializers: nothing to leave in the file
    out: list[bytes] = []
    changed = 0
    for f in parts:
        large = f.number == _GRAPH_INITIALIZER and f.wire == LEN and f.end - f.value >= MIN_BYTES
        tensor = _tensor(data, f.value, f.end, location) if large else None
        if tensor is None:
            out.append(bytes(data[f.begin : f.end]))
        else:
            changed += 1
            out.append(length_delimited(f.number, tensor))
    return b"".join(out), changed


def _tensor(data: memoryview, begin: int, stop: int, location: str) -> bytes | None:
    """The TensorProto without its raw_data and pointing at it instead, or None to keep it."""
    kept: list[bytes] = []
    dims: list[int] = []
    data_type = raw = None
    for f in fields(data, begin, stop):
        if f.number in (_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION):
            return None  # already external (or something unusual): leave it as it is
        if f.number == _TENSOR_RAW_DATA and f.wire == LEN:
            if raw is not None:
                return None
            raw = (f.value, f.end - f.value)
            continue
        if f.number == _TENSOR_DIMS:
            dims += packed_varints(data, f.value, f.end) if f.wire == LEN else [signed(f.value)]
        elif f.number == _TENSOR_DATA_TYPE and f.wire == VARINT:
            data_type = f.value
        kept.append(bytes(data[f.begin : f.end]))
    if raw is None or raw[1] < MIN_BYTES or data_type not in _ITEM_SIZE or any(d < 0 for d in dims):
        return None
    count = 1
    for d in dims:
        count *= d
    if count * _ITEM_SIZE[data_type] != raw[1]:
        return None  # the ordinary path explains the mismatch
    entries = {"location": location, "offset": str(raw[0]), "length": str(raw[1])}
    for name, value in entries.items():
        entry = length_delimited(1, name.encode()) + length_delimited(2, value.encode())
        kept.append(length_delimited(_TENSOR_EXTERNAL_DATA, entry))
    kept.append(key(_TENSOR_DATA_LOCATION, VARINT) + varint(1))  # EXTERNAL
    return b"".join(kept)
