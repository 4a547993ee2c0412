"""Ops irconv lowers onto several OpenVINO ops (no one-to-one match, or a runtime limit to
work around): the irconv IR on OpenVINO against onnxruntime, one model per lowering."""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(13)
F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], inits: list[Any] = (), opset: int = 18,
           domains: dict[str, int] | None = None) -> Any:
    graph = helper.make_graph(nodes, "lowering", inputs, outputs, list(inits))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in (domains or {}).items()]
    return helper.make_model(graph, opset_imports=imports)


def _in(name: str, shape: Any, elem: int = F32) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _c(name: str, value: Any) -> Any:
    return numpy_helper.from_array(np.asarray(value), name)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------------ GatherElements
def _indices(shape: tuple[int, ...], axis_size: int) -> np.ndarray:
    return RNG.integers(-axis_size, axis_size, shape).astype(np.int64)


def test_gather_elements_indices_smaller_than_data(convert_and_compare) -> None:
    """ONNX reads only the leading part of the data on the non-axis dimensions."""
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=2)
    model = _model([node], [_in("x", [2, 3, 4]), _in("i", ["n", 2, 3], I64)], [_in("y", None)])
    convert_and_compare(model, {"x": _f32(2, 3, 4), "i": _indices((1, 2, 3), 4)})


def test_gather_elements_in_a_body_of_unknown_rank(convert_and_compare) -> None:
    """Inside an If branch the ranks are not known at conversion time."""
    body = helper.make_graph([helper.make_node("GatherElements", ["x", "i"], ["z"], axis=1)], "then", [],
                             [_in("z", None)])
    node = helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)
    model = _model([node], [_in("c", [], TensorProto.BOOL), _in("x", [3, 5]), _in("i", [2, 4], I64)], [_in("y", None)])
    convert_and_compare(model, {"c": np.array(True), "x": _f32(3, 5), "i": _indices((2, 4), 5)})
