"""The front end as a plugin: lazy torch import, supported-op listing, all unsupported ops
in one report, a third party's extractor for a custom ``torch.library`` op, weights shared
with the program, half-precision weights kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from irconv.errors import UnsupportedOpsError
from irconv.frontend import extractor, typed
from irconv.plugins import PluginHost, hookimpl
from irconv_opset import Multiply, Tanh
from torch import nn
from torch_support import check_module, convert_and_compile, run_both


def test_loading_the_plugin_and_another_frameworks_extractors_does_not_import_torch() -> None:
    probe = ("import sys, irconv_torch.plugin as p; p.load_model(); assert p.extract_op('onnx') == []; "
             "p.declare_hints(); assert 'torch' not in sys.modules, 'torch imported'; print('ok')")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr


def test_irconv_ops_lists_the_aten_extractors() -> None:
    done = subprocess.run([sys.executable, "-m", "irconv", "ops", "--framework", "torch"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for op in ("aten.convolution.default", "aten.scaled_dot_product_attention.default", "aten.lstm.input"):
        assert op in done.stdout


@torch.library.custom_op("irconv_test::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x) * scale


@scaled_tanh.register_fake
def _(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.empty_like(x)


class UsesCustomAndUnsupportedOps(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return scaled_tanh(x, 2.0) + torch.special.i0(x) + torch.special.i0(x * 2)


class UsesCustomOp(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return scaled_tanh(x, 2.0) + 1


def test_every_unsupported_op_is_reported_at_once() -> None:
    import irconv

    with pytest.raises(UnsupportedOpsError) as raised:
        irconv.convert_model(UsesCustomAndUnsupportedOps(), example_input=torch.randn(2, 3))
    message = str(raised.value)
    assert "irconv_test.scaled_tanh.default" in message and "aten.i0.default" in message
    assert "x2" in message  # the two i0 calls counted once


class ScaledTanhPlugin:
    """A third party's plugin mapping the custom op to opset ops."""

    @hookimpl
    def extract_op(self) -> list[Any]:
        def extract(node: Any, ctx: Any) -> list[Any]:
            data = ctx.input(0)
            scale = typed(ctx, ctx.attrs.float("scale"), data.data.element_type, suffix="scale")
            return [ctx.op(Multiply(), ctx.op(Tanh(), data, suffix="tanh"), scale, suffix="scaled")]

        return [extractor("torch", "irconv_test.scaled_tanh.default", extract, versions=(205, None),
                          produces=[Tanh, Multiply])]


def test_a_third_party_extractor_maps_a_custom_torch_library_op(tmp_path: Path) -> None:
    host = PluginHost()
    host.register(ScaledTanhPlugin(), "scaled_tanh")
    check_module(UsesCustomOp(), torch.randn(2, 3), tmp_path, host=host)


def test_weights_are_views_of_the_programs_tensors() -> None:
    import irconv
    from irconv.ops import Const

    model = nn.Linear(64, 32).eval()
    program = torch.export.export(model, (torch.randn(1, 64),))
    graph = irconv.convert_model(program, disabled_transforms=["fuse.transpose_matmul_weights"])
    weights = {node.name: node.op for node in graph.nodes() if isinstance(node.op, Const)}
    weight = weights["weight"].value
    assert np.shares_memory(weight, program.state_dict["weight"].detach().numpy())


def test_half_precision_weights_are_kept_and_run(tmp_path: Path) -> None:
    import irconv
    from irconv.ops import Const

    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4)).half().eval()
    x = torch.randn(2, 16).half()
    graph = irconv.convert_model(model, example_input=x)
    dtypes = {node.op.value.dtype for node in graph.nodes() if isinstance(node.op, Const) and node.op.value.ndim == 2}
    assert dtypes == {np.dtype(np.float16)}
    compiled = convert_and_compile(model, tmp_path, example_input=x)
    expected, actual = run_both(model, compiled, (x,))
    np.testing.assert_allclose(actual[0].astype(np.float32), expected[0].astype(np.float32), rtol=2e-2, atol=2e-2)


def test_a_module_without_example_input_is_one_clear_error() -> None:
    import irconv
    from irconv.errors import UserError

    with pytest.raises(UserError, match="needs example_input="):
        irconv.convert_model(nn.Linear(2, 2))


def test_a_keyword_the_torch_loader_does_not_take_names_those_it_takes() -> None:
    import irconv
    from irconv.errors import UserError

    with pytest.raises(UserError, match="example_inputs .*takes: example_input, dynamic_shapes"):
        irconv.convert_model(nn.Linear(2, 2), example_inputs=torch.randn(1, 2))


def test_a_bf16_model_keeps_bf16_inputs_and_outputs(tmp_path: Path) -> None:
    """bf16 weights stay bf16 constants (the .bin holds their bytes); the computation is bf16 as torch's is."""
    import openvino as ov

    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4)).to(torch.bfloat16).eval()
    x = torch.randn(2, 16).to(torch.bfloat16)
    compiled = convert_and_compile(model, tmp_path, example_input=x)
    saved = ov.Core().read_model(tmp_path / "model.xml")
    matrices = {op.get_output_element_type(0) for op in saved.get_ops()
                if op.get_type_name() == "Constant" and len(op.get_output_shape(0)) == 2}
    assert matrices == {ov.Type.bf16}
    assert compiled.input(0).get_element_type() == ov.Type.bf16
    bits = x.view(torch.int16).numpy()
    request = compiled.create_infer_request()
    request.set_input_tensor(ov.Tensor(bits.view(np.float16), bits.shape, ov.Type.bf16))
    request.infer()
    result = request.get_output_tensor(0)
    assert result.element_type == ov.Type.bf16
    actual = torch.from_numpy(result.data.view(np.int16).copy()).view(torch.bfloat16).float().numpy()
    with torch.no_grad():
        expected = model(x).float().numpy()
    np.testing.assert_allclose(actual, expected, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize(("weight_format", "bound"), [("int8", 0.02), ("int4-sym", 0.15)])
def test_bf16_weights_compress_with_bf16_scales(tmp_path: Path, weight_format: str, bound: float) -> None:
    """--weight-format on a bf16 model: its scales are bf16 (the weights' type), its result
    near the uncompressed bf16 IR's."""
    import openvino as ov
    from irconv.cli.main import main
    from irconv.runtime import compile_for_comparison

    class Bf16Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 64)).to(torch.bfloat16)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x.to(torch.bfloat16)).float()

    torch.manual_seed(0)
    program = tmp_path / "m.pt2"
    torch.export.save(torch.export.export(Bf16Net().eval(), (torch.randn(2, 128),)), program)
    plain, compressed = tmp_path / "plain" / "m.xml", tmp_path / weight_format / "m.xml"
    assert main(["convert", str(program), "-o", str(plain), "-q"]) == 0
    assert main(["convert", str(program), "-o", str(compressed), "-q", "--weight-format", weight_format,
                 "--all-layers", "--group-size", "64"]) == 0
    scales = {op.get_output_element_type(0) for op in ov.Core().read_model(compressed).get_ops()
              if op.get_type_name() == "Constant" and op.get_friendly_name().endswith("/scale")}
    assert scales == {ov.Type.bf16}
    x = np.random.default_rng(2).standard_normal((2, 128)).astype(np.float32)
    expected = compile_for_comparison(plain)([x])[0]
    got = compile_for_comparison(compressed)([x])[0]
    assert np.linalg.norm(got - expected) < bound * np.linalg.norm(expected)
