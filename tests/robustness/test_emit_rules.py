"""IRs the runtime would refuse are never written: what the emitter leaves out or refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from onnx import TensorProto, helper
from robust_harness import Limits, convert_case, preload


@pytest.fixture(scope="module", autouse=True)
def _preloaded() -> None:
    preload([])


def test_an_unused_output_the_operation_lacks_is_left_out(tmp_path: Path) -> None:
    """ONNX Relu given a second output nobody reads: the IR shows only the op's one output."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y", "extra"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )  # fmt: skip
    model = tmp_path / "in" / "m.onnx"
    model.parent.mkdir()
    model.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    outcome = convert_case(model, tmp_path / "out" / "model.xml", [], Limits(seconds=60))
    assert outcome.outcome == "accepted", outcome
    assert 'names="extra"' not in (tmp_path / "out" / "model.xml").read_text()


def test_a_model_input_fed_by_another_node_is_refused(tmp_path: Path) -> None:
    """An operation turned into a Parameter (IR layer type, TF op type) keeps its inputs:
    the runtime cannot place such a layer, so the emitter names it."""
    from irconv.errors import ConversionError
    from irconv.ops import Parameter
    from irconv.pipeline import infer_graph
    from irconv.testing import GraphBuilder
    from irconv.testing.runtime import emit_ir
    from irconv.types import ElementType
    from irconv_opset import ReLU

    b = GraphBuilder()
    x = b.parameter("x", (2,))
    fed = b.op(Parameter((2,), ElementType.f32), b.op(ReLU(), x), name="fed")
    b.result(fed, "y")
    infer_graph(b.graph)
    with pytest.raises(ConversionError, match=r"node 'fed' is a Parameter.*which takes no inputs, but the model feeds it 1"):
        emit_ir(b.graph, tmp_path / "m.xml")


def test_a_model_output_without_its_input_is_refused(tmp_path: Path) -> None:
    """An IR whose Result lost its <input> is read as a Result of no inputs: named at emit."""
    from irconv.errors import ConversionError
    from irconv.ops import Result
    from irconv.pipeline import infer_graph
    from irconv.testing import GraphBuilder
    from irconv.testing.runtime import emit_ir
    from irconv_opset import ReLU

    b = GraphBuilder()
    b.result(b.op(ReLU(), b.parameter("x", (2,))), "y")
    b.graph.add_node(Result(), "orphan", [])
    infer_graph(b.graph)
    with pytest.raises(ConversionError, match=r"node 'orphan' is a model output \(Result\).*gives it 0 input"):
        emit_ir(b.graph, tmp_path / "m.xml")


def _shrinking_slice(start: int) -> object:
    """x[:, :, start] of a [2, 3, 4] input (shrink_axis on dim 2), the begin a constant."""
    import numpy as np
    from irconv.pipeline import infer_graph
    from irconv.testing import GraphBuilder
    from irconv_opset import StridedSlice

    b = GraphBuilder()
    x = b.parameter("x", (2, 3, 4))
    begin = b.const(np.array([0, 0, start], np.int64))
    end = b.const(np.array([0, 0, start + 1], np.int64))
    op = StridedSlice(begin_mask=[1, 1, 0], end_mask=[1, 1, 0], shrink_axis_mask=[0, 0, 1])
    b.result(b.op(op, x, begin, end, name="slice"), "y")
    infer_graph(b.graph)
    return b.graph


@pytest.mark.parametrize("begin", [4, 100, -5, -100])
def test_a_shrunk_axis_begin_out_of_range_is_refused(begin: int, tmp_path: Path) -> None:
    """OpenVINO's slice plan refuses the IR (``begin >= -dim && begin < dim``, slice_plan.cpp):
    StridedSlice's rule names the node instead, for every front end (a TFLite STRIDED_SLICE mutant)."""
    from irconv.errors import ConversionError

    with pytest.raises(ConversionError, match=rf"node 'slice' \(StridedSlice-1\): input 1 \(begin\) is {begin} .*\[-4, 4\)"):
        _shrinking_slice(begin)


