"""Shared helpers of the custom-operation tests: run an IR with or without the extension."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv.runtime import compile_for_comparison

pytest.importorskip("openvino")
pytest.importorskip("irconv_example_swish")

#: What OpenVINO says when an IR layer's opset has no extension (checked on 2026.4).
UNSUPPORTED_OPSET = r"unsupported opset: irconv_example"


def _run_openvino(xml: Path, inputs: Mapping[str, np.ndarray], *, extension: bool) -> dict[str, np.ndarray]:
    """read_model + compile on CPU (f32) + one inference; outputs by their first tensor name."""
    import openvino as ov

    core = ov.Core()
    if extension:
        from irconv_example_swish.runtime import add_to

        add_to(core)
    compiled = compile_for_comparison(xml, core=core)
    feed = {port: inputs[next(n for n in inputs if n in port.get_names())] for port in compiled.inputs}
    result = compiled(feed)
    return {sorted(port.get_names())[0]: np.asarray(result[port]) for port in compiled.outputs}


def _ir_layers(xml: Path) -> list[tuple[str, str]]:
    """(type, version) of every layer of an IR, in file order."""
    import xml.etree.ElementTree as ET

    return [(layer.get("type", ""), layer.get("version", "")) for layer in ET.parse(xml).getroot().iter("layer")]


def _swish(x: np.ndarray, beta: float) -> np.ndarray:
    """NumPy reference written from the definition y = x * sigmoid(beta * x)."""
    return x * (1.0 / (1.0 + np.exp(-beta * x.astype(np.float64)))).astype(x.dtype)


def _convert_and_save(path: Path, out: Path, **options: Any) -> Path:
    import irconv

    graph = irconv.convert_model(path, **options)
    irconv.save_model(graph, out, compress_to_fp16=False)
    return out


class Kit:
    """The helpers, handed to tests by the ``kit`` fixture."""

    UNSUPPORTED_OPSET = UNSUPPORTED_OPSET
    run_openvino = staticmethod(_run_openvino)
    ir_layers = staticmethod(_ir_layers)
    swish = staticmethod(_swish)
    convert_and_save = staticmethod(_convert_and_save)


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
