"""Shapes symbols prove, end to end: a Reshape whose target's length the ints do not know but
the symbols do converts (it was refused as a tensor of run-time rank), and a transformer-style
view of a projection computed from another projection's dims runs as onnxruntime does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(0)


def _const(name: str, value: np.ndarray) -> Any:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value, name))


def _heads_model() -> Any:
    """q = x@Wq and k = x@Wk of x [n, s, 8]; q viewed as [n, s, -1, 4] by k's dims (so the
    -1, 2 heads, is known only by symbols: it cancels n and s of another tensor); then a target
    of rank 2 + heads, built from a list as long as the heads dim, reshapes q again."""
    nodes = [
        _const("wq", RNG.standard_normal((8, 8)).astype(np.float32)),
        _const("wk", RNG.standard_normal((8, 8)).astype(np.float32)),
        helper.make_node("MatMul", ["x", "wq"], ["q"]),
        helper.make_node("MatMul", ["x", "wk"], ["k"]),
        helper.make_node("Shape", ["k"], ["k_shape"], start=0, end=2),
        _const("rest", np.array([-1, 4], np.int64)),
        helper.make_node("Concat", ["k_shape", "rest"], ["view"], axis=0),
        helper.make_node("Reshape", ["q", "view"], ["heads"]),
        helper.make_node("Shape", ["heads"], ["heads_dim"], start=2, end=3),  # [2], known by symbols
        _const("one", np.array([1], np.int64)),
        helper.make_node("Expand", ["one", "heads_dim"], ["ones"]),  # [1, 1]: as long as the heads dim
        _const("flat", np.array([-1, 4], np.int64)),
        helper.make_node("Concat", ["flat", "ones"], ["target"], axis=0),  # [-1, 4, 1, 1]
        helper.make_node("Reshape", ["q", "target"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "heads",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "s", 8])],
        [helper.make_tensor_value_info("heads", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_reshape_target_as_long_as_a_dim_the_symbols_prove_converts(
    convert_and_compare: Callable[..., dict[str, np.ndarray]],
) -> None:
    model = _heads_model()
    for shape in ((2, 3, 8), (1, 5, 8)):
        got = convert_and_compare(model, {"x": RNG.standard_normal(shape).astype(np.float32)})
        assert got["y"].ndim == 4 and got["heads"].shape == (*shape[:2], 2, 4)


def _branch_on_lengths(other_length: str) -> Any:
    """DeBERTa's ``if k.size(-2) != q.size(-2)``: an If on two sequence lengths whose then
    branch (different lengths) gives a rank-3 tensor and else branch a rank-2 one; q and k
    are projections of ``x``, ``other`` may be another input of length ``other_length``."""
    then_branch = helper.make_graph(
        [helper.make_node("Unsqueeze", ["rel", "zero"], ["wide"])], "then", [],
        [helper.make_tensor_value_info("wide", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([0], np.int64), "zero")],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["rel"], ["same"])], "else", [],
        [helper.make_tensor_value_info("same", TensorProto.FLOAT, None)],
    )
    nodes = [
        _const("wq", RNG.standard_normal((8, 8)).astype(np.float32)),
        helper.make_node("MatMul", ["x", "wq"], ["q"]),
        helper.make_node("Relu", ["other"], ["k"]),
        helper.make_node("Shape", ["q"], ["q_len"], start=-2, end=-1),
        helper.make_node("Shape", ["k"], ["k_len"], start=-2, end=-1),
        helper.make_node("Equal", ["k_len", "q_len"], ["same_length"]),
        helper.make_node("Not", ["same_length"], ["differ"]),
        helper.make_node("Squeeze", ["differ"], ["cond"]),
        helper.make_node("Add", ["x", "x"], ["rel"]),
        helper.make_node("If", ["cond"], ["picked"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("MatMul", ["picked", "wq"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "branch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "s", 8]),
         helper.make_tensor_value_info("other", TensorProto.FLOAT, ["n", other_length, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_an_if_on_lengths_the_symbols_prove_equal_is_its_else_branch(
    convert_and_compare: Callable[..., dict[str, np.ndarray]], tmp_path: Any,
) -> None:
    model = _branch_on_lengths("s")
    x = RNG.standard_normal((2, 3, 8)).astype(np.float32)
    got = convert_and_compare(model, {"x": x, "other": RNG.standard_normal((2, 3, 8)).astype(np.float32)})
    assert got["y"].shape == (2, 3, 8)
    xml = (tmp_path / "model.xml").read_text()  # what convert_and_compare wrote
    assert 'type="If"' not in xml and 'type="Equal"' not in xml


def test_an_if_on_lengths_that_may_differ_stays(tmp_path: Any) -> None:
    from irconv.api import convert_model

    path = tmp_path / "branch.onnx"
    onnx.save_model(_branch_on_lengths("t"), str(path))
    graph = convert_model(path)
    assert [n.type for n in graph.nodes() if n.type == "If"] == ["If"]
