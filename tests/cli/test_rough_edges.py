"""Command-line rough edges, each a class of mistake a user makes: one clear line, no
traceback, nothing written."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from irconv.cli.main import main
from irconv.runtime import compile_for_comparison

onnx = pytest.importorskip("onnx")
pytest.importorskip("irconv_onnx")
from onnx import TensorProto, helper  # noqa: E402


@pytest.fixture
def model(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    return err


def test_an_unknown_transform_id_is_an_error_naming_the_near_ones(model, tmp_path, capsys):
    code = main(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--disable-transform", "fuse.pads"])
    assert code == 2  # a value no model makes valid: a usage error
    err = _one_error(capsys)
    assert "--disable-transform fuse.pads: no installed transform has this id; did you mean fuse.pad" in err
    assert not (tmp_path / "o.xml").exists()


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("model.npy", "a single array (.npy)"),
        ("empty.npz", "not a .npz file of arrays"),
        ("relu.onnx", "not a .npz file of arrays"),
        ("missing.npz", "no such file"),
    ],
)
def test_a_bad_verify_inputs_file_is_reported_before_converting(model, tmp_path, capsys, name, says):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("openvino")
    path = tmp_path / name
    if name == "model.npy":
        np.save(path, np.zeros((2, 3), np.float32))
    elif name == "empty.npz":
        path.write_bytes(b"")
    elif name == "relu.onnx":
        path = model
    code = main(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--verify", "--verify-inputs", str(path)])
    assert code == 1
    assert says in _one_error(capsys)
    assert not (tmp_path / "o.xml").exists()


def test_verify_inputs_without_verify_is_an_error(model, tmp_path, capsys):
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.zeros((2, 3), np.float32))
    assert main(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--verify-inputs", str(inputs)]) == 2
    assert "add --verify" in _one_error(capsys)


def test_framework_names_are_case_blind(capsys):
    assert main(["ops", "--framework", "ONNX"]) == 0
    assert "Relu" in capsys.readouterr().out


def test_an_unknown_framework_is_an_error_listing_the_installed(capsys):
    assert main(["ops", "--framework", "cntk"]) == 2
    err = _one_error(capsys)
    assert "unknown framework 'cntk'" in err and "onnx" in err


def test_convert_framework_accepts_any_case(model, tmp_path, capsys):
    assert main(["convert", str(model), "-o", str(tmp_path / "o.xml"), "--framework", "Onnx", "-q"]) == 0


@pytest.mark.parametrize("name, installed", [("tensorflow", "tf"), ("Keras", "tf"), ("pytorch", "torch"),
                                             ("LiteRT", "tflite"), ("openvino", "ir")])
def test_frameworks_answer_to_their_common_names(name, installed, capsys):
    assert main(["ops", "--framework", name, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed and {row["framework"] for row in listed} == {installed}


def test_a_closed_pipe_is_no_error():
    done = subprocess.run(f"{sys.executable} -m irconv ops | head -1", shell=True, capture_output=True, text=True)
    assert done.stdout.startswith("framework")
    assert "BrokenPipe" not in done.stderr and "Exception" not in done.stderr


def test_transform_descriptions_are_whole_sentences_of_plain_text(capsys):
    assert main(["transforms", "--json"]) == 0
    import json

    for entry in json.loads(capsys.readouterr().out):
        text = entry["description"]
        assert "``" not in text, entry
        assert not text or text.endswith((".", "!", "?", ")")) or "->" in text or "=>" in text, entry


def test_a_usage_error_is_one_line_not_the_usage(capsys):
    with pytest.raises(SystemExit) as info:
        main(["convert", "-q", "-v", "model.onnx"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not allowed with argument" in err


def test_a_tensor_of_run_time_rank_is_refused_before_writing(tmp_path, capsys):
    # Reshape to a shape whose length is an input: the IR would hold a tensor of dynamic
    # rank, which OpenVINO's CPU plugin refuses to compile.
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["r"]), helper.make_node("Relu", ["r"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    path = tmp_path / "reshape.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    code = main(["convert", str(path), "-o", str(tmp_path / "o.xml")])
    assert code == 1
    err = _one_error(capsys)
    assert "Reshape" in err and "known only at run time" in err and "--input NAME[SHAPE]" in err
    assert not (tmp_path / "o.xml").exists()
    # With the shape's length fixed the rank is known and the IR runs.
    pytest.importorskip("openvino")
    assert main(["convert", str(path), "-o", str(tmp_path / "fixed.xml"), "--input", "shape[2]"]) == 0
    compiled = compile_for_comparison(tmp_path / "fixed.xml")
    got = compiled([np.arange(-3, 3, dtype=np.float32).reshape(2, 3), np.array([3, 2])])[0]
    np.testing.assert_array_equal(got, np.maximum(np.arange(-3, 3, dtype=np.float32), 0).reshape(3, 2))
