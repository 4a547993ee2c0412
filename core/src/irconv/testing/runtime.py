"""Run an emitted IR in the OpenVINO runtime, for tests across distributions.

OpenVINO is a test dependency only: it is imported inside these functions, never by
irconv itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from irconv.contract.options import ConversionOptions
from irconv.graph import Graph
from irconv.pipeline.run import save
from irconv.plugins.manager import PluginHost


def emit_ir(graph: Graph, xml_path: Path, host: PluginHost | None = None, **options: Any) -> Path:
    """Emit ``graph`` as IR v11 (fp16 compression off unless asked) and return the ``.xml``."""
    opts = ConversionOptions.from_kwargs(**{"compress_to_fp16": False, **options})
    save(graph, Path(xml_path), opts, host or PluginHost(strict=True))
    return Path(xml_path)


def compile_ir(xml_path: Path, *, host: PluginHost | None = None) -> Any:
    """Read and compile the IR on CPU for comparison (``irconv.runtime.compile_for_comparison``:
    f32 whatever the device's default), with the installed plugins' runtime extensions added
    (their custom-opset ops run)."""
    from irconv.runtime import compile_for_comparison

    return compile_for_comparison(Path(xml_path), registry=None if host is None else host.registry())


def run_ir(xml_path: Path, inputs: Mapping[str, np.ndarray] | list[np.ndarray], **kwargs: Any) -> dict[str, np.ndarray]:
    """Run the IR once; outputs keyed by their first tensor name (or ``output<i>``).

    ``inputs`` maps input tensor names to arrays (inputs the runtime dropped as unused
    are skipped), or is a list in input order.
    """
    compiled = compile_ir(Path(xml_path), **kwargs)
    if isinstance(inputs, Mapping):
        feed: dict[Any, np.ndarray] = {}
        for port in compiled.inputs:
            names = port.get_names()
            match = next((n for n in inputs if n in names), None)
            if match is None:
                raise KeyError(f"no value given for IR input {sorted(names)}")
            feed[port] = inputs[match]
    else:
        feed = {compiled.inputs[i]: v for i, v in enumerate(inputs)}
    request = compiled.create_infer_request()
    request.infer(feed)
    outputs: dict[str, np.ndarray] = {}
    for i, port in enumerate(compiled.outputs):
        names = sorted(port.get_names())
        key = names[0] if names else f"output{i}"
        outputs[key] = np.array(request.get_tensor(port).data)
        for name in names[1:]:
            outputs[name] = outputs[key]
    return outputs
