"""The Caffe front end through the CLI: both file routes, batch override, and bad input.

Every bad input gives one clear error naming the problem, a non-zero exit code and no
output files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.cli.main import main
from irconv.testing.runtime import run_ir
from irconv_caffe.testing import write_random_caffemodel

TINY = """
name: "tiny"
input: "data"
input_dim: 10
input_dim: 3
input_dim: 12
input_dim: 12
layer {
  name: "conv1"
  type: "Convolution"
  bottom: "data"
  top: "conv1"
  convolution_param { num_output: NUM kernel_size: 3 pad: 1 }
}
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer {
  name: "pool1"
  type: "Pooling"
  bottom: "conv1"
  top: "pool1"
  pooling_param { pool: MAX kernel_size: 3 stride: 2 }
}
layer { name: "drop" type: "Dropout" bottom: "pool1" top: "pool1" include { phase: TRAIN } }
layer { name: "fc" type: "InnerProduct" bottom: "pool1" top: "fc" inner_product_param { num_output: 5 } }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
"""


def write_net(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.prototxt"
    path.write_text(text)
    return path


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path]:
    proto = write_net(tmp_path, "tiny", TINY.replace("NUM", "4"))
    weights = tmp_path / "tiny.caffemodel"
    write_random_caffemodel(proto, weights, seed=3)
    return proto, weights


def convert(*args: str) -> int:
    return main(["convert", *args])


def outputs_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.suffix in (".xml", ".bin"))


@pytest.mark.parametrize("route", ["weights", "proto"])
def test_both_file_routes_convert_and_match_opencv(tiny: tuple[Path, Path], tmp_path: Path, route: str) -> None:
    cv2 = pytest.importorskip("cv2")
    proto, weights = tiny
    out = tmp_path / "out" / "tiny.xml"
    out.parent.mkdir()
    if route == "weights":
        code = convert(
            str(proto), "--weights", str(weights), "-o", str(out), "--input", "data[1,3,12,12]", "--no-compress-to-fp16"
        )
    else:
        code = convert(
            str(weights), "--proto", str(proto), "-o", str(out), "--input", "data[1,3,12,12]", "--no-compress-to-fp16"
        )
    assert code == 0
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)
    got = run_ir(out, {"data": x})["prob"]
    net = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    net.setInput(x, "data")
    np.testing.assert_allclose(got, net.forward("prob"), rtol=1e-4, atol=1e-6)


def test_declared_batch_is_kept_without_override(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    import openvino as ov

    proto, weights = tiny
    out = tmp_path / "tiny.xml"
    assert convert(str(proto), "--weights", str(weights), "-o", str(out)) == 0
    model = ov.Core().read_model(str(out))
    assert list(model.input(0).get_partial_shape().to_shape()) == [10, 3, 12, 12]


def test_unparsable_prototxt_names_file_line_and_column(tiny: tuple[Path, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _, weights = tiny
    bad = write_net(tmp_path, "bad", TINY.replace("NUM", "4").replace("kernel_size: 3 pad", "kernel_size 3 pad"))
    out = tmp_path / "o" / "bad.xml"
    code = convert(str(bad), "--weights", str(weights), "-o", str(out))
    err = capsys.readouterr().err
    assert code != 0
    line = next(i for i, text in enumerate(bad.read_text().splitlines(), 1) if "kernel_size 3" in text)
    assert f"{bad}:{line}:" in err
    assert not out.parent.exists() or not outputs_in(out.parent)


def test_blob_shape_mismatch_names_layer_and_both_shapes(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    trained = write_net(tmp_path, "trained", TINY.replace("NUM", "8"))
    weights = tmp_path / "trained.caffemodel"
    write_random_caffemodel(trained, weights)
    deploy = write_net(tmp_path, "deploy", TINY.replace("NUM", "4"))
    code = convert(str(deploy), "--weights", str(weights), "-o", str(tmp_path / "deploy.xml"))
    err = capsys.readouterr().err
    assert code != 0
    assert "'conv1'" in err and "8x3x3x3" in err and "4x3x3x3" in err
    assert err.count("error") == 1
    assert outputs_in(tmp_path) == []


def test_missing_layer_weights_is_one_clear_error(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    other = write_net(tmp_path, "other", TINY.replace("NUM", "4").replace('name: "fc"', 'name: "fc_renamed"'))
    weights = tmp_path / "other.caffemodel"
    write_random_caffemodel(other, weights)
    deploy = write_net(tmp_path, "deploy", TINY.replace("NUM", "4"))
    code = convert(str(deploy), "--weights", str(weights), "-o", str(tmp_path / "deploy.xml"))
    err = capsys.readouterr().err
    assert code != 0
    assert "'fc'" in err and "no weights" in err
    assert outputs_in(tmp_path) == []


def test_unknown_layer_types_are_listed_together(tiny: tuple[Path, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _, weights = tiny
    text = (
        TINY.replace("NUM", "4")
        .replace('type: "ReLU"', 'type: "FancyAct"')
        .replace('type: "Softmax"', 'type: "MysteryNorm"')
    )
    deploy = write_net(tmp_path, "deploy", text)
    code = convert(str(deploy), "--weights", str(weights), "-o", str(tmp_path / "deploy.xml"))
    err = capsys.readouterr().err
    assert code != 0
    assert "FancyAct" in err and "MysteryNorm" in err and "relu1" in err and "prob" in err
    assert outputs_in(tmp_path) == []


def test_prototxt_without_weights_says_what_to_give(tiny: tuple[Path, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    proto, _ = tiny
    code = convert(str(proto), "-o", str(tmp_path / "x.xml"))
    assert code != 0
    assert "--weights" in capsys.readouterr().err


def test_not_a_caffemodel_is_reported(tiny: tuple[Path, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    proto, _ = tiny
    junk = tmp_path / "junk.caffemodel"
    junk.write_bytes(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01garbage")
    code = convert(str(proto), "--weights", str(junk), "-o", str(tmp_path / "x.xml"))
    assert code != 0
    assert "junk.caffemodel" in capsys.readouterr().err


def test_train_val_prototxt_converts_like_the_deploy_one(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    """Data layers become the input; labels and the layers reading them (loss, Accuracy) go."""
    proto, weights = tiny
    body = TINY.replace("NUM", "4").split("\n", 2)[2]
    body = body[body.index("layer {") :].replace(
        'layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }',
        'layer { name: "acc" type: "Accuracy" bottom: "fc" bottom: "label" top: "acc" include { phase: TEST } }\n'
        'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label" top: "loss" }',
    )
    data = (
        'layer { name: "d" type: "Data" top: "data" top: "label" include { phase: TRAIN } '
        'data_param { source: "train" batch_size: 64 } transform_param { crop_size: 12 } }\n'
        'layer { name: "d" type: "Data" top: "data" top: "label" include { phase: TEST } '
        'data_param { source: "val" batch_size: 8 } transform_param { crop_size: 12 } }\n'
    )
    train_val = write_net(tmp_path, "train_val", 'name: "tiny"\n' + data + body)
    outputs = {}
    for name, path in (("deploy", proto), ("train_val", train_val)):
        out = tmp_path / name / "net.xml"
        out.parent.mkdir()
        cut = ["--output", "fc"] if name == "deploy" else []  # train_val: fc is left as the output
        code = convert(
            str(path),
            "--weights",
            str(weights),
            "-o",
            str(out),
            "--input",
            "data[1,3,12,12]",
            "--no-compress-to-fp16",
            *cut,
        )
        assert code == 0
        x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)
        outputs[name] = run_ir(out, {"data": x})
    assert list(outputs["train_val"]) == ["fc"]
    np.testing.assert_array_equal(outputs["train_val"]["fc"], outputs["deploy"]["fc"])


CUSTOM = """
name: "custom"
input: "data"
input_shape { dim: 1 dim: 2 dim: 3 dim: 4 }
layer { name: "up" type: "Upscale" bottom: "data" top: "up" upscale_param { factor: 3 } }
"""


@pytest.mark.parametrize("spelling", ["flag", "option"])
def test_custom_layer_mapping_by_flag_or_option(tmp_path: Path, spelling: str) -> None:
    import xml.etree.ElementTree as ET

    proto = write_net(tmp_path, "custom", CUSTOM)
    weights = tmp_path / "custom.caffemodel"
    write_random_caffemodel(proto, weights)
    mapping = tmp_path / "mapping.xml"
    mapping.write_text(
        '<CustomLayersMapping><CustomLayer NativeType="Upscale" protoParamName="upscale_param" '
        'type="MyUpscale" opset="my_ext" shape="same"/></CustomLayersMapping>'
    )
    given = (
        ["--caffe-custom-layers", str(mapping)]
        if spelling == "flag"
        else ["--option", f"caffe.custom_layers={mapping}"]
    )
    out = tmp_path / "custom.xml"
    assert convert(str(proto), "--weights", str(weights), "-o", str(out), *given) == 0
    layer = next(e for e in ET.parse(out).getroot().iter("layer") if e.get("type") == "MyUpscale")
    assert layer.get("version") == "my_ext"
    assert layer.find("data").attrib == {"factor": "3"}  # type: ignore[union-attr]


def test_proto_by_option_name(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    proto, weights = tiny
    out = tmp_path / "tiny.xml"
    assert convert(str(weights), "--option", f"caffe.proto={proto}", "-o", str(out)) == 0
    assert outputs_in(tmp_path) == ["tiny.bin", "tiny.xml"]
