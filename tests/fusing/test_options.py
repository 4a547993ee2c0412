"""The switches, end to end: an ONNX model converted with fusing on, off, partly frozen or
with one transform disabled still matches onnxruntime, with the expected ops left."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv import convert_model, save_model
from irconv.runtime import compile_for_comparison

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(9)


def _model(path: Path) -> Path:
    from onnx import TensorProto, helper, numpy_helper

    def init(name: str, value: np.ndarray) -> onnx.TensorProto:
        return numpy_helper.from_array(value.astype(np.float32), name)

    inits = [
        init("w1", RNG.standard_normal((6, 3, 3, 3)) * 0.3),
        init("gamma", RNG.uniform(0.5, 1.5, 6)),
        init("beta", RNG.uniform(-0.2, 0.2, 6)),
        init("mean", RNG.uniform(-0.2, 0.2, 6)),
        init("var", RNG.uniform(0.5, 1.5, 6)),
        init("w2", RNG.standard_normal((4, 6, 1, 1)) * 0.3),
        init("scale", RNG.uniform(0.5, 1.5, (1, 4, 1, 1))),
        numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"),
    ]
    nodes = [
        helper.make_node("Pad", ["x", "pads"], ["padded"], name="pad", mode="constant"),
        helper.make_node("Conv", ["padded", "w1"], ["c1"], name="conv1"),
        helper.make_node("BatchNormalization", ["c1", "gamma", "beta", "mean", "var"], ["bn"], name="bn"),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("Conv", ["r", "w2"], ["c2"], name="conv2"),
        helper.make_node("Mul", ["c2", "scale"], ["y"], name="scale_mul"),
    ]
    graph = helper.make_graph(
        nodes,
        "fusing",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, np.ndarray]:
    path = _model(tmp_path_factory.mktemp("fusing") / "model.onnx")
    x = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
    (expected,) = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    return path, x, expected


def _convert(model: tuple[Path, np.ndarray, np.ndarray], tmp_path: Path, **options: object) -> list[str]:
    import openvino as ov

    path, x, expected = model
    xml = tmp_path / "model.xml"
    save_model(convert_model(path, validate=True, **options), xml, compress_to_fp16=False)
    ir = ov.Core().read_model(str(xml))
    compiled = compile_for_comparison(ir)
    got = compiled({"x": x})[compiled.outputs[0]]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    return [op.get_type_name() for op in ir.get_ordered_ops()]


def test_fusing_on_by_default(model, tmp_path):
    types = _convert(model, tmp_path)
    assert not {"BatchNormInference", "Multiply", "Pad"} & set(types)
    assert types.count("Add") == 1  # the BatchNorm shift, as conv1's bias


def test_disable_fusing(model, tmp_path):
    types = _convert(model, tmp_path, disable_fusing=True)
    assert {"BatchNormInference", "Multiply", "Pad"} <= set(types)


def test_finegrain_fusing_freezes_matching_nodes(model, tmp_path):
    types = _convert(model, tmp_path, finegrain_fusing="bn,scale_.*")
    assert {"BatchNormInference", "Multiply"} <= set(types)
    assert "Pad" not in types


def test_disable_one_transform(model, tmp_path):
    types = _convert(model, tmp_path, disabled_transforms={"fuse.pad"})
    assert "Pad" in types and "Multiply" not in types


def test_bad_regex_is_one_clear_error(model):
    from irconv.errors import UserError

    with pytest.raises(UserError, match="finegrain"):
        convert_model(model[0], finegrain_fusing="conv(")


def test_switches_are_cli_flags(installed_host):
    flags = {option.cli_flag for option in installed_host.registry().options}
    assert {"--disable-fusing", "--disable-resnet-optimization"} <= flags  # --finegrain-fusing: the core's
