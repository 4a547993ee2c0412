"""An extractor another plugin registers for an ONNX op wins over expanding the op's
schema function body (the loader asks the registry, not irconv-onnx's own table)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv import hookimpl
from onnx import TensorProto, helper

pytest.importorskip("openvino")
ort = pytest.importorskip("onnxruntime")


class _CeluPlugin:
    """A third party's extractor for ai.onnx Celu (which has a function body in the schema):
    Celu(x) = alpha * Elu(x / alpha)."""

    def __init__(self) -> None:
        self.extracted: list[str] = []

    @hookimpl
    def extract_op(self) -> list[Any]:
        from irconv.frontend import extractor
        from irconv_opset import Divide, Elu, Multiply

        return [extractor("onnx", "Celu", self._extract, versions=(12, None), produces=[Divide, Elu, Multiply])]

    def _extract(self, node: Any, ctx: Any) -> list[Any]:
        from irconv_opset import Divide, Elu, Multiply

        self.extracted.append(node.name)
        alpha = ctx.const(np.float32(ctx.attrs.float("alpha", 1.0)), suffix="alpha")
        scaled = ctx.op(Divide(), ctx.input(0), alpha, suffix="scaled")
        return [ctx.op(Multiply(), ctx.op(Elu(alpha=1.0), scaled, suffix="elu"), alpha)]


def _celu_model(path: Path) -> Path:
    import onnx

    node = helper.make_node("Celu", ["x"], ["y"], name="celu", alpha=0.5)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save_model(model, str(path))
    return path


def test_third_party_extractor_for_a_function_op_wins_over_expansion(tmp_path: Path) -> None:
    from irconv import PluginHost, convert_model, save_model
    from irconv.testing.runtime import run_ir

    plugin = _CeluPlugin()
    host = PluginHost(strict=True)
    host.register(plugin, "third_party_celu")
    path = _celu_model(tmp_path / "celu.onnx")

    graph = convert_model(path, host=host)
    assert plugin.extracted == ["celu"]  # not expanded into the body's Exp/Div/... nodes
    assert "Elu" in {n.type for n in graph.nodes()}
    xml = tmp_path / "celu.xml"
    save_model(graph, xml, host=host, compress_to_fp16=False)
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    got = run_ir(xml, {"x": x})["y"]
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_the_loader_asks_the_registry_of_every_plugin(tmp_path: Path) -> None:
    from irconv import ConversionOptions, LoadContext, PluginHost, SourceOp
    from irconv_onnx.plugin import load_model

    (loader,) = load_model()
    path = _celu_model(tmp_path / "celu.onnx")

    def source_ops(host: PluginHost) -> list[str]:
        registry = host.registry()
        graph = loader.load(path, LoadContext(ConversionOptions(), registry.ops, registry.find_extractor))
        return sorted(n.op.op_type for n in graph.nodes() if isinstance(n.op, SourceOp))

    alone = PluginHost(strict=True)
    assert "Celu" not in source_ops(alone)  # no extractor anywhere: the body is expanded
    assert "Elu" in source_ops(alone)
    extended = PluginHost(strict=True)
    extended.register(_CeluPlugin(), "third_party_celu")
    assert source_ops(extended) == ["Celu"]


def _local_function_model(path: Path) -> Path:
    """y = com.example::Twice(x), with the model's own function body Twice(x) = x + x."""
    import onnx

    twice = helper.make_function(
        "com.example", "Twice", ["x"], ["y"], [helper.make_node("Add", ["x", "x"], ["y"])],
        [helper.make_opsetid("", 18)],
    )
    node = helper.make_node("Twice", ["x"], ["y"], name="twice", domain="com.example")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])])
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("com.example", 1)]
    model = helper.make_model(graph, opset_imports=opsets, functions=[twice])
    model.ir_version = 8
    onnx.save_model(model, str(path))
    return path


class _TwicePlugin:
    """A third party's extractor for the model-local function com.example::Twice, as Multiply by 2."""

    @hookimpl
    def extract_op(self) -> list[Any]:
        from irconv.frontend import extractor
        from irconv_opset import Multiply

        def extract(node: Any, ctx: Any) -> list[Any]:
            return [ctx.op(Multiply(), ctx.input(0), ctx.const(np.float32(2.0)))]

        return [extractor("onnx", "Twice", extract, domain="com.example", produces=[Multiply])]


def test_an_extractor_wins_over_the_models_own_function_body(tmp_path: Path) -> None:
    from irconv import PluginHost, convert_model, save_model
    from irconv.testing.runtime import run_ir

    path = _local_function_model(tmp_path / "twice.onnx")
    assert "Add" in {n.type for n in convert_model(path, host=PluginHost(strict=True)).nodes()}  # expanded
    host = PluginHost(strict=True)
    host.register(_TwicePlugin(), "third_party_twice")
    graph = convert_model(path, host=host)
    types = {n.type for n in graph.nodes()}
    assert "Multiply" in types and "Add" not in types
    xml = tmp_path / "twice.xml"
    save_model(graph, xml, host=host, compress_to_fp16=False)
    x = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(run_ir(xml, {"x": x})["y"], want, rtol=1e-6)
