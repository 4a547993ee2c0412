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
        """The matrix ``[rows, cols]``, as stored: a rescaling a fusion left uncomputed stays so."""
        op = self.weight.op
        assert isinstance(op, Const)
        return op.stored if self.rows_first else op.stored.T

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


def weight_sites(graph: Graph) -> list[WeightSite]:
    """Every MatMul whose second operand is a constant float matrix and whose first is not,
    and every Gather from a constant float table along axis 0 by computed indices (an
    embedding), in topological order."""
    from irconv_opset import Gather, MatMul

    sites = []
    for node in graph.topological_order():
        op = node.op
        if isinstance(op, MatMul):
            weight, data = _source(node, 1), _source(node, 0)
            if _float_matrix(weight) and not isinstance(data.op if data else None, Const) and not op.transpose_a:
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
