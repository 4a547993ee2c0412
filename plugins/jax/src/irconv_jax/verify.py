"""The jax reference for ``irconv convert --verify``: the ``jax.export`` artifact called by jax on CPU."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.plugins import Verifier


def run_artifact(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    """Outputs of the artifact in ``path`` by the names the loader gives them (``output<i>``),
    on the inputs named ``input<i>``; bf16 results as their f32 numbers."""
    import jax
    import numpy as np
    from jax import export

    exported = export.deserialize(bytearray(path.read_bytes()))
    arguments = [_for_jax(inputs[f"input{i}"], aval.dtype) for i, aval in enumerate(exported.in_avals)]
    results = exported.call(*exported.in_tree.unflatten(arguments)[0])
    outputs = [np.asarray(value) for value in jax.tree_util.tree_leaves(results)]
    return {f"output{i}": value.astype(np.float32) if value.dtype == jax.numpy.bfloat16 else value
            for i, value in enumerate(outputs)}


def _for_jax(value: Any, dtype: Any) -> Any:
    """An input as jax takes it: irconv's narrow float arrays (bit patterns) in jax's dtype."""
    from irconv import narrow_float

    if narrow_float.is_narrow_float_array(value):
        return narrow_float.bits(value).view(dtype)
    return value


VERIFIER = Verifier(
    framework="jax",
    run_reference=run_artifact,
    requires=("jax",),
    install="irconv-jax[jax]",
    description="jax (the jax.export artifact, CPU)",
)
