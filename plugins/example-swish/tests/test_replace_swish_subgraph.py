"""example.replace_swish_subgraph: a named block computing x * sigmoid(beta * x) -> ExampleSwish."""

import numpy as np
import pytest
from irconv import ConversionOptions
from irconv.errors import ConversionError, UserError
from irconv.testing import GraphBuilder, graph_signature, run_transform
from irconv_example_swish.options import BETWEEN, SCOPES
from irconv_example_swish.replace_swish_subgraph import ReplaceSwishSubgraph
from irconv_opset import Add, Multiply, ReLU, Sigmoid


def block(beta: float | None = 1.5, scope: str = "block") -> GraphBuilder:
    """x -> ReLU -> [scope: x * sigmoid(beta * x)] -> Add(., x) -> y."""
    b = GraphBuilder()
    x = b.parameter("x", (1, 8))
    r = b.op(ReLU(), x, name="relu")
    r.data.add_name("relu:0")
    inner = r
    if beta is not None:
        inner = b.op(Multiply(), b.const(np.float32(beta), name=f"{scope}/beta"), r, name=f"{scope}/mul_beta")
    gate = b.op(Sigmoid(), inner, name=f"{scope}/sigmoid")
    out = b.op(Multiply(), r, gate, name=f"{scope}/mul")
    out.data.add_name(f"{scope}/mul:0")
    b.result(b.op(Add(), out, x, name="add"), "y")
    return b


def options(**values: tuple[str, ...]) -> ConversionOptions:
    names = {"scopes": SCOPES.name, "between": BETWEEN.name}
    return ConversionOptions().with_values(**{names[k]: v for k, v in values.items()})


def test_a_scope_becomes_one_op():
    b = block(1.5)
    assert run_transform(b.graph, ReplaceSwishSubgraph(), options(scopes=("block",))) is True
    assert sorted(n.type for n in b.graph.nodes()) == ["Add", "ExampleSwish", "Parameter", "ReLU", "Result"]
    swish = b.graph.by_type("ExampleSwish")[0]
    assert swish.name == "block" and swish.op.beta == 1.5
    assert swish.in_port(0).get_source().node.name == "relu"
    assert "block/mul:0" in swish.out_port(0).data.names  # the block's output keeps its name
    assert swish.out_port(0).data.get_shape() == (1, 8)


def test_between_by_tensor_names():
    b = block(None)
    b.graph.node("relu").out_port(0).data.names[:] = ["r"]
    b.graph.node("block/mul").out_port(0).data.names[:] = ["s"]
    assert run_transform(b.graph, ReplaceSwishSubgraph(), options(between=("r:s",))) is True
    (swish,) = b.graph.by_type("ExampleSwish")
    assert swish.op.beta == 1.0 and "s" in swish.out_port(0).data.names
    assert not b.graph.by_type("Sigmoid")


def test_a_scope_holding_something_else_is_an_error_and_the_graph_is_unchanged():
    b = GraphBuilder()
    x = b.parameter("x", (1, 8))
    b.result(b.op(ReLU(), b.op(Sigmoid(), x, name="block/sigmoid"), name="block/relu"), "y")
    before = graph_signature(b.graph)
    with pytest.raises(ConversionError, match=r"sub-graph 'block' is not x \* sigmoid\(beta \* x\)"):
        run_transform(b.graph, ReplaceSwishSubgraph(), options(scopes=("block",)))
    assert graph_signature(b.graph) == before


def test_an_unknown_scope_is_named():
    with pytest.raises(UserError, match="no node is named nowhere/"):
        run_transform(block().graph, ReplaceSwishSubgraph(), options(scopes=("nowhere",)))


def test_nothing_happens_without_a_selection():
    b = block()
    transform = ReplaceSwishSubgraph()

    class Ctx:
        options = ConversionOptions()

    assert not transform.condition(b.graph, Ctx())
