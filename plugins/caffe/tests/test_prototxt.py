"""Reading deploy prototxts: parse errors, the V1 upgrade and TEST-phase filtering."""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv.errors import ModelFileError
from irconv_caffe.prototxt import read_prototxt, read_prototxt_with_extras

V1 = """
name: "old"
input: "data"
input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
layers { name: "conv" type: CONVOLUTION bottom: "data" top: "conv"
         blobs_lr: 1 convolution_param { num_output: 2 kernel_size: 3 } }
layers { name: "relu" type: RELU bottom: "conv" top: "conv" }
layers { name: "fc" type: INNER_PRODUCT bottom: "conv" top: "fc" inner_product_param { num_output: 4 } }
layers { name: "loss" type: SOFTMAX_LOSS bottom: "fc" top: "loss" include { phase: TRAIN } }
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "net.prototxt"
    path.write_text(text)
    return path


def test_v1_layers_are_upgraded(tmp_path: Path) -> None:
    net = read_prototxt(write(tmp_path, V1))
    assert not net.layers
    assert [(layer.name, layer.type) for layer in net.layer] == [
        ("conv", "Convolution"),
        ("relu", "ReLU"),
        ("fc", "InnerProduct"),
    ]
    assert net.layer[0].convolution_param.num_output == 2
    assert list(net.layer[1].top) == ["conv"]


def test_test_phase_filtering(tmp_path: Path) -> None:
    text = """
    layer { name: "a" type: "ReLU" bottom: "x" top: "a" include { phase: TEST } }
    layer { name: "b" type: "ReLU" bottom: "x" top: "b" include { phase: TRAIN } }
    layer { name: "c" type: "ReLU" bottom: "x" top: "c" exclude { phase: TEST } }
    layer { name: "d" type: "ReLU" bottom: "x" top: "d" exclude { phase: TRAIN } }
    layer { name: "e" type: "ReLU" bottom: "x" top: "e" include { phase: TEST stage: "deploy" } }
    layer { name: "f" type: "ReLU" bottom: "x" top: "f" include { phase: TEST not_stage: "deploy" } }
    layer { name: "g" type: "ReLU" bottom: "x" top: "g" phase: TRAIN }
    layer { name: "h" type: "ReLU" bottom: "x" top: "h" include { min_level: 1 } }
    """
    net = read_prototxt(write(tmp_path, text))
    assert [layer.name for layer in net.layer] == ["a", "d", "f"]


def test_parse_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, 'name: "x"\nlayer {\n  name: "a"\n  type: "ReLU"\n  relu_param { negative_slop: 3 }\n}\n')
    with pytest.raises(ModelFileError, match=r"net.prototxt:5:\d+: .*negative_slop"):
        read_prototxt(path)


def test_unknown_block_on_a_builtin_layer_type_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, 'layer {\n  name: "c"\n  type: "Convolution"\n  convolution_parm { num_output: 3 }\n}\n')
    with pytest.raises(ModelFileError, match=r"net.prototxt:4:3: layer 'c' \(Convolution\) .*convolution_parm"):
        read_prototxt_with_extras(path, strict_types={"Convolution"})


def test_unknown_block_on_a_custom_layer_is_lifted(tmp_path: Path) -> None:
    path = write(tmp_path, 'layer {\n  name: "c"\n  type: "Mine"\n  mine_param { k: 3 k: 4 s: "x" }\n}\n')
    net, extras = read_prototxt_with_extras(path, strict_types={"Convolution"})
    assert net.layer[0].type == "Mine"
    assert extras == {"c": {"mine_param": {"k": ["3", "4"], "s": "x"}}}


def test_unbalanced_braces_are_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=r"net.prototxt:\d+:\d+"):
        read_prototxt(write(tmp_path, 'layer {\n  name: "a"\n'))


def test_parse_error_cuts_the_text_it_quotes(tmp_path: Path) -> None:
    """A file cut inside a 3,000-character string: protobuf quotes the token whole; the
    message shows its start and end and its length."""
    path = tmp_path / "cut.prototxt"
    path.write_text('name: "net"\nlayer { name: "' + "a" * 3000)
    with pytest.raises(ModelFileError) as caught:
        read_prototxt(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:2:") and "(3,001 characters)" in message, message
    assert len(message) < 1000, message
