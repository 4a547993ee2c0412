"""The zero-copy caffemodel reader, checked against the protobuf runtime's own encoding."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import pytest
from irconv.errors import ModelFileError
from irconv_caffe.caffemodel import read_caffemodel
from irconv_caffe.proto import caffe_pb2 as pb


def write(path: Path, net: pb.NetParameter) -> Path:
    path.write_bytes(net.SerializeToString())
    return path


def test_blobs_are_views_of_the_mapped_file(tmp_path: Path) -> None:
    net = pb.NetParameter(name="n")
    layer = net.layer.add(name="conv", type="Convolution")
    weights = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
    blob = layer.blobs.add()
    blob.shape.dim.extend(weights.shape)
    blob.data.extend(weights.ravel().tolist())
    layer.blobs.add(data=[0.5, -1.5]).shape.dim.append(2)
    model = read_caffemodel(write(tmp_path / "m.caffemodel", net))
    found = model.get("conv")
    assert found is not None and found.type == "Convolution"
    first = found.blobs[0].array()
    np.testing.assert_array_equal(first, weights)
    assert not first.flags.owndata and not first.flags.writeable
    base = first
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    assert isinstance(base, mmap.mmap)
    np.testing.assert_array_equal(found.blobs[1].array(), [0.5, -1.5])


def test_v1_layers_with_legacy_dims(tmp_path: Path) -> None:
    net = pb.NetParameter()
    old = net.layers.add(name="fc", type=pb.V1LayerParameter.INNER_PRODUCT)
    old.blobs.add(num=1, channels=1, height=3, width=2, data=[1, 2, 3, 4, 5, 6])
    model = read_caffemodel(write(tmp_path / "v1.caffemodel", net))
    blob = model.layers["fc"].blobs[0]
    assert blob.legacy and blob.shape == (1, 1, 3, 2)
    assert model.layers["fc"].type == str(pb.V1LayerParameter.INNER_PRODUCT)


def test_double_and_unpacked_data(tmp_path: Path) -> None:
    net = pb.NetParameter()
    layer = net.layer.add(name="s", type="Scale")
    layer.blobs.add(double_data=[0.25, 4.0]).shape.dim.append(2)
    model = read_caffemodel(write(tmp_path / "d.caffemodel", net))
    np.testing.assert_array_equal(model.layers["s"].blobs[0].array(), np.array([0.25, 4.0], np.float32))
    # Unpacked floats: field 5, wire type 5, one value each.
    blob = b"\x2d" + np.float32(1.5).tobytes() + b"\x2d" + np.float32(-2).tobytes()
    layer_bytes = b"\x0a\x01x" + b"\x3a" + bytes([len(blob)]) + blob
    raw = b"\xa2\x06" + bytes([len(layer_bytes)]) + layer_bytes
    (tmp_path / "u.caffemodel").write_bytes(raw)
    np.testing.assert_array_equal(read_caffemodel(tmp_path / "u.caffemodel").layers["x"].blobs[0].data, [1.5, -2])


@pytest.mark.parametrize("content", [b"", b"\x0a\xff\xff\xff\x0f", b"name: 'text'\nlayer {\n}\n"])
def test_broken_files_are_reported(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.caffemodel"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match="bad.caffemodel"):
        read_caffemodel(path)
