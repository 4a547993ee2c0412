"""Keras applications (random weights) as frozen graph and SavedModel, against TensorFlow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv.runtime import compile_for_comparison

ATOL = 1e-4


def _inner_transposes(ir: Any) -> list[str]:
    """Transpose layers that neither read a Parameter nor feed a Result."""
    found = []
    for op in ir.get_ordered_ops():
        if op.get_type_name() != "Transpose":
            continue
        source = op.input_value(0).get_node()
        consumers = [t.get_node() for t in op.output(0).get_target_inputs()]
        at_input = source.get_type_name() == "Parameter"
        at_output = all(c.get_type_name() == "Result" for c in consumers)
        if not (at_input or at_output):
            found.append(op.get_friendly_name())
    return found


@pytest.mark.parametrize("form", ["frozen", "saved_model"])
@pytest.mark.parametrize("name", ["ResNet50", "MobileNetV2"])
def test_application_matches_tensorflow(
    name: str, form: str, real_models: dict[str, Any], run_converted: Any, tmp_path: Path
) -> None:
    model = real_models[name]
    path = model.frozen if form == "frozen" else model.saved_model
    (got,), ir = run_converted(path, [model.x], tmp_path)
    assert got.shape == model.logits.shape
    np.testing.assert_allclose(got, model.logits, atol=ATOL, rtol=0)
    # the IR keeps the model's NHWC input
    assert str(ir.inputs[0].get_partial_shape()) in ("[1,224,224,3]", "[?,224,224,3]")
    assert _inner_transposes(ir) == []


def test_resnet50_has_no_transpose_inside(real_models: dict[str, Any], run_converted: Any, tmp_path: Path) -> None:
    model = real_models["ResNet50"]
    _, ir = run_converted(model.frozen, [model.x], tmp_path)
    transposes = [op for op in ir.get_ordered_ops() if op.get_type_name() == "Transpose"]
    # exactly the input boundary one (NHWC data into the first convolution)
    assert len(transposes) == 1
    assert transposes[0].input_value(0).get_node().get_type_name() == "Parameter"


def test_layout_inputs_nchw(real_models: dict[str, Any], run_converted: Any, tmp_path: Path) -> None:
    model = real_models["ResNet50"]
    x_nchw = np.ascontiguousarray(model.x.transpose(0, 3, 1, 2))
    (got,), ir = run_converted(model.frozen, [x_nchw], tmp_path, layout_inputs="nchw")
    assert str(ir.inputs[0].get_partial_shape()) == "[1,3,224,224]"
    assert [op for op in ir.get_ordered_ops() if op.get_type_name() == "Transpose"] == []
    np.testing.assert_allclose(got, model.logits, atol=ATOL, rtol=0)


def test_disable_nhwc_to_nchw_keeps_transposes(real_models: dict[str, Any], run_converted: Any, tmp_path: Path) -> None:
    model = real_models["MobileNetV2"]
    (got,), ir = run_converted(model.frozen, [model.x], tmp_path, disable_nhwc_to_nchw=True)
    assert len([op for op in ir.get_ordered_ops() if op.get_type_name() == "Transpose"]) > 10
    np.testing.assert_allclose(got, model.logits, atol=ATOL, rtol=0)


def test_reshapeable(real_models: dict[str, Any], tmp_path: Path) -> None:
    """The IR of the SavedModel takes another batch and resolution after ``reshape``."""
    import openvino as ov
    import tensorflow as tf
    from irconv.api import convert_model, save_model

    model = real_models["MobileNetV2"]
    xml = tmp_path / "model.xml"
    save_model(convert_model(model.saved_model, inputs=["[?,?,?,3]"]), xml, compress_to_fp16=False)
    core = ov.Core()
    ir = core.read_model(str(xml))
    ir.reshape([2, 160, 160, 3])
    x = np.random.default_rng(1).random((2, 160, 160, 3), dtype=np.float32)
    compiled = compile_for_comparison(ir, core=core)
    got = compiled([x])[compiled.outputs[0]]
    loaded = tf.saved_model.load(str(model.saved_model))
    want = list(loaded.signatures["serving_default"](tf.constant(x)).values())[0].numpy()
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=0)