@pytest.mark.parametrize("begin", [3, -4])
def test_a_shrunk_axis_begin_in_range_is_read(begin: int, tmp_path: Path) -> None:
    from irconv.testing.runtime import compile_ir, emit_ir

    compile_ir(emit_ir(_shrinking_slice(begin), tmp_path / "m.xml"))  # type: ignore[arg-type]


@pytest.mark.parametrize("op_name", ["Pad", "Split", "ReduceSum", "Slice", "TopK"])
def test_a_node_missing_a_required_input_is_refused(op_name: str, tmp_path: Path) -> None:
    """A node given only its data input (a broken model that left the others out) passes
    inference, but OpenVINO's reader indexes past the node's inputs ("index '1' out of range"):
    the emitter checks every node's input count against its op's declared ``arity``."""
    import irconv_opset
    from irconv.errors import ConversionError
    from irconv.pipeline import infer_graph
    from irconv.testing import GraphBuilder
    from irconv.testing.runtime import emit_ir

    op = getattr(irconv_opset, op_name)()
    b = GraphBuilder()
    b.result(b.op(op, b.parameter("x", (2, 3)), name="n"), "y")
    infer_graph(b.graph)
    fewest, most = op.arity
    with pytest.raises(ConversionError, match=rf"node 'n' \({op.describe()}\) takes {fewest}.* input\(s\), but the model gives it 1"):
        emit_ir(b.graph, tmp_path / "m.xml")


def _loop_model(path: Path, trip: int, tail: str) -> Path:
    """An ONNX Loop (trip-count initializer ``trip``, a body condition of constant true) whose
    scan output ``ys`` feeds ``tail`` (Shape, Flatten, or Shape -> ConstantOfShape)."""
    import numpy as np
    from onnx import numpy_helper

    body = helper.make_graph(
        [
            helper.make_node("Add", ["x_in", "one"], ["x_out"]),
            helper.make_node("Constant", [], ["cond_out"], value=numpy_helper.from_array(np.array(True), "t")),
            helper.make_node("Identity", ["x_out"], ["scan"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in
         (("cond_out", TensorProto.BOOL, []), ("x_out", TensorProto.FLOAT, [2]), ("scan", TensorProto.FLOAT, [2]))],
        [numpy_helper.from_array(np.ones(2, np.float32), "one")],
    )  # fmt: skip
    tails = {
        "Shape": [helper.make_node("Shape", ["ys"], ["out"])],
        "Flatten": [helper.make_node("Flatten", ["ys"], ["out"], axis=0)],
        "ConstantOfShape": [helper.make_node("Shape", ["ys"], ["shape"]), helper.make_node("ConstantOfShape", ["shape"], ["out"])],
    }
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "cond", "x"], ["y", "ys"], body=body), *tails[tail]], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("out", TensorProto.UNDEFINED, None)],
        [numpy_helper.from_array(np.array(trip, np.int64), "M"), numpy_helper.from_array(np.array(True), "cond")],
    )  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    return path


@pytest.mark.parametrize("tail", ["Shape", "Flatten", "ConstantOfShape"])
def test_a_loop_of_the_int64_maximum_trip_count_is_unbounded(tail: str, tmp_path: Path) -> None:
    """A trip count of 2^63-1 (exporters' "no limit") planned as that many iterations gave a
    scan output of that static length: a Shape folded to it, a Flatten of 2^64-2 the reader
    refuses, a ConstantOfShape the CPU plugin cannot size. The ONNX Loop makes it -1, as
    OpenVINO's reader does, and no Loop output gets a length the runtime reads as dynamic."""
    model = _loop_model(tmp_path / "in" / "m.onnx", 2**63 - 1, tail)
    outcome = convert_case(model, tmp_path / "out" / "model.xml", [], Limits(seconds=120))
    assert outcome.outcome == "accepted", outcome  # read and compiled by OpenVINO
    assert "9223372036854775807" not in (tmp_path / "out" / "model.xml").read_text()


