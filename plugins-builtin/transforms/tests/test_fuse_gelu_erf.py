import math

import numpy as np
import pytest
from irconv.testing import GraphBuilder, graph_signature, run_transform
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import Add, Divide, Erf, Multiply
from irconv_transforms.fuse_gelu_erf import FuseGeluErf


def gelu_graph(form: str, divide: bool, half: float = 0.5):
    b = GraphBuilder()
    x = b.parameter("x", (3, 16))
    scaled = (
        b.op(Divide(), x, b.const(np.float32(math.sqrt(2))))
        if divide
        else b.op(Multiply(), b.const(np.float32(1 / math.sqrt(2))), x)
    )
    one_plus = b.op(Add(), b.const(np.float32(1.0)), b.op(Erf(), scaled))
    c = b.const(np.float32(half))
    if form == "x_half_first":
        out = b.op(Multiply(), b.op(Multiply(), x, c), one_plus)
    elif form == "half_inside":
        out = b.op(Multiply(), b.op(Multiply(), one_plus, c), x)
    else:
        out = b.op(Multiply(), c, b.op(Multiply(), x, one_plus))
    b.result(out, "y")
    return b.graph


def erf(v):
    return np.vectorize(math.erf)(v)


@pytest.mark.parametrize("form", ["x_half_first", "half_inside", "half_last"])
@pytest.mark.parametrize("divide", [True, False])
def test_erf_gelu_forms_fuse_and_match_the_formula(tmp_path, form, divide):
    graph = gelu_graph(form, divide)
    assert run_transform(graph, FuseGeluErf()) is True
    assert [n.type for n in graph.topological_order()] == ["Parameter", "Gelu", "Result"]
    x = np.random.default_rng(0).standard_normal((3, 16)).astype(np.float32)
    got = run_ir(emit_ir(graph, tmp_path / "g.xml"), {"x": x})["y"]
    np.testing.assert_allclose(got, 0.5 * x * (1 + erf(x / math.sqrt(2))), rtol=1e-5, atol=1e-6)


def test_a_different_constant_is_not_gelu():
    graph = gelu_graph("x_half_first", True, half=0.6)
    before = graph_signature(graph)
    assert run_transform(graph, FuseGeluErf()) is False
    assert graph_signature(graph) == before
