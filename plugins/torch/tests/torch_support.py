"""Converting a torch module with irconv and comparing OpenVINO's results with torch eager."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from irconv.runtime import compile_for_comparison


class Fn(torch.nn.Module):
    """A module computing ``fn(*inputs)``: one op (or a few) to convert and compare."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *inputs: torch.Tensor) -> Any:
        return self.fn(*inputs)


def as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def convert_and_compile(model: Any, tmp_path: Path, **keywords: Any) -> Any:
    """``model`` (a module with ``example_input=``, or a program) converted, saved and compiled."""
    import irconv
    import openvino as ov

    graph = irconv.convert_model(model, **keywords)
    xml = tmp_path / "model.xml"
    irconv.save_model(graph, xml, compress_to_fp16=False)
    core = ov.Core()
    return compile_for_comparison(xml, core=core)


def run_both(module: Any, compiled: Any, inputs: Sequence[Any]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """torch eager's outputs and OpenVINO's, on the same inputs."""
    import torch

    with torch.no_grad():
        expected = as_tuple(module(*inputs))
    flat = [e for e in expected if isinstance(e, torch.Tensor)]
    actual = compiled([t.numpy() for t in inputs])
    return [e.numpy() for e in flat], [actual[compiled.output(i)] for i in range(len(flat))]


def check_module(module: Any, example_input: Any, tmp_path: Path, *, runs: Sequence[Any] = (),
                 rtol: float = 1e-4, atol: float = 1e-4, **keywords: Any) -> None:
    """Convert ``module`` on ``example_input``; on it and on each input of ``runs``, torch
    eager and the IR in OpenVINO agree within the tolerances (shape, dtype and values)."""
    module = module.eval()
    compiled = convert_and_compile(module, tmp_path, example_input=example_input, **keywords)
    for inputs in (example_input, *runs):
        expected, actual = run_both(module, compiled, as_tuple(inputs))
        assert len(expected) == len(actual)
        for want, got in zip(expected, actual, strict=True):
            assert got.shape == want.shape, (got.shape, want.shape)
            if want.dtype == np.bool_ or want.dtype.kind in "iu":
                np.testing.assert_array_equal(got.astype(want.dtype), want)
            else:
                np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=rtol, atol=atol)