def test_a_loop_of_a_fixed_trip_count_keeps_its_length(tmp_path: Path) -> None:
    """The static length of a scan output of a constant trip count is kept (Shape folds)."""
    from irconv.testing.runtime import run_ir

    model = _loop_model(tmp_path / "in" / "m.onnx", 3, "Shape")
    assert convert_case(model, tmp_path / "out" / "model.xml", [], Limits(seconds=120)).outcome == "accepted"
    out = run_ir(tmp_path / "out" / "model.xml", {"x": __import__("numpy").zeros(2, "float32")})
    assert list(out["out"]) == [3, 2]


def _convnet_with_weight_input(path: Path, shape: list[int | str]) -> Path:
    """Conv -> Relu whose weight initializer was removed and declared a model input of ``shape``."""
    import numpy as np
    from onnx import numpy_helper

    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        [numpy_helper.from_array(np.ones(4, np.float32), "b")],
    )  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    return path


def test_a_convolution_whose_weight_shape_is_dynamic_is_refused(tmp_path: Path) -> None:
    """The CPU plugin has no Convolution of a weight of dynamic shape ("Unsupported operation
    of type: Convolution ... Doesn't support dynamic weights shape"): one line naming the node."""
    model = _convnet_with_weight_input(tmp_path / "in" / "m.onnx", [4, 3, "k", "k"])
    outcome = convert_case(model, tmp_path / "out" / "model.xml", [], Limits(seconds=60))
    assert outcome.outcome == "clean-error", outcome
    message = (tmp_path / "log" / "stderr").read_text()
    assert "'Conv:c/conv' (Convolution-1): input 1 (filters) has the shape [4,3,?,?]" in message
    assert "static shapes only" in message and "--input" in message


def test_a_convolution_whose_weight_is_a_static_input_compiles(tmp_path: Path) -> None:
    """Weights need not be constant: the CPU plugin runs a weight input of static shape."""
    model = _convnet_with_weight_input(tmp_path / "in" / "m.onnx", [4, 3, 3, 3])
    assert convert_case(model, tmp_path / "out" / "model.xml", [], Limits(seconds=60)).outcome == "accepted"


@pytest.mark.xfail(strict=True, reason="Op.check does not run inside bodies: a body's inference can know less of its "
                   "shapes than the runtime (ONNX AffineGrid's expanded function), so body rules refused IRs it compiles")
def test_a_body_node_breaking_its_runtime_rule_is_refused(tmp_path: Path) -> None:
    """The runtime rules (``Op.check``) hold inside If/Loop bodies too: a body Convolution whose
    weight shape is dynamic is named at emit, not left to the CPU plugin."""
    import numpy as np
    from irconv.errors import ConversionError
    from irconv.pipeline import infer_graph
    from irconv.testing import GraphBuilder
    from irconv.testing.runtime import emit_ir
    from irconv_opset import Convolution, If
    from irconv_opset.ops.control_flow import BodyInput, BodyOutput

    def branch() -> object:
        body = GraphBuilder("branch")
        conv = Convolution(strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1])
        body.result(body.op(conv, body.parameter("x", (1, 4, 5, 5)), body.parameter("w", (3, 4, None, None)), name="conv"))
        return body.graph

    b = GraphBuilder()
    cond = b.const(np.array([True]))
    x, w = b.parameter("x", (1, 4, 5, 5)), b.parameter("w", (3, 4, None, None))
    inputs = (BodyInput(1, 0), BodyInput(2, 1))
    op = If(then_body=branch(), else_body=branch(), then_inputs=inputs, else_inputs=inputs,  # type: ignore[arg-type]
            then_outputs=(BodyOutput(0, 0),), else_outputs=(BodyOutput(0, 0),))  # fmt: skip
    b.result(b.op(op, cond, x, w, name="if"), "y")
    infer_graph(b.graph)
    with pytest.raises(ConversionError, match=r"node 'conv' \(Convolution-1\): input 1 \(filters\) has the shape"):
        emit_ir(b.graph, tmp_path / "m.xml")
