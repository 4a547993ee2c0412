"""A Transpose of a MatMul input's last two axes -> the MatMul's transpose flag."""

from __future__ import annotations

import dataclasses

from irconv import Match, Rewriter, op
from irconv_opset import MatMul, Transpose

from irconv_transforms._fusion import Fusion


def swaps_last_two(perm: list[int]) -> bool:
    """``perm`` swaps the last two axes and keeps every other in place (rank 2 or more)."""
    rank = len(perm)
    return rank >= 2 and perm == [*range(rank - 2), rank - 1, rank - 2]


class FuseTransposeIntoMatMul(Fusion):
    """``MatMul(Transpose(a, [.., -1, -2]), b) -> MatMul(a, b, transpose_a=not transpose_a)``,
    and the same for ``b``: the MatMul reads its input transposed, one layer fewer (the
    Transpose stays while another op reads it).

    It runs after the attention fusions, whose patterns look for ``K^T`` as a Transpose."""

    id = "fuse.transpose_into_matmul"
    run_after = (
        *Fusion.run_after,
        "fuse.scaled_dot_product_attention",
        "fuse.transpose_matmul_weights",
        "fold.symbolic_shapes",
        "llm.fuse_split_scale_attention",
    )
    run_before = ("fuse.merge_common_subexpressions",)
    pattern = op(MatMul, bind="matmul")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        matmul, matmul_op = match["matmul"], match.op("matmul", MatMul)
        flags = {0: "transpose_a", 1: "transpose_b"}
        changed = False
        for idx, flag in flags.items():
            source = matmul.in_port(idx).get_source()
            if source is None or not isinstance(source.node.op, Transpose):
                continue
            transpose = source.node
            perm = transpose.in_port(1).data.get_value()
            data = transpose.in_port(0).get_source()
            if perm is None or data is None or not swaps_last_two([int(p) for p in perm.reshape(-1)]):
                continue
            with rw.batch():
                matmul_op = dataclasses.replace(matmul_op, **{flag: not getattr(matmul_op, flag)})
                rw.replace_op(matmul, matmul_op)
                rw.set_input(matmul.in_port(idx), data)
            changed = True
        return changed
