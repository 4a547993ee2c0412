"""The jax reference for ``irconv convert --verify``: the ``jax.export`` artifact called by jax on CPU."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.plugins import Verifier


def run_artifact(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    """Outputs of the artifact in ``path`` by the names the loader gives them (``output<i>``),
    on the inputs named ``input<i>``."""
    import jax
    import numpy as np
    from jax import export

    exported = export.deserialize(bytearray(path.read_bytes()))
    arguments = [inputs[f"input{i}"] for i in range(len(exported.in_avals))]
    results = exported.call(*exported.in_tree.unflatten(arguments)[0])
    return {f"output{i}": np.asarray(value) for i, value in enumerate(jax.tree_util.tree_leaves(results))}


VERIFIER = Verifier(
    framework="jax",
    run_reference=run_artifact,
    requires=("jax",),
    install="irconv-jax[jax]",
    description="jax (the jax.export artifact, CPU)",
)
