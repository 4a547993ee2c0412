"""Shapes computed by a shape sub-graph are known as far as the runtime knows them."""

from __future__ import annotations

import numpy as np
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import Broadcast, Concat, Gather, Reshape, ShapeOf, Tile, Unsqueeze
from irconv_opset.partial import DimOf, partial_elements


def i64(*values):
    return np.array(values, np.int64)


def batch_and(b: GraphBuilder, x, *rest: int):
    """``[x.shape[0], *rest]`` computed the way exporters write it (ShapeOf, Gather, Unsqueeze, Concat)."""
    batch = b.op(Gather(), b.op(ShapeOf(), x), b.const(i64(0)[0]), b.const(i64(0)[0]))
    return b.op(Concat(axis=0), b.op(Unsqueeze(), batch, b.const(i64(0))), b.const(i64(*rest)))


def test_partial_value_names_the_dynamic_dim_it_repeats():
    b = GraphBuilder()
    x = b.parameter("x", (None, 2, 4))
    pattern = batch_and(b, x, -1)
    infer_graph(b.graph)
    assert partial_elements(pattern) == [DimOf(x.node.id, 0, 0), -1]


def test_reshape_keeping_the_batch_knows_the_flattened_dim():
    b = GraphBuilder()
    x = b.parameter("x", (None, 2, 4, 2, 2))
    node = b.node(Reshape(), x, batch_and(b, x, -1))
    infer_graph(b.graph)
    assert node.out_port(0).data.get_shape() == (None, 32)


def test_reshape_by_another_tensor_s_batch_does_not_cancel():
    b = GraphBuilder()
    x, y = b.parameter("x", (None, 2, 4)), b.parameter("y", (None, 5))
    node = b.node(Reshape(), x, batch_and(b, y, -1))
    infer_graph(b.graph)
    assert node.out_port(0).data.get_shape() == (None, None)


def test_tile_and_broadcast_by_computed_shapes_keep_the_known_dims():
    b = GraphBuilder()
    x = b.parameter("x", (None, 3))
    tiled = b.node(Tile(), x, batch_and(b, x, 3))
    filled = b.node(Broadcast(), b.const(np.float32(0)), batch_and(b, x, 3))
    infer_graph(b.graph)
    assert tiled.out_port(0).data.get_shape() == (None, 9)
    assert filled.out_port(0).data.get_shape() == (None, 3)
