"""Schema function bodies expand ops no extractor handles."""

from __future__ import annotations

import pytest
from irconv.ops import SourceOp
from irconv_onnx.loader import load_onnx
from onnx import TensorProto, helper


def _model(node, opset: int = 18):  # type: ignore[no-untyped-def]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", opset)])


def _source_types(graph) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(n.op.op_type for n in graph.nodes() if isinstance(n.op, SourceOp))


def test_op_without_extractor_is_expanded_from_its_schema_body(save_model) -> None:
    node = helper.make_node("Celu", ["x"], ["y"], alpha=2.0)
    graph = load_onnx(save_model(_model(node)), lambda d, o, v: o != "Celu")
    types = _source_types(graph)
    assert "Celu" not in types and types  # replaced by the ops of its body
    assert graph.results()[0].in_port(0).data.names == ["y"]


def test_op_with_an_extractor_is_kept(save_model) -> None:
    node = helper.make_node("Celu", ["x"], ["y"], alpha=2.0)
    graph = load_onnx(save_model(_model(node)), lambda d, o, v: True)
    assert _source_types(graph) == ["Celu"]


def test_context_dependent_body_uses_input_types(save_model) -> None:
    scores = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    labels = helper.make_tensor_value_info("t", TensorProto.INT64, [2])
    loss = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
    node = helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"], reduction="mean")
    model = helper.make_model(helper.make_graph([node], "g", [scores, labels], [loss]),
                              opset_imports=[helper.make_opsetid("", 18)])
    graph = load_onnx(save_model(model), lambda d, o, v: o != "SoftmaxCrossEntropyLoss")
    assert "NegativeLogLikelihoodLoss" in _source_types(graph)


def test_context_dependent_body_reads_an_initializers_type(save_model) -> None:
    # The labels are an initializer with no value_info: its type comes from the tensor itself.
    scores = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    loss = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
    labels = helper.make_tensor("t", TensorProto.INT64, [2], [0, 2])
    node = helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"], reduction="mean")
    model = helper.make_model(helper.make_graph([node], "g", [scores], [loss], [labels]),
                              opset_imports=[helper.make_opsetid("", 18)])
    graph = load_onnx(save_model(model), lambda d, o, v: o != "SoftmaxCrossEntropyLoss")
    assert "NegativeLogLikelihoodLoss" in _source_types(graph)


def test_an_initializer_of_a_body_built_after_an_earlier_lookup_has_its_type(save_model) -> None:
    # The top-level loss looks up an initializer's type first; the If branch's own labels
    # are an initializer of the branch, met only later while its body is built.
    scores = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    loss = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
    branch_loss = helper.make_tensor_value_info("z", TensorProto.FLOAT, [])
    top_labels = helper.make_tensor("t", TensorProto.INT64, [2], [0, 2])
    branch_labels = helper.make_tensor("u", TensorProto.INT64, [2], [1, 1])
    branch = helper.make_graph(
        [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "u"], ["z"], reduction="mean")],
        "then", [], [branch_loss], [branch_labels],
    )
    nodes = [
        helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"], reduction="mean"),
        helper.make_node("If", ["c"], ["w"], then_branch=branch, else_branch=branch),
    ]
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [])
    model = helper.make_model(helper.make_graph(nodes, "g", [scores, cond], [loss, w], [top_labels]),
                              opset_imports=[helper.make_opsetid("", 18)])
    graph = load_onnx(save_model(model), lambda d, o, v: o != "SoftmaxCrossEntropyLoss")
    if_node = graph.by_type("If")[0]
    for body in if_node.op.bodies.values():
        assert "NegativeLogLikelihoodLoss" in _source_types(body)


def test_context_dependent_body_of_a_computed_value_takes_its_type_from_shape_inference(save_model) -> None:
    # "r" has no value_info: only ONNX shape inference (run on the model's bytes) gives its type.
    scores = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    labels = helper.make_tensor_value_info("t", TensorProto.INT64, [2])
    loss = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("SoftmaxCrossEntropyLoss", ["r", "t"], ["y"], reduction="mean")]
    model = helper.make_model(helper.make_graph(nodes, "g", [scores, labels], [loss]),
                              opset_imports=[helper.make_opsetid("", 18)])
    graph = load_onnx(save_model(model), lambda d, o, v: o != "SoftmaxCrossEntropyLoss")
    assert "NegativeLogLikelihoodLoss" in _source_types(graph)


@pytest.mark.parametrize("given, bound", [({}, 1.0), ({"alpha": 2.5}, 2.5)])
def test_schema_attribute_defaults_reach_the_body(save_model, given: dict, bound: float) -> None:
    """Celu's body makes a Constant of ``alpha``; left out, the schema's default (1.0) is bound."""
    node = helper.make_node("Celu", ["x"], ["y"], **given)
    graph = load_onnx(save_model(_model(node)), lambda d, o, v: o != "Celu")
    ops = {n.op.op_type: n.op.attributes for n in graph.nodes() if isinstance(n.op, SourceOp)}
    assert ops["Constant"].get("value").tolist() == [bound]


def test_without_the_onnx_package_a_schema_function_op_stays_unexpanded(save_model) -> None:
    """Reading needs only the vendored schema; with ``onnx`` unimportable, Celu (no extractor
    here) is left for the unsupported-ops report instead of failing the load."""
    import subprocess
    import sys

    path = save_model(_model(helper.make_node("Celu", ["x"], ["y"], alpha=2.0)))
    code = (
        "import sys\n"
        "sys.modules['onnx'] = None  # import onnx raises ImportError\n"
        "from pathlib import Path\n"
        "from irconv.ops import SourceOp\n"
        "from irconv_onnx.loader import load_onnx\n"
        f"graph = load_onnx(Path({str(path)!r}), lambda d, o, v: o != 'Celu')\n"
        "print(sorted(n.op.op_type for n in graph.nodes() if isinstance(n.op, SourceOp)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["['Celu']"]
