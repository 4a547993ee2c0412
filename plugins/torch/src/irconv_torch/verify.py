"""The torch reference for ``irconv convert --verify``: the ``.pt2`` program run by torch."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.plugins import Verifier


def run_program(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    """Outputs of the program in ``path`` by tensor name, computed by torch on the CPU; the
    archive is read as the loader reads it (no unpickling)."""
    import torch
    from torch.export.graph_signature import InputKind, OutputKind

    from irconv_torch.archive import load_program_file

    program = load_program_file(path)
    signature = program.graph_signature
    names = [spec.arg.name for spec in signature.input_specs if spec.kind == InputKind.USER_INPUT]
    arguments = [torch.from_numpy(inputs[name]) for name in names]
    results = program.module()(*arguments)
    results = results if isinstance(results, (tuple, list)) else (results,)
    outputs = [spec.arg.name for spec in signature.output_specs if spec.kind == OutputKind.USER_OUTPUT]
    return {name: value.detach().numpy() for name, value in zip(outputs, results, strict=True)}


VERIFIER = Verifier(
    framework="torch",
    run_reference=run_program,
    requires=("torch",),
    install="irconv-torch[torch]",
    description="torch (the exported program, CPU)",
)
