from pathlib import Path

import numpy as np
import pytest
from core_toy_ops import Add, Relu, Reshape, ShapeOf
from core_toy_plugin import ToyPlugin
from irconv.errors import ConversionError, UnsupportedOpsError, UserError
from irconv.ops import Const
from irconv.pipeline import ConversionOptions, convert, infer_graph, save
from irconv.pipeline.fold import fold_constants
from irconv.testing import GraphBuilder


@pytest.fixture
def host(plugin_host, register_plugin):
    register_plugin(ToyPlugin(), "toy", "irconv-toy")
    return plugin_host


def model(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "model.toy"
    path.write_text(text)
    return path


def test_extraction_replaces_every_source_op(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop r MyRelu x\nop d Double r\noutput y d\n")
    graph = convert(path, ConversionOptions(), host)
    assert sorted(n.type for n in graph.nodes()) == ["Add", "Parameter", "ReLU", "Result"]
    add = graph.by_type("Add")[0]
    assert add.name == "d"  # the decomposition's last node takes the framework node's name
    assert "y" in add.out_port(0).data.names
    assert add.out_port(0).data.get_shape() == (1, 4)


def test_all_unsupported_ops_are_reported_at_once_and_nothing_is_written(tmp_path, host):
    path = model(
        tmp_path,
        "input x 1,4\nop a Foo x\nop b Bar a\nop c Foo b\nop d MyRelu c\noutput y d\n",
    )
    with pytest.raises(UnsupportedOpsError) as info:
        convert(path, ConversionOptions(), host)
    message = str(info.value)
    assert "2 operation type(s) in 3 node(s)" in message
    assert "toy Foo x2: a, c" in message and "toy Bar x1: b" in message
    assert info.value.exit_code == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.toy"]


def test_a_failing_emitter_leaves_no_files(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop explode MyRelu x\noutput y explode\n")
    graph = convert(path, ConversionOptions(), host)
    with pytest.raises(RuntimeError):
        save(graph, tmp_path / "out" / "m.xml", ConversionOptions(), host)
    assert list((tmp_path / "out").iterdir()) == []


def test_an_interrupted_emit_leaves_no_files(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop interrupt MyRelu x\noutput y interrupt\n")
    graph = convert(path, ConversionOptions(), host)
    with pytest.raises(KeyboardInterrupt):
        save(graph, tmp_path / "m.xml", ConversionOptions(), host)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.toy"]


def test_successful_emit_writes_both_files(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop r MyRelu x\noutput y r\n")
    graph = convert(path, ConversionOptions(), host)
    written = save(graph, tmp_path / "m.xml", ConversionOptions(), host)
    assert [p.name for p in written] == ["m.xml", "m.bin"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml", "model.toy"]


def test_the_input_file_is_never_overwritten(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop r MyRelu x\noutput y r\n")
    graph = convert(path, ConversionOptions(), host)
    with pytest.raises(UserError, match="overwrite the input"):
        save(graph, path, ConversionOptions(), host, protected=(path,))
    assert path.read_text().startswith("input x")


def test_input_override_sets_shape_and_type(tmp_path, host):
    path = model(tmp_path, "input x 10,4\nop r MyRelu x\noutput y r\n")
    options = ConversionOptions.from_kwargs(inputs=["x[1,?]{f16}"])
    graph = convert(path, options, host)
    relu = graph.by_type("ReLU")[0]
    assert relu.out_port(0).data.get_shape() == (1, None)
    assert relu.out_port(0).data.get_type().value == "f16"


def test_unknown_input_override_is_a_user_error(tmp_path, host):
    path = model(tmp_path, "input x 10,4\nop r MyRelu x\noutput y r\n")
    with pytest.raises(UserError, match="--input nope: no such model input .*x"):
        convert(path, ConversionOptions.from_kwargs(inputs=["nope[1]"]), host)


def test_output_cut_drops_what_is_not_needed_including_unsupported_ops(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop r MyRelu x\nop u Unsupported r\noutput y u\n")
    graph = convert(path, ConversionOptions(outputs=["r"]), host)
    assert sorted(n.type for n in graph.nodes()) == ["Parameter", "ReLU", "Result"]


def test_missing_model_and_unknown_format_are_clear(tmp_path, host):
    with pytest.raises(UserError, match="does not exist"):
        convert(tmp_path / "nope.toy", ConversionOptions(), host)
    other = tmp_path / "model.onnx"
    other.write_bytes(b"\x08\x07")
    with pytest.raises(UserError, match="loaders tried: toy.*install irconv-onnx"):
        convert(other, ConversionOptions(), host)
    with pytest.raises(UserError, match="no loader for framework 'caffe'.*irconv-caffe"):
        convert(other, ConversionOptions(framework="caffe"), host)


def test_a_corrupt_model_is_reported_as_such(tmp_path, host):
    path = model(tmp_path, "bogus line\n")
    with pytest.raises(UserError, match="cannot read .*model.toy as a toy model.*unknown kind"):
        convert(path, ConversionOptions(), host)


def shape_chain(static: tuple[int | None, ...]):
    """x -> ShapeOf -> Add(0) -> Reshape(x, .) -> Result"""
    b = GraphBuilder()
    x = b.parameter("x", static)
    shape = b.op(ShapeOf(), x, name="shape")
    target = b.op(Add(), shape, b.const(np.zeros(len(static), np.int64)), name="target")
    b.result(b.op(Reshape(), x, target, name="reshape"), "y")
    return b.graph


def test_shape_subgraphs_are_used_for_inference_but_not_folded():
    graph = shape_chain((2, 3))
    infer_graph(graph)
    assert graph.node("reshape").out_port(0).data.get_shape() == (2, 3)
    assert fold_constants(graph, static_shape=False) == 0
    assert graph.has_node("shape") and graph.has_node("target")


def test_static_shape_folds_shape_subgraphs():
    graph = shape_chain((2, 3))
    infer_graph(graph)
    assert fold_constants(graph, static_shape=True) == 2
    target = graph.node("target")
    assert isinstance(target.op, Const) and target.op.value.tolist() == [2, 3]
    assert not graph.has_node("shape")


def test_the_shape_of_a_constant_folds_like_a_constant():
    # Reshaping the model's inputs never changes a constant's shape (a weight reshaped by
    # its own ShapeOf): it folds without --static-shape, unlike the shape of an input.
    b = GraphBuilder()
    weight = b.const(np.ones((4, 1, 3), np.float32))
    target = b.op(Add(), b.op(ShapeOf(), weight, name="shape"), b.const(np.zeros(3, np.int64)), name="target")
    b.result(b.op(Add(), b.parameter("x", (4, 1, 3)), b.op(Reshape(), weight, target, name="reshaped")), "y")
    infer_graph(b.graph)
    assert fold_constants(b.graph, static_shape=False) == 2  # the toy Reshape cannot evaluate
    assert not b.graph.has_node("shape")
    target = b.graph.node("reshaped").in_port(1).get_source()
    assert target is not None and isinstance(target.node.op, Const) and target.node.op.value.tolist() == [4, 1, 3]


def test_plain_constant_subgraphs_fold():
    b = GraphBuilder()
    c = b.op(Add(), b.const([1.0, 2.0], np.float32), b.const([3.0, 4.0], np.float32), name="sum")
    b.result(b.op(Add(), b.parameter("x", (2,)), c, name="out"), "y")
    infer_graph(b.graph)
    assert fold_constants(b.graph, static_shape=False) == 1
    folded = b.graph.node("sum")
    assert isinstance(folded.op, Const) and folded.op.value.tolist() == [4.0, 6.0]


def test_inference_failure_names_node_op_and_input_shapes():
    from core_toy_ops import Broken

    b = GraphBuilder()
    b.result(b.op(Broken(), b.parameter("x", (1, None, 8)), name="bad"))
    with pytest.raises(ConversionError) as info:  # a ValueError: the op's rules broken by the model
        infer_graph(b.graph)
    assert "'bad' (Broken-1)" in str(info.value)
    assert "[1,?,8]:f32" in str(info.value) and "rank mismatch" in str(info.value)


def test_an_extractor_can_leave_a_note_for_the_user(tmp_path, plugin_host, register_plugin):
    from irconv.pipeline.run import ConversionReport
    from irconv.plugins import Extractor, hookimpl

    class Noting:
        @hookimpl
        def extract_op(self):
            def extract(node, ctx):
                ctx.note("approximated")
                return Relu()

            return [Extractor("toy", "Approx", extract, produces=(Relu,))]

    register_plugin(ToyPlugin(), "toy", "irconv-toy")
    register_plugin(Noting(), "noting", "irconv-noting")
    report = ConversionReport()
    convert(model(tmp_path, "input x 1,4\nop a Approx x\noutput y a\n"), ConversionOptions(), plugin_host, report)
    assert "a: approximated" in report.notes
