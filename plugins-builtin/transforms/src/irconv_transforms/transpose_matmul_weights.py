"""Constant MatMul weights stored as [N, K] with ``transpose_b``: the CPU's fully connected layout."""

from __future__ import annotations

import dataclasses

import numpy as np
from irconv import Match, Rewriter, op

from irconv_transforms import _weights
from irconv_transforms._fusion import Fusion


TILE = 256  # 256 x 256 f32 = 256 KiB: a source and a destination tile stay in cache


def transposed(w: np.ndarray) -> np.ndarray:
    """``w.T`` as a new C-contiguous array, copied tile by tile: a plain strided copy of a
    large matrix misses the cache (and, for mmap-backed weights, the TLB) on every element
    it reads, and was the slowest step in converting big transformer models."""
    rows, cols = w.shape
    out = np.empty((cols, rows), w.dtype)
    for i in range(0, cols, TILE):
        for j in range(0, rows, TILE):
            out[i : i + TILE, j : j + TILE] = w[j : j + TILE, i : i + TILE].T
    return out


class TransposeMatMulWeights(Fusion):
    """``MatMul(x, W[K, N]) -> MatMul(x, W^T[N, K], transpose_b=True)`` for constant 2-D
    weights read only by this MatMul: the runtime turns such a MatMul into a fully connected
    layer whose weights are [N, K], so storing them that way spares a transposed copy."""

    id = "fuse.transpose_matmul_weights"
    run_after = (*Fusion.run_after, "fuse.linear_forward", "fuse.linear_backward")
    pattern = op("MatMul", bind="matmul", where=lambda n: not getattr(n.op, "transpose_b", False))

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        matmul = match["matmul"]
        w = _weights.weights(matmul)
        source = matmul.in_port(1).get_source() if matmul.has_input(1) else None
        if w is None or source is None or len(source.get_destinations()) != 1:
            return False
        shape = matmul.in_port(0).get_source().data.shape if matmul.has_input(0) else None  # type: ignore[union-attr]
        if shape is None or len(shape) < 2:
            return False  # a 1-D first input: keep the plain form
        _weights.set_weights(rw, matmul, transposed(w))
        rw.replace_op(matmul, dataclasses.replace(matmul.op, transpose_b=True))  # type: ignore[type-var]
        return True
