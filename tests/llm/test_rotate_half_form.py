"""llm.rotate_half_form: rotary embeddings' rotate_half in the form OpenVINO fuses into one RoPE op."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv import convert_model, save_model
from irconv.testing.runtime import compile_ir, run_ir

pytest.importorskip("irconv_torch")

TRANSFORM = "llm.rotate_half_form"


def _rotary(swapped: bool = False) -> Any:
    """``x * cos + rotate_half(x) * sin`` over x [batch, heads, length, 16], as transformers
    writes it; ``swapped`` concatenates [x1, -x2] instead (no rotation OpenVINO knows)."""
    import torch

    class Rotary(torch.nn.Module):
        def forward(self, x: Any, cos: Any, sin: Any) -> Any:
            x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
            rotated = torch.cat((x1, -x2) if swapped else (-x2, x1), dim=-1)
            return x * cos.unsqueeze(1) + rotated * sin.unsqueeze(1)

    return Rotary().eval()


def _inputs() -> tuple[Any, ...]:
    import torch

    generator = torch.Generator().manual_seed(0)
    angles = torch.rand(2, 5, 16, generator=generator) * 6
    return torch.randn(2, 4, 5, 16, generator=generator), angles.cos(), angles.sin()


def _convert(module: Any, tmp_path: Path, name: str, **options: Any) -> Path:
    xml = tmp_path / f"{name}.xml"
    save_model(convert_model(module, example_input=_inputs(), compress_to_fp16=False, **options), xml)
    return xml


def _runtime_layers(xml: Path) -> Counter[str]:
    runtime = compile_ir(xml).get_runtime_model()
    return Counter(str(op.get_rt_info()["layerType"].value) for op in runtime.get_ops())


@pytest.mark.parametrize("disabled", [False, True], ids=["rewritten", "disabled"])
def test_rotate_half_runs_as_one_rope_op(disabled: bool, tmp_path: Path) -> None:
    import torch

    module = _rotary()
    xml = _convert(module, tmp_path, "rotary", disabled_transforms=[TRANSFORM] if disabled else [])
    inputs = _inputs()
    with torch.no_grad():
        expected = module(*inputs).numpy()
    got = next(iter(run_ir(xml, [t.numpy() for t in inputs]).values()))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert (_runtime_layers(xml)["RoPE"] == 1) != disabled


def test_other_concatenations_are_left_alone(tmp_path: Path) -> None:
    import torch

    module = _rotary(swapped=True)
    xml = _convert(module, tmp_path, "swapped")
    inputs = _inputs()
    with torch.no_grad():
        expected = module(*inputs).numpy()
    got = next(iter(run_ir(xml, [t.numpy() for t in inputs]).values()))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    import openvino

    types = Counter(op.get_type_name() for op in openvino.Core().read_model(xml).get_ops())
    assert types["Negative"] == 1 and _runtime_layers(xml)["RoPE"] == 0
