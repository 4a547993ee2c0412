"""A Transpose of a MatMul input's last two axes -> the MatMul's transpose flag."""

from __future__ import annotations

import dataclasses

from irconv import Match, OutPort, Rewriter, op
from irconv_opset import MatMul, Multiply, Transpose

from irconv_transforms._fusion import Fusion


def swaps_last_two(perm: list[int]) -> bool:
    """``perm`` swaps the last two axes and keeps every other in place (rank 2 or more)."""
    rank = len(perm)
    return rank >= 2 and perm == [*range(rank - 2), rank - 1, rank - 2]


class FuseTransposeIntoMatMul(Fusion):
    """``MatMul(Transpose(a, [.., -1, -2]), b) -> MatMul(a, b, transpose_a=not transpose_a)``,
    and the same for ``b``, also through a scale by a single-valued constant
    (``Transpose(a) * c`` -> ``a * c``): the MatMul reads its input transposed, one layer
    fewer (the Transpose stays while another op reads it).

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
            scaled = _scaled(source)
            if scaled is not None:  # Transpose(y) * c: y * c, transposed by the flag
                source, scale = scaled
            data = _untransposed(source)
            if data is None:
                continue
            with rw.batch():
                if scaled is not None:
                    multiply = matmul.in_port(idx).get_source()
                    assert multiply is not None
                    data = rw.op(dataclasses.replace(multiply.node.op), data, scale, like=multiply.node)
                matmul_op = dataclasses.replace(matmul_op, **{flag: not getattr(matmul_op, flag)})
                rw.replace_op(matmul, matmul_op)
                rw.set_input(matmul.in_port(idx), data)
            changed = True
        return changed


def _untransposed(source: OutPort | None) -> OutPort | None:
    """``y`` when ``source`` is ``Transpose(y, [.., -1, -2])``, else None."""
    if source is None or not isinstance(source.node.op, Transpose):
        return None
    perm = source.node.in_port(1).data.get_value()
    data = source.node.in_port(0).get_source()
    if perm is None or data is None or not swaps_last_two([int(p) for p in perm.reshape(-1)]):
        return None
    return data


def _scaled(source: OutPort | None) -> tuple[OutPort, OutPort] | None:
    """(x, c) when ``source`` is ``Multiply(x, c)`` read only there, ``c`` a single-valued
    constant of a rank no higher than x's (it scales x without broadcasting it): a scale
    commutes with a transpose."""
    if source is None or not isinstance(source.node.op, Multiply) or len(source.get_destinations()) != 1:
        return None
    node = source.node
    if getattr(node.op, "auto_broadcast", "numpy") != "numpy":
        return None
    for x_idx, c_idx in ((0, 1), (1, 0)):
        x, c = node.in_port(x_idx).get_source(), node.in_port(c_idx).get_source()
        value = None if c is None else c.constant(shape_derived=False)
        rank = None if x is None or x.data.shape is None else len(x.data.shape)
        if x is not None and c is not None and value is not None and value.size == 1 and rank is not None \
                and value.ndim <= rank and _untransposed(x) is not None:
            return x, c
    return None
