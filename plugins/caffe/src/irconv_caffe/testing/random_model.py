"""Write a seeded random-weight caffemodel for a deploy prototxt.

Weights are He-scaled (activations stay in range through deep ReLU stacks), BatchNorm
variances positive and its scale factor non-trivial. The file is written in Caffe's own
wire format, streaming each blob's bytes, so even VGG16's ~530 MB is quick to make. A V1
prototxt gets a V1 caffemodel (``layers`` with legacy 4-D blob dims), as old models have.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import BinaryIO

import numpy as np
from google.protobuf import text_format

from irconv_caffe.loader import declared_inputs, input_layer_shapes
from irconv_caffe.proto import caffe_pb2 as pb
from irconv_caffe.prototxt import read_prototxt
from irconv_caffe.testing.param_shapes import Shape, parameter_shapes
from irconv_caffe.v1_upgrade import V1_TYPE_NAMES

_V1_TYPES = {name: number for number, name in V1_TYPE_NAMES.items()}


def declared_input_shapes(net: pb.NetParameter, path: Path) -> dict[str, Shape]:
    declared = list(declared_inputs(net, path))
    for layer in net.layer:
        if layer.type == "Input":
            declared += input_layer_shapes(layer, path)
    # Test inputs need static shapes: a dynamic dim would be a broken test model.
    return {name: tuple(int(d or 0) for d in shape) for name, shape in declared if shape is not None}


def random_blobs(layer_type: str, shapes: list[Shape], rng: np.random.Generator) -> list[np.ndarray]:
    """Plausible values for one layer's blobs."""
    if layer_type == "BatchNorm":
        channels = shapes[0]
        factor = np.float32(rng.uniform(0.5, 2.0))
        mean = rng.normal(0.0, 0.2, channels).astype(np.float32)
        var = rng.uniform(0.5, 1.5, channels).astype(np.float32)
        return [mean * factor, var * factor, np.array([factor], np.float32)]
    if layer_type == "Scale":
        out = [rng.uniform(0.8, 1.2, shapes[0]).astype(np.float32)]
        return out + [rng.normal(0.0, 0.1, s).astype(np.float32) for s in shapes[1:]]
    if layer_type == "PReLU":
        return [rng.uniform(0.05, 0.3, shapes[0]).astype(np.float32)]
    if layer_type == "Normalize":
        return [rng.uniform(1.0, 3.0, shapes[0]).astype(np.float32)]
    blobs = []
    for i, shape in enumerate(shapes):
        if i == 0 and len(shape) >= 2:
            fan_in = math.prod(shape[1:])
            blobs.append(rng.standard_normal(shape, dtype=np.float32) * np.float32(math.sqrt(2.0 / fan_in)))
        else:
            blobs.append(rng.normal(0.0, 0.05, shape).astype(np.float32))
    return blobs


def write_random_caffemodel(
    prototxt: Path, out: Path, *, seed: int = 0, gain: dict[str, float] | None = None
) -> dict[str, list[np.ndarray]]:
    """Write ``out`` for ``prototxt``; returns the blobs written, by layer name.

    ``gain`` multiplies the first blob of layers whose name contains a key (e.g. make an
    SSD's confidence heads confident enough to detect something).
    """
    raw = pb.NetParameter()
    text_format.Parse(Path(prototxt).read_text(), raw, allow_unknown_field=True)
    legacy = bool(raw.layers)
    net = read_prototxt(Path(prototxt))
    shapes = parameter_shapes(net, declared_input_shapes(net, Path(prototxt)))
    rng = np.random.default_rng(seed)
    written: dict[str, list[np.ndarray]] = {}
    with open(out, "wb") as file:
        _write_bytes(file, _field_len(1, net.name.encode()) if net.name else b"")
        for layer in net.layer:
            blobs = random_blobs(layer.type, shapes[layer.name], rng) if layer.name in shapes else []
            for key, factor in (gain or {}).items():
                if key in layer.name and blobs:
                    blobs[0] = blobs[0] * np.float32(factor)
            written[layer.name] = blobs
            _write_layer(file, layer, blobs, legacy)
    return written


def _write_layer(file: BinaryIO, layer: pb.LayerParameter, blobs: list[np.ndarray], legacy: bool) -> None:
    if legacy:
        head = _field_len(4, layer.name.encode()) + _key(5, 0) + _varint(_V1_TYPES[layer.type])
        blob_field, layer_field = 6, 2
    else:
        head = _field_len(1, layer.name.encode()) + _field_len(2, layer.type.encode())
        blob_field, layer_field = 7, 100
    encoded = [_blob_message(blob, legacy) for blob in blobs]
    body_size = len(head) + sum(len(_key(blob_field, 2)) + len(_varint(_size(e))) + _size(e) for e in encoded)
    _write_bytes(file, _key(layer_field, 2) + _varint(body_size) + head)
    for parts in encoded:
        _write_bytes(file, _key(blob_field, 2) + _varint(_size(parts)))
        for part in parts:
            file.write(part)


def _blob_message(blob: np.ndarray, legacy: bool) -> list[bytes | memoryview]:
    data = np.ascontiguousarray(blob, dtype="<f4")
    if legacy:
        dims = (1,) * (4 - blob.ndim) + tuple(blob.shape) if blob.ndim <= 4 else tuple(blob.shape)
        head = b"".join(_key(number, 0) + _varint(d) for number, d in zip((1, 2, 3, 4), dims, strict=False))
    else:
        shape = b"".join(_varint(d) for d in blob.shape)
        head = _field_len(7, _field_len(1, shape) if blob.ndim else b"")
    payload = data.reshape(-1).view(np.uint8).data
    return [head + _key(5, 2) + _varint(payload.nbytes), payload]


def _size(parts: list[bytes | memoryview]) -> int:
    return sum(len(p) if isinstance(p, bytes) else p.nbytes for p in parts)


def _write_bytes(file: BinaryIO, data: bytes) -> None:
    file.write(data)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _field_len(number: int, payload: bytes) -> bytes:
    return _key(number, 2) + _varint(len(payload)) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
