"""Cases for the Fourier transforms, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import DFT, IDFT, IRDFT, ISTFT, RDFT, STFT
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(19)
TOL = {"rtol": 1e-4, "atol": 1e-4}


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def positive(*shape: int) -> np.ndarray:
    return rng.uniform(0.5, 1.5, shape).astype(np.float32)


def i64(*values: int) -> object:
    return const(np.array(values, np.int64))


CASES: list[OpCase] = [
    OpCase(DFT(), [tensor(2, 8, 2), i64(1)], **TOL),
    OpCase(DFT(), [tensor(3, 4, 6, 2), i64(1, 2), i64(5, -1)], id="signal_size", **TOL),
    OpCase(DFT(), [tensor(4, 5, 2), i64(-1)], id="negative_axis", **TOL),
    OpCase(IDFT(), [tensor(2, 8, 2), i64(1)], **TOL),
    OpCase(IDFT(), [tensor(4, 6, 2), i64(0, 1), i64(3, 8)], id="signal_size", **TOL),
    OpCase(RDFT(), [tensor(2, 8), i64(1)], **TOL),
    OpCase(RDFT(), [tensor(3, 4, 6), i64(1, 2), i64(4, 5)], id="signal_size", **TOL),
    OpCase(IRDFT(), [tensor(2, 5, 2), i64(1)], **TOL),
    OpCase(IRDFT(), [tensor(3, 4, 4, 2), i64(1, 2), i64(4, 7)], id="signal_size", **TOL),
    OpCase(STFT(), [tensor(20), tensor(6), const(np.int64(8)), const(np.int64(3))], id="window_padded", **TOL),
    OpCase(
        STFT(transpose_frames=True),
        [tensor(2, 16), tensor(4), const(np.int64(4)), const(np.int64(2))],
        id="batched_transposed",
        **TOL,
    ),
    OpCase(ISTFT(), [tensor(5, 7, 2), positive(8), const(np.int64(8)), const(np.int64(2))], id="plain", **TOL),
    OpCase(
        ISTFT(center=True), [tensor(5, 7, 2), positive(6), const(np.int64(8)), const(np.int64(3))], id="center", **TOL
    ),
    OpCase(
        ISTFT(normalized=True),
        [tensor(2, 5, 6, 2), positive(8), const(np.int64(8)), const(np.int64(4))],
        id="normalized_batched",
        **TOL,
    ),
    OpCase(
        ISTFT(center=True),
        [tensor(5, 7, 2), positive(8), const(np.int64(8)), const(np.int64(2)), const(np.int64(10))],
        id="length_trim",
        **TOL,
    ),
    OpCase(
        ISTFT(),
        [tensor(5, 7, 2), positive(8), const(np.int64(8)), const(np.int64(2)), const(np.int64(30))],
        id="length_pad",
        **TOL,
    ),
]
