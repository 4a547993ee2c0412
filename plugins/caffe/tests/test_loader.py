"""Building the graph: the three input declaration styles, in-place layers and outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv import ConversionOptions
from irconv.errors import ModelFileError
from irconv_caffe.loader import load_caffe
from irconv_caffe.testing import write_random_caffemodel

BODY = """
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 2 kernel_size: 1 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "split" type: "Split" bottom: "conv" top: "a" top: "b" }
layer { name: "sig" type: "Sigmoid" bottom: "a" top: "sig" }
"""

INPUT_STYLES = {
    "input_dim": 'input: "data"\ninput_dim: 10\ninput_dim: 3\ninput_dim: 5\ninput_dim: 6\n',
    "input_shape": 'input: "data"\ninput_shape { dim: 10 dim: 3 dim: 5 dim: 6 }\n',
    "input_layer": 'layer { name: "in" type: "Input" top: "data" input_param { shape { dim: 10 dim: 3 dim: 5 dim: 6 } } }\n',
}


def load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    proto = tmp_path / "net.prototxt"
    proto.write_text(text)
    weights = tmp_path / "net.caffemodel"
    write_random_caffemodel(proto, weights)
    return load_caffe(proto, ConversionOptions(weights=weights))


@pytest.mark.parametrize("style", sorted(INPUT_STYLES))
def test_input_declarations(tmp_path: Path, style: str) -> None:
    graph = load(tmp_path, INPUT_STYLES[style] + BODY)
    (parameter,) = graph.parameters()
    assert parameter.op.shape == (10, 3, 5, 6)
    assert parameter.out_port(0).data.names == ["data"]


def test_in_place_layers_and_unconsumed_outputs(tmp_path: Path) -> None:
    graph = load(tmp_path, INPUT_STYLES["input_dim"] + BODY)
    outputs = sorted(r.in_port(0).get_source().data.names[0] for r in graph.results())  # type: ignore[union-attr]
    assert outputs == ["b", "sig"]
    # The name "conv" belongs to the last writer (the in-place ReLU), not the convolution.
    assert graph.node("relu").out_port(0).data.names == ["conv"]
    assert graph.node("conv").out_port(0).data.names == []
    assert graph.node("split").in_port(0).get_source().node.name == "relu"  # type: ignore[union-attr]


def test_reading_an_unknown_blob_is_an_error(tmp_path: Path) -> None:
    text = INPUT_STYLES["input_dim"] + 'layer { name: "r" type: "ReLU" bottom: "nope" top: "r" }\n'
    proto = tmp_path / "net.prototxt"
    proto.write_text(text)
    weights = tmp_path / "w.caffemodel"
    weights.write_bytes(b"\x12\x00")
    with pytest.raises(ModelFileError, match="'nope'"):
        load_caffe(proto, ConversionOptions(weights=weights))


def test_an_input_written_in_place_keeps_its_name(tmp_path: Path) -> None:
    text = INPUT_STYLES["input_dim"] + 'layer { name: "scale" type: "Power" bottom: "data" top: "data" }\n' + BODY
    graph = load(tmp_path, text)
    (parameter,) = graph.parameters()
    assert parameter.out_port(0).data.names == ["data"]
    assert graph.node("scale").out_port(0).data.names == []
    assert graph.node("conv").in_port(0).get_source().node.name == "scale"  # type: ignore[union-attr]


def test_an_input_with_a_zero_dimension_is_refused(tmp_path: Path) -> None:
    text = INPUT_STYLES["input_dim"].replace("input_dim: 10", "input_dim: 0") + BODY
    proto = tmp_path / "net.prototxt"
    proto.write_text(text)
    weights = tmp_path / "w.caffemodel"
    weights.write_bytes(b"\x12\x00")
    with pytest.raises(ModelFileError, match=r"'data' declares a zero dimension \(shape \[0, 3, 5, 6\]\)"):
        load_caffe(proto, ConversionOptions(weights=weights))
