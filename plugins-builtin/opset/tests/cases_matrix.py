"""Cases for Inverse, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import Inverse
from irconv_opset.testing import OpCase

rng = np.random.default_rng(22)


def well_conditioned(*shape: int) -> np.ndarray:
    n = shape[-1]
    return (rng.standard_normal(shape) + 3 * np.eye(n)).astype(np.float32)


CASES: list[OpCase] = [
    OpCase(Inverse(), [well_conditioned(3, 3)], rtol=1e-4, atol=1e-5),
    OpCase(Inverse(adjoint=True), [well_conditioned(2, 4, 4)], id="adjoint_batched", rtol=1e-4, atol=1e-5),
]
