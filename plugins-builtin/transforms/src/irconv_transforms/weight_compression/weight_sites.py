"""Where a model's weights are used: MatMul right operands and embedding tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

import numpy as np
from irconv import Graph, Node, OutPort
from irconv.ops import Const

from irconv_transforms.weight_compression.quantize import Weights


@dataclass(frozen=True)
class WeightSite:
    """A constant weight matrix and the op reading it.

    ``consumer`` reads it on input ``port``; ``rows_first`` is True when the matrix is
    ``[output channels, input channels]`` (a MatMul with ``transpose_b``, an embedding
    table), False for a plain MatMul's ``[input, output]``.
    """

    consumer: Node
    port: int
    weight: Node
    rows_first: bool
    embedding: bool

    @property
    def value(self) -> Weights:
        """The matrix ``[rows, cols]``, as stored: a rescaling a fusion left uncomputed stays so.
        Stacked matrices ``[E, rows, cols]`` (a MatMul of each expert's tokens by its own
        weights) are seen as one ``[E * rows, cols]``: a scale per row of each."""
        op = self.weight.op
        assert isinstance(op, Const)
        if op.stored.ndim == 3:
            rows = _stacked_rows(op.stored, self.rows_first)
            assert rows is not None  # weight_sites() checked it
            return rows
        return op.stored if self.rows_first else op.stored.T

    @property
    def matrix_shape(self) -> tuple[int, ...]:
        """The shape the restored weights take: ``[rows, cols]``, or ``[E, rows, cols]``."""
        rows, cols = self.value.shape
        if not self.stacked:
            return (rows, cols)
        op = self.weight.op
        assert isinstance(op, Const)
        experts = int(op.stored.shape[0])
        return (experts, rows // experts, cols)

    @property
    def stacked(self) -> bool:
        """Whether the weights are a stack of matrices ``[E, rows, cols]``."""
        op = self.weight.op
        assert isinstance(op, Const)
        return op.stored.ndim == 3

    @property
    def parameters(self) -> int:
        op = self.weight.op
        assert isinstance(op, Const)
        return int(op.stored.size)


def _float_matrix(node: Node | None) -> TypeGuard[Node]:
    """A 2-D floating-point constant (so the node is there)."""
    if node is None or not isinstance(node.op, Const):
        return False
    data = node.out_port(0).data
    return data.element_type.is_float and data.shape is not None and len(data.shape) == 2


def _stacked_rows(stored: Weights, rows_first: bool) -> Weights | None:
    """``[E, rows, cols]`` weights (``[E, cols, rows]`` unless ``rows_first``) as
    ``[E * rows, cols]`` without a copy: an array whose memory allows it, or such an array
    read as a wider type (a bf16 checkpoint's); None otherwise."""
    from irconv.ops import DeferredProduct

    if isinstance(stored, DeferredProduct):
        if not stored.is_widening:
            return None
        base = _stacked_rows(stored.base, rows_first)
        return None if base is None else DeferredProduct.widened(base, stored.dtype)  # type: ignore[arg-type]
    matrices = stored if rows_first else stored.transpose(0, 2, 1)
    try:
        return matrices.reshape((-1, matrices.shape[-1]), copy=False)
    except ValueError:  # its memory is not in that order
        return None


def _stacked_matrices(node: Node | None, rows_first: bool) -> TypeGuard[Node]:
    """A 3-D floating-point constant seen as rows without a copy (``_stacked_rows``)."""
    if node is None or not isinstance(node.op, Const):
        return False
    data = node.out_port(0).data
    return (
        data.element_type.is_float
        and data.shape is not None
        and len(data.shape) == 3
        and _stacked_rows(node.op.stored, rows_first) is not None
    )


def weight_sites(graph: Graph) -> list[WeightSite]:
    """Every MatMul whose second operand is a constant float matrix (or a stack of them,
    one per expert) and whose first is not, and every
    Gather from a constant float table along axis 0 by computed indices (an embedding), in
    topological order."""
    from irconv_opset import Gather, MatMul

    sites = []
    for node in graph.topological_order():
        op = node.op
        if isinstance(op, MatMul):
            weight, data = _source(node, 1), _source(node, 0)
            computed = not isinstance(data.op if data else None, Const) and not op.transpose_a
            if computed and (_float_matrix(weight) or _stacked_matrices(weight, op.transpose_b)):
                sites.append(WeightSite(node, 1, weight, rows_first=op.transpose_b, embedding=False))
        elif isinstance(op, Gather) and op.batch_dims == 0:
            table, indices, axis = _source(node, 0), _source(node, 1), node.in_port(2).data.value
            constant_indices = isinstance(indices.op if indices else None, Const)
            if _float_matrix(table) and not constant_indices and axis is not None and int(np.asarray(axis)) in (0, -2):
                sites.append(WeightSite(node, 0, table, rows_first=True, embedding=True))
    return sites


def _source(node: Node, port: int) -> Node | None:
    if port >= node.num_inputs():
        return None
    source = node.in_port(port).get_source()
    return source.node if source is not None else None


def last_projection(sites: list[WeightSite]) -> WeightSite | None:
    """The MatMul nearest the outputs (the language-model head of a decoder)."""
    projections = [site for site in sites if not site.embedding]
    return projections[-1] if projections else None


def data_input(site: WeightSite) -> OutPort:
    """The tensor a MatMul site multiplies by its weights."""
    source = site.consumer.in_port(1 - site.port).get_source()
    assert source is not None  # weight_sites() checked it
    return source
