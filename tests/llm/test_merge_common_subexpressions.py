"""fuse.merge_common_subexpressions: an op repeated on the same inputs is computed once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import openvino
from decoders import FAMILIES
from irconv import convert_model, save_model
from onnx import TensorProto, helper

from conftest import convert
from irconv.runtime import compile_for_comparison


def _repeated_shape_model(path: Path) -> Path:
    """out = Reshape(x, [batch, -1]) + Reshape(x, [batch, -1]) * 2, where each Reshape has its own
    ``Shape -> Gather(0) -> Unsqueeze -> Concat`` (as PyTorch's TorchScript exporter writes
    one per use), and ``twice = Relu(x)`` twice as model outputs (those must stay two)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4])
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("out", "r1", "r2")]
    initializers = [
        helper.make_tensor("zero", TensorProto.INT64, [], [0]),
        helper.make_tensor("axes", TensorProto.INT64, [1], [0]),
        helper.make_tensor("rest", TensorProto.INT64, [1], [-1]),
        helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
    ]
    nodes = []
    for i in (1, 2):
        nodes += [
            helper.make_node("Shape", ["x"], [f"shape{i}"]),
            helper.make_node("Gather", [f"shape{i}", "zero"], [f"batch{i}"], axis=0),
            helper.make_node("Unsqueeze", [f"batch{i}", "axes"], [f"batch_1d{i}"]),
            helper.make_node("Concat", [f"batch_1d{i}", "rest"], [f"target{i}"], axis=0),
            helper.make_node("Reshape", ["x", f"target{i}"], [f"flat{i}"]),
            helper.make_node("Relu", ["x"], [f"r{i}"]),
        ]
    nodes += [
        helper.make_node("Mul", ["flat2", "two"], ["doubled"]),
        helper.make_node("Add", ["flat1", "doubled"], ["out"]),
    ]
    graph = helper.make_graph(nodes, "repeated", [x], outputs, initializer=initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _types(xml: Path) -> Counter[str]:
    return Counter(node.get_type_name() for node in openvino.Core().read_model(xml).get_ordered_ops())


def test_repeated_shape_arithmetic_is_computed_once(tmp_path: Path) -> None:
    import onnxruntime

    model = _repeated_shape_model(tmp_path / "repeated.onnx")
    merged, kept = tmp_path / "merged.xml", tmp_path / "kept.xml"
    save_model(convert_model(model, compress_to_fp16=False), merged)
    # fold.symbolic_shapes computes equal shape values once too: off, to see the merge alone
    unmerged_options = {"disabled_transforms": ["fuse.merge_common_subexpressions", "fold.symbolic_shapes"]}
    save_model(convert_model(model, compress_to_fp16=False, **unmerged_options), kept)
    types, unmerged = _types(merged), _types(kept)
    assert types["Reshape"] == 1 and unmerged["Reshape"] == 2
    assert types["ShapeOf"] <= 1 < unmerged["ShapeOf"]
    assert types["Relu"] == 2  # each feeds a model output of its own
    feeds = {"x": np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)}
    expected = onnxruntime.InferenceSession(str(model)).run(None, feeds)
    compiled = compile_for_comparison(merged)
    got = compiled(feeds)
    for name, value in zip(("out", "r1", "r2"), expected, strict=True):
        np.testing.assert_allclose(got[compiled.output(name)], value, rtol=1e-6, atol=1e-6)


def test_decoders_have_fewer_layers(decoder_factory: Any, tmp_path: Path) -> None:
    for family in FAMILIES:
        decoder = decoder_factory(family)
        merged = sum(_types(convert(decoder, tmp_path, f"{family}_merged")).values())
        kept = sum(
            _types(convert(decoder, tmp_path, f"{family}_kept", disabled_transforms=["fuse.merge_common_subexpressions"])).values()
        )
        assert merged < kept, family
