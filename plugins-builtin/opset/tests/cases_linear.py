"""Cases for the linear family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import Einsum, FakeQuantize, MatMul, ScaledDotProductAttention
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(3)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


CASES: list[OpCase] = [
    OpCase(MatMul(), [tensor(3, 4), tensor(4, 5)], id="matmul_2d"),
    OpCase(MatMul(transpose_a=True, transpose_b=True), [tensor(2, 4, 3), tensor(5, 4)], id="matmul_transposed_batch"),
    OpCase(MatMul(), [tensor(2, 1, 3, 4), tensor(3, 4, 2)], id="matmul_broadcast_batch"),
    OpCase(MatMul(), [tensor(4), tensor(2, 4, 3)], id="matmul_vector_left"),
    OpCase(MatMul(transpose_a=True), [tensor(2, 4, 3), tensor(4)], id="matmul_vector_right"),
    OpCase(MatMul(), [tensor(4), tensor(4)], id="matmul_dot"),
    OpCase(MatMul(transpose_b=True), [tensor(1, 8), const(tensor(6, 8))], id="matmul_const_weights"),
    OpCase(Einsum(equation="ij,jk->ik"), [tensor(3, 4), tensor(4, 5)], id="einsum_matmul"),
    OpCase(Einsum(equation="bij->bji"), [tensor(2, 3, 4)], id="einsum_transpose"),
    OpCase(Einsum(equation="ii->i"), [tensor(4, 4)], id="einsum_diagonal"),
    OpCase(Einsum(equation="...ij,...jk->...ik"), [tensor(2, 3, 4), tensor(2, 4, 5)], id="einsum_ellipsis"),
    OpCase(Einsum(equation="ab,ab,ab->a"), [tensor(3, 4), tensor(3, 4), tensor(3, 4)], id="einsum_three"),
    OpCase(Einsum(equation="ij,kj"), [tensor(3, 4), tensor(5, 4)], id="einsum_implicit"),
    OpCase(
        ScaledDotProductAttention(),
        [tensor(2, 4, 5, 8), tensor(2, 4, 6, 8), tensor(2, 4, 6, 3)],
        id="sdpa_plain",
        atol=1e-4,
    ),
    OpCase(
        ScaledDotProductAttention(causal=True),
        [tensor(1, 2, 5, 4), tensor(1, 2, 5, 4), tensor(1, 2, 5, 4)],
        id="sdpa_causal",
        atol=1e-4,
    ),
    OpCase(
        ScaledDotProductAttention(causal=True),
        [tensor(2, 3, 4), tensor(2, 5, 4), tensor(2, 5, 3)],
        id="sdpa_causal_rectangular_rank3",
        atol=1e-4,
    ),
    OpCase(
        ScaledDotProductAttention(),
        [tensor(1, 2, 3, 4), tensor(1, 2, 5, 4), tensor(1, 2, 5, 6), tensor(1, 1, 3, 5), const(np.float32(0.3))],
        id="sdpa_float_mask_scale",
        atol=1e-4,
    ),
    OpCase(
        ScaledDotProductAttention(),
        [tensor(1, 2, 3, 4), tensor(1, 2, 5, 4), tensor(1, 2, 5, 6), const(rng.random((3, 5)) > 0.3)],
        id="sdpa_bool_mask",
        atol=1e-4,
    ),
    OpCase(
        FakeQuantize(levels=256),
        [
            tensor(1, 3, 4, 4),
            const(np.float32(-1.0)),
            const(np.float32(1.0)),
            const(np.float32(-1.0)),
            const(np.float32(1.0)),
        ],
        id="fq_scalar_ranges",
        atol=1e-5,
    ),
    OpCase(
        FakeQuantize(levels=16),
        [
            tensor(2, 3, 4),
            const(np.array([[-1.0], [-0.5], [-2.0]], np.float32)),
            const(np.array([[1.0], [0.5], [2.0]], np.float32)),
            const(np.float32(0.0)),
            const(np.float32(15.0)),
        ],
        id="fq_per_channel",
        atol=1e-4,
    ),
]
