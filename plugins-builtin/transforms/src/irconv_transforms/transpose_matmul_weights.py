"""Constant MatMul weights stored as [N, K] with ``transpose_b``: the CPU's fully connected layout."""

from __future__ import annotations

import dataclasses

from irconv import Match, Rewriter, op
from irconv_opset import MatMul

from irconv_transforms import _weights
from irconv_transforms._fusion import Fusion


class TransposeMatMulWeights(Fusion):
    """``MatMul(x, W[K, N]) -> MatMul(x, W^T[N, K], transpose_b=True)`` for constant 2-D
    weights read only by this MatMul: the runtime turns such a MatMul into a fully connected
    layer whose weights are [N, K], so storing them that way spares a transposed copy."""

    id = "fuse.transpose_matmul_weights"
    run_after = (*Fusion.run_after, "fuse.linear_forward", "fuse.linear_backward")
    pattern = op(MatMul, bind="matmul", where=lambda n: isinstance(n.op, MatMul) and not n.op.transpose_b)

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        matmul, op_ = match["matmul"], match.op("matmul", MatMul)
        w = _weights.stored_weights(matmul)
        source = matmul.in_port(1).get_source()
        if w is None or source is None or len(source.get_destinations()) != 1:
            return False
        data = matmul.in_port(0).get_source()
        shape = None if data is None else data.data.shape
        if shape is None or len(shape) < 2:
            return False  # a 1-D first input: keep the plain form
        # A transposed view (or a rescaling not computed yet, transposed), not a copy: the
        # emitter gathers it block by block while it writes (and compresses) the weights,
        # the one pass over them it makes anyway.
        _weights.set_weights(rw, matmul, w.T)
        rw.replace_op(matmul, dataclasses.replace(op_, transpose_b=True))
        return True
