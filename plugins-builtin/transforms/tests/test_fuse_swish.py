import numpy as np
from irconv.testing import GraphBuilder, graph_signature, run_transform
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import Multiply, ReLU, Sigmoid
from irconv_transforms.fuse_swish import FuseSwish


def swish_graph(sigmoid_of_other=False, swap=False):
    b = GraphBuilder()
    x = b.parameter("x", (2, 8))
    other = b.op(ReLU(), x)
    sig = b.op(Sigmoid(), other if sigmoid_of_other else x)
    b.result(b.op(Multiply(), *((sig, x) if swap else (x, sig)), name="mul"), "y")
    return b.graph


def test_swish_is_fused_and_computes_the_same(tmp_path):
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    for swap in (False, True):
        graph = swish_graph(swap=swap)
        assert run_transform(graph, FuseSwish()) is True
        assert sorted(n.type for n in graph.nodes()) == ["Parameter", "ReLU", "Result", "Swish"]
        assert graph.node("mul").type == "Swish"
        got = run_ir(emit_ir(graph, tmp_path / f"s{swap}.xml"), {"x": x})["y"]
        np.testing.assert_allclose(got, x / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)


def test_sigmoid_of_another_tensor_is_not_swish():
    graph = swish_graph(sigmoid_of_other=True)
    before = graph_signature(graph)
    assert run_transform(graph, FuseSwish()) is False
    assert graph_signature(graph) == before
