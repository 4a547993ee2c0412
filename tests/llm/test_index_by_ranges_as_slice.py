"""llm.index_by_ranges_as_slice: ``x[arange(..)[:, None], arange(..)[None, :]]`` read as a Slice."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv import convert_model, save_model
from irconv.testing.runtime import run_ir

pytest.importorskip("irconv_torch")

TRANSFORM = "llm.index_by_ranges_as_slice"


def _mask_lookup(rows: str) -> Any:
    """transformers' padding-mask lookup ``mask[batch_arange, kv_arange]`` broadcast to
    [batch, 1, 1, kv]; ``rows="given"`` indexes the rows by an input tensor instead."""
    import torch

    class Lookup(torch.nn.Module):
        def forward(self, mask: Any, row_index: Any) -> Any:
            batch, length = mask.shape
            row = torch.arange(batch) if rows == "arange" else row_index
            kv = torch.arange(1, length - 1) + 1  # 2 .. length - 1: a known start the slice keeps
            picked = mask.bool()[row[:, None, None, None], kv[None, None, None, :]]
            return picked.to(torch.float32) * 3.0

    return Lookup().eval()


def _inputs(batch: int, length: int) -> tuple[Any, ...]:
    import torch

    generator = torch.Generator().manual_seed(batch * 10 + length)
    return torch.randint(0, 2, (batch, length + 1), generator=generator), torch.randint(0, batch, (batch,), generator=generator)


def _convert(module: Any, tmp_path: Path, **options: Any) -> Path:
    xml = tmp_path / "lookup.xml"
    save_model(convert_model(module, example_input=_inputs(3, 6), **options), xml)
    return xml


def _types(xml: Path) -> Counter[str]:
    import openvino

    return Counter(op.get_type_name() for op in openvino.Core().read_model(xml).get_ops())


@pytest.mark.parametrize("disabled", [False, True], ids=["rewritten", "disabled"])
def test_aranges_index_as_a_slice(disabled: bool, tmp_path: Path) -> None:
    import torch

    module = _mask_lookup("arange")
    xml = _convert(module, tmp_path, disabled_transforms=[TRANSFORM] if disabled else [])
    assert (_types(xml)["GatherND"] == 0) != disabled
    for batch, length in [(3, 6), (2, 9), (4, 3)]:  # other sizes than the traced ones
        inputs = _inputs(batch, length)
        with torch.no_grad():
            expected = module(*inputs).numpy()
        got = next(iter(run_ir(xml, [t.numpy() for t in inputs]).values()))
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def test_an_index_of_other_values_stays_a_gather(tmp_path: Path) -> None:
    import torch

    module = _mask_lookup("given")
    xml = _convert(module, tmp_path)
    assert _types(xml)["GatherND"] == 1
    inputs = _inputs(3, 6)
    with torch.no_grad():
        expected = module(*inputs).numpy()
    np.testing.assert_array_equal(next(iter(run_ir(xml, [t.numpy() for t in inputs]).values())), expected)
