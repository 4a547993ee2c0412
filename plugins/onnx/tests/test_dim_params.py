"""``dim_param`` names: dims of the graph's inputs with the same name are one symbol (the ONNX IR
says they are equal at run time), so shape values computed from one input serve another."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

pytest.importorskip("openvino")
ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(5)


def _reshaped_by_the_other_input_s_batch(x_batch: str, z_batch: str) -> Any:
    """``z.reshape(x.shape[0], 2, -1)``: z's batch read from x. The target's own -1 leaves no
    dim to infer, so the batch must be known to be z's for the target to become a constant."""
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Gather", ["x_shape", "zero"], ["batch"], axis=0),
        helper.make_node("Concat", ["batch", "two_minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["z", "target"], ["z2"]),
        helper.make_node("Relu", ["x"], ["x2"]),
    ]
    graph = helper.make_graph(
        nodes,
        "dim_params",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [x_batch, 4]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [z_batch, 4])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("x2", "z2")],
        [helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
         helper.make_tensor("two_minus_one", TensorProto.INT64, [2], [2, -1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize(("z_batch", "shape_ops"), [("N", 0), ("M", 1)])
def test_a_shared_dim_param_lets_the_shape_computation_go(tmp_path: Path, z_batch: str, shape_ops: int) -> None:
    import onnx
    import openvino
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    model = _reshaped_by_the_other_input_s_batch("N", z_batch)
    path = tmp_path / "model.onnx"
    onnx.save_model(model, str(path))
    xml = tmp_path / "model.xml"
    save_model(convert_model(path), xml, compress_to_fp16=False)
    types = Counter(op.get_type_name() for op in openvino.Core().read_model(xml).get_ops())
    assert types["ShapeOf"] == shape_ops
    session = ort.InferenceSession(model.SerializeToString())
    for batch in (1, 3):
        feeds = {name: RNG.standard_normal((batch, 4)).astype(np.float32) for name in ("x", "z")}
        expected = dict(zip(("x2", "z2"), session.run(None, feeds), strict=True))
        got = run_ir(xml, feeds)
        for name, value in expected.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-6)
