"""Bad preparation options: one clear error, a non-zero exit code, and no output files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

BODY = 'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 2 kernel_size: 1 } }\n'

CASES = {
    "too few means": (["--mean-values", "data[1,2]"], "2 value(s) for input 'data', which has 3 channels"),
    "too many scales": (["--scale-values", "data[1,2,3,4]"], "4 value(s) for input 'data', which has 3 channels"),
    "unknown input": (["--mean-values", "image[1,2,3]"], "'image' is not a model input (inputs: data)"),
    "malformed values": (["--mean-values", "data(1,2,3)"], "is not name[v1,v2,...]"),
    "not numbers": (["--scale-values", "data[a,b,c]"], "is not a list of numbers"),
    "layout rank": (["--layout", "data(nc)"], "layout nc of input 'data' has 2 dims but the input has rank 4"),
    "layout letters": (["--layout", "data(n1hw)"], "expected one letter per dim"),
    "layout dims differ": (["--layout", "data(nchw->nhwd)"], "must name the same dims"),
    "target without source": (["--target-layout", "data(nhwc)"], "needs its --source-layout too"),
    "no batch dim": (["--batch", "2", "--layout", "data(?chw)"], "has no batch dim N"),
    "no channel dim": (["--mean-values", "data[1,2,3]", "--layout", "data(nxhw)"], "has no channel dim C"),
    "bad batch": (["--batch", "0"], "0 is not a positive number"),
    "freeze unknown": (["--freeze-placeholder-with-value", "rate[1]"], "'rate' is not a model input"),
    "freeze wrong size": (
        ["--freeze-placeholder-with-value", "data[1,2]"],
        "2 values for input 'data' of shape [1, 3, 4, 4], which holds 48; give one value (it fills the input) or 48",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_option_is_one_clear_error(case: str, kit: Any, caffe_net: Any, tmp_path: Path, capsys: Any) -> None:
    args, message = CASES[case]
    proto, weights = caffe_net(BODY, (1, 3, 4, 4))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code = kit.convert(proto, out_dir / "net.xml", "--weights", str(weights), *args)
    error = capsys.readouterr().err.strip()
    assert code != 0
    assert message in error
    assert len(error.splitlines()) == 1, error
    assert list(out_dir.iterdir()) == []


def test_unnamed_values_need_a_single_input(kit: Any, tmp_path: Path, capsys: Any) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 3, 2, 2])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 3, 2, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 2, 2])
    model = kit.onnx_model(tmp_path / "two.onnx", [helper.make_node("Add", ["a", "b"], ["y"])], [a, b], [y], [])
    assert onnx is not None
    code = kit.convert(model, tmp_path / "two.xml", "--mean-values", "[1,2,3]")
    assert code != 0
    assert "the model has 2 inputs (a, b); name the input" in capsys.readouterr().err
    assert not (tmp_path / "two.xml").exists()
