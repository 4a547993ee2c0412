"""``irconv mo``: Model Optimizer command lines, as the legacy MO documentation wrote them,
give the same IR bytes as irconv's own options; flags irconv cannot honour are one line."""

from __future__ import annotations

import shlex

import numpy as np
import pytest
from irconv.cli.main import main

onnx = pytest.importorskip("onnx")
pytest.importorskip("irconv_onnx")
pytest.importorskip("irconv_prep")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


@pytest.fixture
def model(tmp_path):
    """A small image model with one 3-channel input named ``data``."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["data", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["prob"])],
        "net",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, ["batch", 3, 16, 16])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, None)],
        [w],
    )
    path = tmp_path / "net.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _files(xml):
    return xml.read_bytes(), xml.with_suffix(".bin").read_bytes()


# (MO command line after `mo`, the native irconv options meaning the same)
CASES = [
    ("--input_model {m} --output_dir {o}", ""),
    ("--input_model {m} --input_shape [1,3,16,16] --output_dir {o}", "--input [1,3,16,16]"),
    ("--input_model {m} --input data --input_shape (2,3,16,16) --output_dir {o}", "--input data[2,3,16,16]"),
    ("--input_model {m} --input 'data[1 3 16 16]' --output_dir {o}", "--input data[1,3,16,16]"),
    # the shape joins the name, before the value (it went after it, into the value)
    ("--input_model {m} --input 'data{{f32}}->[0.5]' --input_shape [1,3,16,16] --output_dir {o}",
     "--input data[1,3,16,16]{f32}->[0.5]"),
    ("--input_model {m} --mean_values data[123,117,104] --scale_values data[58,57,57] --output_dir {o}",
     "--mean-values data[123,117,104] --scale-values data[58,57,57]"),
    ("--input_model {m} --reverse_input_channels --scale 255 --output_dir {o}", "--reverse-input-channels --scale 255"),
    ("--input_model {m} --batch 4 --output_dir {o}", "--batch 4"),
    ("--input_model {m} --compress_to_fp16=False --output_dir {o}", "--no-compress-to-fp16"),
    ("--input_model {m} --data_type FP16 --output_dir {o}", "--compress-to-fp16"),
    ("--input_model {m} --static_shape --input_shape [1,3,16,16] --output_dir {o}", "--static-shape --input [1,3,16,16]"),
    ("--input_model {m} --layout data(nchw) --output_dir {o}", "--layout data(nchw)"),
    ("--input_model {m} --disable_fusing --use_new_frontend --output_dir {o}", "--disable-fusing"),
    ("--input_model {m} --output prob --output_dir {o} --model_name renamed", "--output prob"),
]


@pytest.mark.parametrize(("mo", "native"), CASES)
def test_an_mo_command_line_writes_what_the_native_options_write(model, tmp_path, mo, native, capsys):
    mo_dir, native_dir = tmp_path / "mo", tmp_path / "native"
    assert main(["mo", *shlex.split(mo.format(m=model, o=mo_dir))]) == 0
    name = "renamed" if "--model_name" in mo else "net"
    assert (mo_dir / f"{name}.xml").exists() and (mo_dir / f"{name}.bin").exists()
    assert main(["convert", str(model), "-o", str(native_dir / f"{name}.xml"), *native.split()]) == 0
    assert _files(mo_dir / f"{name}.xml") == _files(native_dir / f"{name}.xml")


def test_the_mo_console_script_entry_point_is_the_same_command():
    from importlib.metadata import entry_points

    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    if "mo" not in scripts:
        pytest.skip("irconv-mo is not installed")
    assert scripts["mo"] == "irconv.cli.main:mo_entry"


@pytest.mark.parametrize(
    ("flag", "says"),
    [
        ("--transformations_config cfg.json", "sub-graph replacement configs are not read"),
        ("--extensions ext/", "irconv new-plugin"),
        ("--tensorboard_logdir logs", "irconv show"),
        ("--mean_file mean.binaryproto", "use --mean_values"),
        ("--input_checkpoint ckpt", "SavedModel or frozen graph"),
        ("--tensorflow_object_detection_api_pipeline_config p.config", "not needed"),
        ("--data_type FP64", "--data_type FP64: expected one of"),
        ("--compress_to_fp16=maybe", "expected True or False"),
    ],
)
def test_an_mo_flag_irconv_cannot_honour_is_one_line(model, tmp_path, flag, says, capsys):
    code = main(["mo", "--input_model", str(model), "--output_dir", str(tmp_path / "o"), *flag.split()])
    err = capsys.readouterr().err
    assert code == 2  # the command line is wrong whatever the model: a usage error
    assert says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_the_native_command_line_suggests_the_irconv_spelling_of_an_mo_flag(model, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["convert", str(model), "--mean_values", "data[1,2,3]"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "did you mean --mean-values?" in err and len(err.strip().splitlines()) == 1


def test_a_typo_gets_the_closest_flag(model, capsys):
    with pytest.raises(SystemExit):
        main(["convert", str(model), "--static-shap"])
    assert "did you mean --static-shape for --static-shap?" in capsys.readouterr().err


def test_o_naming_a_directory_writes_the_model_name_inside_it(model, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    assert main(["convert", str(model), "-o", str(folder)]) == 0
    assert (folder / "net.xml").exists() and (folder / "net.bin").exists()
    assert main(["convert", str(model), "-o", str(tmp_path / "new") + "/"]) == 0
    assert (tmp_path / "new" / "net.xml").exists()
