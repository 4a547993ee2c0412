"""If, Loop and TensorIterator: emitted bodies and port maps run in OpenVINO; round trip."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.graph import Graph, OutPort
from irconv.pipeline.infer import infer_graph
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import Add, Multiply, Negative, ReLU
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, If, SliceSpec, TensorIterator
from irconv_opset.testing_loop import counted_loop


def _unary_body(op, shape) -> Graph:  # type: ignore[no-untyped-def]
    b = GraphBuilder("branch")
    x = b.parameter("branch_in", shape)
    b.result(b.op(op, x))
    return b.graph


def if_graph() -> Graph:
    b = GraphBuilder("if")
    cond = b.parameter("cond", (), "boolean")
    x = b.parameter("x", (2, 3))
    node = b.node(
        If(
            then_body=_unary_body(ReLU(), (2, 3)),
            else_body=_unary_body(Negative(), (2, 3)),
            then_inputs=(BodyInput(1, 0),),
            else_inputs=(BodyInput(1, 0),),
            then_outputs=(BodyOutput(0, 0),),
            else_outputs=(BodyOutput(0, 0),),
        ),
        cond,
        x,
    )
    b.result(node.out_port(0), "y")
    infer_graph(b.graph)
    return b.graph


def loop_graph() -> Graph:
    """acc = a; repeat 3 times: acc = acc * 2 + i; outputs: last acc, every acc concatenated."""

    def step(body: GraphBuilder, i: OutPort, acc: OutPort) -> OutPort:
        return body.op(Add(), body.op(Multiply(), acc, body.const(np.float32(2))), body.op(_convert_f32(), i))

    graph, _ = counted_loop(3, (1, 2), step, counter_shape=(1,), names=("a", "last", "all"))
    return graph


def _convert_f32():  # type: ignore[no-untyped-def]
    from irconv.types import ElementType
    from irconv_opset import Convert

    return Convert(destination_type=ElementType.f32)


def ti_graph() -> Graph:
    """A running sum over the rows of s, starting from h; outputs the final sum and every step."""
    body = GraphBuilder("ti body")
    row = body.parameter("row", (1, 2))
    h = body.parameter("h", (1, 2))
    body.result(body.op(Add(), row, h))
    b = GraphBuilder("ti")
    s = b.parameter("s", (4, 2))
    h0 = b.parameter("h0", (1, 2))
    node = b.node(
        TensorIterator(
            body=body.graph,
            input_map=(BodyInput(0, 0, SliceSpec(axis=0)), BodyInput(1, 1)),
            output_map=(BodyOutput(0, 0), BodyOutput(1, 0, SliceSpec(axis=0))),
            back_edges=(BackEdge(0, 1),),
        ),
        s,
        h0,
    )
    b.result(node.out_port(0), "final")
    b.result(node.out_port(1), "steps")
    infer_graph(b.graph)
    return b.graph


def test_if_runs_either_branch(tmp_path, installed_host):
    graph = if_graph()
    assert graph.node("If_2").out_port(0).data.get_shape() == (2, 3)
    xml = emit_ir(graph, tmp_path / "if.xml", installed_host)
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(run_ir(xml, {"cond": np.array(True), "x": x})["y"], np.maximum(x, 0))
    np.testing.assert_array_equal(run_ir(xml, {"cond": np.array(False), "x": x})["y"], -x)


@pytest.mark.parametrize("compress", [False, True], ids=["f32", "fp16"])
def test_loop_runs_with_back_edge_and_concatenation(tmp_path, installed_host, compress):
    graph = loop_graph()
    xml = emit_ir(graph, tmp_path / "loop.xml", installed_host, compress_to_fp16=compress)
    assert ('name="decompression"' in xml.read_text()) == compress  # the body's f32 constant
    a = np.array([[1, 2]], np.float32)
    steps, acc = [], a
    for i in range(3):
        acc = acc * 2 + i
        steps.append(acc)
    out = run_ir(xml, {"a": a})
    np.testing.assert_allclose(out["last"], acc)
    np.testing.assert_allclose(out["all"], np.concatenate(steps, axis=0))
    loop = next(n for n in graph.nodes() if n.type == "Loop")
    assert loop.out_port(1).data.get_shape() == (3, 2)


def test_tensor_iterator_slices_and_concatenates(tmp_path, installed_host):
    graph = ti_graph()
    ti = next(n for n in graph.nodes() if n.type == "TensorIterator")
    assert ti.out_port(1).data.get_shape() == (4, 2)
    xml = emit_ir(graph, tmp_path / "ti.xml", installed_host)
    s = np.arange(8, dtype=np.float32).reshape(4, 2)
    h0 = np.ones((1, 2), np.float32)
    out = run_ir(xml, {"s": s, "h0": h0})
    expected = h0 + np.cumsum(s, axis=0)
    np.testing.assert_allclose(out["steps"], expected)
    np.testing.assert_allclose(out["final"], expected[-1:])


@pytest.mark.parametrize("build", [if_graph, loop_graph, ti_graph], ids=["if", "loop", "ti"])
@pytest.mark.parametrize("compress", [False, True], ids=["f32", "fp16"])
def test_control_flow_round_trip(tmp_path, installed_host, reemit, build, compress):
    first = emit_ir(build(), tmp_path / "a.xml", installed_host, compress_to_fp16=compress)
    second = tmp_path / "b.xml"
    reemit(first, second, compress_to_fp16=compress)
    assert first.read_text() == second.read_text()
    assert first.with_suffix(".bin").read_bytes() == second.with_suffix(".bin").read_bytes()


def nested_graph() -> Graph:
    """If(cond): then runs the TensorIterator running sum over x, else negates x."""
    ti = ti_graph()
    ti_node = next(n for n in ti.nodes() if n.type == "TensorIterator")
    then = GraphBuilder("then with ti")
    s = then.parameter("s_inner", (4, 2))
    h0 = then.parameter("h0_inner", (1, 2))
    inner = then.node(ti_node.op, s, h0)
    then.result(inner.out_port(1))
    b = GraphBuilder("nested")
    cond = b.parameter("cond", (), "boolean")
    s_outer = b.parameter("s", (4, 2))
    h_outer = b.parameter("h0", (1, 2))
    node = b.node(
        If(
            then_body=then.graph,
            else_body=_unary_body(Negative(), (4, 2)),
            then_inputs=(BodyInput(1, 0), BodyInput(2, 1)),
            else_inputs=(BodyInput(1, 0),),
            then_outputs=(BodyOutput(0, 0),),
            else_outputs=(BodyOutput(0, 0),),
        ),
        cond,
        s_outer,
        h_outer,
    )
    b.result(node.out_port(0), "out")
    infer_graph(b.graph)
    return b.graph


@pytest.mark.parametrize("compress", [False, True], ids=["f32", "fp16"])
def test_nested_control_flow_runs_and_round_trips(tmp_path, installed_host, reemit, compress):
    graph = nested_graph()
    xml = emit_ir(graph, tmp_path / "nested.xml", installed_host, compress_to_fp16=compress)
    s = np.arange(8, dtype=np.float32).reshape(4, 2)
    h0 = np.ones((1, 2), np.float32)
    out = run_ir(xml, {"cond": np.array(True), "s": s, "h0": h0})
    np.testing.assert_allclose(out["out"], h0 + np.cumsum(s, axis=0))
    out = run_ir(xml, {"cond": np.array(False), "s": s, "h0": h0})
    np.testing.assert_allclose(out["out"], -s)
    again = tmp_path / "again.xml"
    reemit(xml, again, compress_to_fp16=compress)
    assert xml.read_text() == again.read_text()
