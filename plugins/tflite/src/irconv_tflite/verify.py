"""The TFLite reference for ``irconv convert --verify``: the model run by the LiteRT interpreter."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.plugins import Verifier


def run_interpreter(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    """Outputs of ``path`` by tensor name (and signature alias), computed by LiteRT on the CPU.

    Inputs are matched by tensor name or by the signature's alias, as irconv names them.
    """
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=str(path), num_threads=1)
    aliases = _signature_aliases(interpreter)
    for detail in interpreter.get_input_details():
        name = detail["name"]
        value = inputs.get(name, inputs.get(aliases.get(name, "")))
        if value is None:
            continue
        value = np.asarray(value, dtype=detail["dtype"])
        if tuple(detail["shape"]) != value.shape:
            interpreter.resize_tensor_input(detail["index"], value.shape)
    interpreter.allocate_tensors()
    for detail in interpreter.get_input_details():
        name = detail["name"]
        value = inputs.get(name, inputs.get(aliases.get(name, "")))
        if value is not None:
            interpreter.set_tensor(detail["index"], np.asarray(value, dtype=detail["dtype"]))
    interpreter.invoke()
    results: dict[str, Any] = {}
    for detail in interpreter.get_output_details():
        value = interpreter.get_tensor(detail["index"])
        results[detail["name"]] = value
        if detail["name"] in aliases:
            results[aliases[detail["name"]]] = value
    return results


def _signature_aliases(interpreter: Any) -> dict[str, str]:
    """Tensor name -> signature alias, for the first signature."""
    signatures = interpreter.get_signature_list()
    if not signatures:
        return {}
    runner_key = next(iter(signatures))
    details = interpreter._get_full_signature_list()[runner_key]  # noqa: SLF001 - the public list has no names
    by_index = {d["index"]: d["name"] for d in interpreter.get_tensor_details()}
    found = {}
    for alias, index in {**details["inputs"], **details["outputs"]}.items():
        if index in by_index:
            found[by_index[index]] = alias
    return found


VERIFIER = Verifier(
    framework="tflite",
    run_reference=run_interpreter,
    requires=("ai_edge_litert",),
    install="ai-edge-litert",
    description="LiteRT interpreter (CPU)",
)
