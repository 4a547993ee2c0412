"""Read a binary ``.caffemodel`` for its weights, without copying them.

A caffemodel is a serialized ``NetParameter``. Decoding it with the protobuf runtime
would copy every float into a Python list; instead this reader walks the wire format
over a memory map and turns each ``BlobProto.data`` (a packed run of little-endian
floats) into a NumPy view of the file's bytes. Only what the converter needs is read:
each layer's name, type and blobs. Layer parameters always come from the prototxt
(fork protos disagree on their field numbers, e.g. ``ceil_mode`` vs ``round_mode``).
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from irconv import MetaKey
from irconv.errors import ModelFileError

# Wire types.
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5

# NetParameter fields.
_NET_LAYER, _NET_LAYERS_V1 = 100, 2
# LayerParameter / V1LayerParameter fields: (name, type, blobs).
_LAYER_FIELDS = {_NET_LAYER: (1, 2, 7), _NET_LAYERS_V1: (4, 5, 6)}
# BlobProto fields.
_BLOB_SHAPE, _BLOB_DATA, _BLOB_DOUBLE_DATA = 7, 5, 8
_BLOB_LEGACY_DIMS = {1: 0, 2: 1, 3: 2, 4: 3}  # num, channels, height, width


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


@dataclass
class Blob:
    """One weight blob: its values (a view of the file) and its declared shape.

    ``legacy`` marks a V1-style blob whose shape is the 4-D ``num/channels/height/width``
    (e.g. ``1 x 1 x 4096 x 9216`` for an InnerProduct weight).
    """

    data: np.ndarray
    shape: tuple[int, ...]
    legacy: bool = False

    def array(self) -> np.ndarray:
        """The values in the blob's declared shape (a view, no copy)."""
        return self.data.reshape(self.shape)


@dataclass
class LayerWeights:
    name: str
    type: str
    blobs: list[Blob] = field(default_factory=list)


@dataclass
class CaffeWeights:
    """Every layer of a caffemodel with blobs, by name (O(1) lookup)."""

    path: Path
    layers: dict[str, LayerWeights]
    # Keeps the memory map alive as long as the views over it are used.
    buffer: object = None

    def get(self, name: str) -> LayerWeights | None:
        return self.layers.get(name)


#: The caffemodel's memory map: the weight Consts are views of it, so it lives as long as the graph.
WEIGHTS: MetaKey[CaffeWeights] = MetaKey("caffe.weights", CaffeWeights, doc="keeps the caffemodel mapped")


def read_caffemodel(path: Path) -> CaffeWeights:
    """Map ``path`` and index its layers' blobs by layer name."""
    try:
        with open(path, "rb") as file:
            size = file.seek(0, 2)
            if size == 0:
                raise ModelFileError(f"{path}: the caffemodel is empty")
            buffer = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise ModelFileError(f"cannot read the caffemodel {path}: {exc.strerror or exc}") from exc
    view = memoryview(buffer)
    try:
        layers = _read_net(view, buffer)
    except WireError as exc:
        raise ModelFileError(
            f"{path} is not a binary Caffe model (.caffemodel): {exc}; HDF5 weights (.caffemodel.h5) are not supported"
        ) from None
    return CaffeWeights(path, layers, buffer)


def _read_net(view: memoryview, buffer: mmap.mmap) -> dict[str, LayerWeights]:
    layers: dict[str, LayerWeights] = {}
    for number, wire, start, end in _fields(view, 0, len(view)):
        if number in _LAYER_FIELDS and wire == _LEN:
            layer = _read_layer(view, buffer, start, end, *_LAYER_FIELDS[number])
            # A name seen twice (a V1 and a V2 copy) keeps the one with blobs.
            if layer.name and (layer.blobs or layer.name not in layers):
                layers[layer.name] = layer
    return layers


def _read_layer(
    view: memoryview, buffer: mmap.mmap, start: int, end: int, name_no: int, type_no: int, blobs_no: int
) -> LayerWeights:
    layer = LayerWeights("", "")
    for number, wire, s, e in _fields(view, start, end):
        if number == name_no and wire == _LEN:
            layer.name = bytes(view[s:e]).decode("utf-8", "replace")
        elif number == type_no:
            layer.type = bytes(view[s:e]).decode("utf-8", "replace") if wire == _LEN else str(s)
        elif number == blobs_no and wire == _LEN:
            layer.blobs.append(_read_blob(view, buffer, s, e))
    return layer


def _read_blob(view: memoryview, buffer: mmap.mmap, start: int, end: int) -> Blob:
    shape: list[int] | None = None
    legacy = [0, 0, 0, 0]
    has_legacy = False
    data: np.ndarray | None = None
    loose: list[float] = []  # unpacked floats (not written by Caffe, tolerated)
    for number, wire, s, e in _fields(view, start, end):
        if number == _BLOB_SHAPE and wire == _LEN:
            shape = _read_dims(view, s, e)
        elif number == _BLOB_DATA and wire == _LEN:
            if (e - s) % 4:
                raise WireError("a blob's packed float data has a length that is not a multiple of 4")
            data = np.frombuffer(buffer, dtype="<f4", count=(e - s) // 4, offset=s)
        elif number == _BLOB_DATA and wire == _I32:
            loose.append(float(np.frombuffer(buffer, dtype="<f4", count=1, offset=s)[0]))
        elif number == _BLOB_DOUBLE_DATA and wire == _LEN and data is None:
            doubles = np.frombuffer(buffer, dtype="<f8", count=(e - s) // 8, offset=s)
            data = doubles.astype(np.float32)
        elif number in _BLOB_LEGACY_DIMS and wire == _VARINT:
            legacy[_BLOB_LEGACY_DIMS[number]] = s
            has_legacy = True
    if data is None:
        data = np.asarray(loose, dtype=np.float32)
    if shape is not None:
        return Blob(data, tuple(shape))
    if has_legacy:
        return Blob(data, tuple(legacy), legacy=True)
    return Blob(data, (data.size,))


def _read_dims(view: memoryview, start: int, end: int) -> list[int]:
    dims: list[int] = []
    for number, wire, s, e in _fields(view, start, end):
        if number != 1:
            continue
        if wire == _LEN:  # packed
            pos = s
            while pos < e:
                value, pos = _varint(view, pos)
                dims.append(_signed64(value))
        elif wire == _VARINT:
            dims.append(_signed64(s))
    return dims


def _fields(view: memoryview, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """Yield ``(field number, wire type, a, b)`` for each field in ``view[start:end]``.

    For length-delimited fields ``a:b`` is the payload's byte range; for varints ``a``
    is the value; for fixed-size fields ``a`` is the payload's offset.
    """
    pos = start
    while pos < end:
        key, pos = _varint(view, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError(f"field number 0 at byte {pos}")
        if wire == _VARINT:
            value, pos = _varint(view, pos)
            yield number, wire, value, pos
        elif wire == _LEN:
            length, pos = _varint(view, pos)
            if pos + length > end:
                raise WireError(f"a field runs past the end of its message at byte {pos}")
            yield number, wire, pos, pos + length
            pos += length
        elif wire == _I32:
            yield number, wire, pos, pos + 4
            pos += 4
        elif wire == _I64:
            yield number, wire, pos, pos + 8
            pos += 8
        else:
            raise WireError(f"unsupported wire type {wire} at byte {pos}")
    if pos != end:
        raise WireError("a message is truncated")


def _varint(view: memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    limit = len(view)
    while True:
        if pos >= limit:
            raise WireError("the file ends inside a number")
        byte = view[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError(f"a number longer than 10 bytes at byte {pos}")


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value
