"""ExampleSwish: its declaration (custom opset, typed attribute), shape inference and evaluate."""

import numpy as np
from irconv.testing import GraphBuilder
from irconv_example_swish.ops import OPSET, ExampleSwish


def swish(x: np.ndarray, beta: float) -> np.ndarray:
    return x * (1.0 / (1.0 + np.exp(-beta * x)))


def test_declaration_names_the_custom_opset():
    op = ExampleSwish(beta=0.5)
    assert op.opset == OPSET == "irconv_example"
    assert op.is_opset_op
    assert op.ir_attributes() == {"beta": "0.5"}


def test_evaluate_matches_the_definition():
    x = np.linspace(-30, 30, 60, dtype=np.float32).reshape(3, 20)
    (y,) = ExampleSwish(beta=1.5).evaluate([x])
    assert y.dtype == np.float32 and y.shape == x.shape
    np.testing.assert_allclose(y, swish(x.astype(np.float64), 1.5), rtol=1e-6, atol=1e-7)


def test_shape_and_type_follow_the_input_dynamic_dims_included():
    from irconv import ElementType

    b = GraphBuilder()
    x = b.parameter("x", (None, 3, 8), "f16")
    x.node.op.infer(x.node)
    node = b.node(ExampleSwish(), x)
    node.op.infer(node)
    assert node.out_port(0).data.get_shape() == (None, 3, 8)
    assert node.out_port(0).data.get_type() == ElementType.f16
