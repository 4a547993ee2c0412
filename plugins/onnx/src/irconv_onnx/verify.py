"""The ONNX reference for ``irconv convert --verify``: the model run by onnxruntime."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.plugins import Verifier


def run_onnxruntime(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    """Outputs of ``path`` by name, computed by onnxruntime on the CPU (inputs fed by name;
    inputs the graph does not read are left out, as OpenVINO drops them)."""
    import onnxruntime as ort

    session_options = ort.SessionOptions()
    session_options.log_severity_level = 3
    session = ort.InferenceSession(str(path), session_options, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}
    feed = {name: value for name, value in inputs.items() if name in wanted}
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feed), strict=True))


VERIFIER = Verifier(
    framework="onnx",
    run_reference=run_onnxruntime,
    requires=("onnxruntime",),
    install="onnxruntime",
    description="onnxruntime (CPU)",
)
