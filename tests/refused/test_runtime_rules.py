"""IRs OpenVINO would refuse are refused at conversion: the op rules irconv mirrors in
``infer`` cover what OpenVINO's shape inference enforces, on every path (front ends and the
IR reader alike). Each case is checked against OpenVINO itself where it has a say."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.cli.main import main
from irconv.errors import ConversionError
from irconv.graph.infer import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import GroupConvolution, Reshape, Transpose
from irconv.runtime import compile_for_comparison

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _cnn(path, channels: int = 3) -> None:
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((8, channels, 3, 3)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [w],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def _run(args, capsys) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().err


def test_an_input_shape_with_the_wrong_channel_count_is_refused(tmp_path, capsys):
    model = tmp_path / "cnn.onnx"
    _cnn(model)
    out = tmp_path / "out" / "cnn.xml"
    code, err = _run(["convert", str(model), "--input", "x[1,4,16,16]", "-o", str(out)], capsys)
    assert code == 1
    assert "the input has 4 channels but the filters expect 3" in err and "--input" in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_the_right_channel_count_converts_and_runs(tmp_path, capsys):
    ov = pytest.importorskip("openvino")
    model = tmp_path / "cnn.onnx"
    _cnn(model)
    out = tmp_path / "cnn.xml"
    assert main(["convert", str(model), "--input", "x[2,3,16,16]", "-o", str(out)]) == 0
    compiled = compile_for_comparison(out)
    assert tuple(compiled.outputs[0].get_partial_shape().to_shape()) == (2, 8, 16, 16)


def test_a_reshape_that_changes_the_element_count_is_refused():
    b = GraphBuilder()
    x = b.parameter("x", ())
    b.result(b.op(Reshape(), x, b.const(np.array([2], np.int64)), name="bad"))
    with pytest.raises(ConversionError, match=r"cannot reshape 1 element\(s\) of shape \[\] to \[2\]"):
        infer_graph(b.graph)


@pytest.mark.parametrize(("data", "target", "ok"), [((2, 3), [3, -1], True), ((2, 3), [4, -1], False),
                                                     ((2, 3), [6], True), ((None, 3), [5], True)])
def test_reshape_element_count_is_checked_as_far_as_it_is_known(data, target, ok):
    b = GraphBuilder()
    b.result(b.op(Reshape(), b.parameter("x", data), b.const(np.array(target, np.int64)), name="r"))
    if ok:
        infer_graph(b.graph)
    else:
        with pytest.raises(ConversionError, match="cannot reshape"):
            infer_graph(b.graph)


def test_a_transpose_order_that_is_not_a_permutation_is_refused():
    b = GraphBuilder()
    b.result(b.op(Transpose(), b.parameter("x", (2, 3, 4)), b.const(np.array([0, 0, 0], np.int64)), name="t"))
    with pytest.raises(ConversionError, match=r"order \[0, 0, 0\] is not a permutation"):
        infer_graph(b.graph)


def test_an_ir_with_a_bad_transpose_order_is_refused_when_read(tmp_path, capsys):
    graph = helper.make_graph(
        [helper.make_node("Transpose", ["x"], ["y"], perm=[2, 1, 0])],
        "t",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = tmp_path / "t.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    ir = tmp_path / "t.xml"
    assert main(["convert", str(model), "-o", str(ir)]) == 0
    blob = ir.with_suffix(".bin").read_bytes()
    order = np.array([2, 1, 0], np.int64).tobytes()
    assert blob.count(order) == 1
    ir.with_suffix(".bin").write_bytes(blob.replace(order, np.zeros(3, np.int64).tobytes()))
    capsys.readouterr()
    code, err = _run(["convert", str(ir), "-o", str(tmp_path / "again.xml")], capsys)
    assert code == 1 and "is not a permutation" in err
    assert not (tmp_path / "again.xml").exists()


def test_group_convolution_filters_must_have_a_static_shape():
    b = GraphBuilder()
    x = b.parameter("x", (1, 4, 8, 8))
    w = b.parameter("w", (2, None, 2, 3, 3))
    b.result(b.op(GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)), x, w,
                  name="gc"))
    with pytest.raises(ConversionError, match=r"filters' shape must be static, found \[2, '\?', 2, 3, 3\]"):
        infer_graph(b.graph)


def test_a_huge_intermediate_tensor_is_reported(tmp_path, capsys):
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        "huge",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [80000, 1]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 80000])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = tmp_path / "huge.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    code = main(["convert", str(model), "-o", str(tmp_path / "huge.xml")])
    captured = capsys.readouterr()
    assert code == 0
    assert "holds 23.8 GiB; running the model needs at least that much memory" in captured.out + captured.err
