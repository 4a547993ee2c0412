"""Permutation arithmetic, and the Transpose node the layout transforms insert."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from irconv import Node, OutPort, Rewriter
from irconv_opset import Transpose

Perm = tuple[int, ...]


def channels_first(rank: int) -> Perm:
    """N...C -> NC...: [0, r-1, 1, ..., r-2]."""
    return (0, rank - 1, *range(1, rank - 1))


def channels_last(rank: int) -> Perm:
    """NC... -> N...C: [0, 2, ..., r-1, 1]."""
    return (0, *range(2, rank), 1)


def inverse(perm: Sequence[int]) -> Perm:
    result = [0] * len(perm)
    for i, p in enumerate(perm):
        result[p] = i
    return tuple(result)


def compose(first: Sequence[int], second: Sequence[int]) -> Perm:
    """The permutation of Transpose(Transpose(x, first), second)."""
    return tuple(first[p] for p in second)


def is_identity(perm: Sequence[int]) -> bool:
    return all(i == p for i, p in enumerate(perm))


def transpose_perm(node: Node) -> Perm | None:
    """The constant permutation of a Transpose node, or None."""
    if not isinstance(node.op, Transpose):
        return None
    value = node.in_port(1).constant(shape_derived=False)
    if value is None:
        return None
    perm = tuple(int(v) for v in np.asarray(value).reshape(-1))
    if sorted(perm) != list(range(len(perm))):
        return None
    return perm


def transpose(rw: Rewriter, source: OutPort, perm: Sequence[int], name: str) -> OutPort:
    """A new Transpose of ``source`` by the constant ``perm``."""
    order = rw.const(np.asarray(perm, dtype=np.int64), name=f"{name}/perm")
    return rw.op(Transpose(), source, order, name=name)


def transpose_after(rw: Rewriter, node: Node, perm: Sequence[int], *, move_names: bool = True) -> Node:
    """Transpose ``node``'s output 0 for all its consumers (the tensor names move along unless
    ``move_names`` is False)."""
    order = rw.const(np.asarray(perm, dtype=np.int64), name=f"{node.name}/transposed/perm")
    return rw.insert_after(
        node.out_port(0), Transpose(), [order], name=f"{node.name}/transposed", move_names=move_names
    )


def permuted_const(value: np.ndarray, perm: Sequence[int]) -> np.ndarray:
    """A constant operand broadcast against a rank-``len(perm)`` tensor, permuted by ``perm``."""
    rank = len(perm)
    aligned = np.asarray(value).reshape((1,) * (rank - value.ndim) + value.shape)
    return np.ascontiguousarray(np.transpose(aligned, perm))
