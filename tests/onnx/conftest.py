"""Shared helpers for ONNX end-to-end tests: convert with irconv, run on OpenVINO and onnxruntime."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest


@pytest.fixture
def convert_and_compare(tmp_path: Path, installed_host: Any) -> Callable[..., dict[str, np.ndarray]]:
    """``convert_and_compare(model, feeds, rtol=, atol=)``: irconv IR on OpenVINO vs onnxruntime.

    Returns the OpenVINO outputs; raises AssertionError on any difference.
    """
    import onnx
    import onnxruntime as ort
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    def run(model: Any, feeds: dict[str, np.ndarray], rtol: float = 1e-4, atol: float = 1e-5,
            **options: Any) -> dict[str, np.ndarray]:
        path = tmp_path / "model.onnx"
        model.ir_version = min(model.ir_version, 10)  # what the installed onnxruntime reads
        onnx.save_model(model, str(path))
        graph = convert_model(path, host=installed_host, **options)
        xml = tmp_path / "model.xml"
        save_model(graph, xml, host=installed_host, compress_to_fp16=False)
        got = run_ir(xml, feeds)
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        expected = session.run(names, feeds)
        for name, want in zip(names, expected, strict=True):
            assert name in got, f"output {name} missing from the IR (has {sorted(got)})"
            np.testing.assert_allclose(got[name], want, rtol=rtol, atol=atol, err_msg=name)
        return got

    return run
