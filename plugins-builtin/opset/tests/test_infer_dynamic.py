"""Inference facts the runtime cases cannot show: partially dynamic inputs, values from ShapeOf."""

from __future__ import annotations

import numpy as np
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv.types import ElementType
from irconv_opset import Concat, Gather, ReduceSum, Reshape, ShapeOf, Slice, Split, Squeeze, StridedSlice, TopK


class Ints(tuple):
    """The shape of an i64 Parameter (runtime shapes, axes and bounds are integers)."""


def infer(op, *inputs):
    """Build ``op`` over inputs (tuple shape -> f32 Parameter, Ints -> i64 Parameter, ndarray -> Const)."""
    b = GraphBuilder()
    ports = []
    for i, value in enumerate(inputs):
        if isinstance(value, np.ndarray):
            ports.append(b.const(value))
        elif isinstance(value, Ints):
            ports.append(b.parameter(f"p{i}", value, ElementType.i64))
        else:
            ports.append(b.parameter(f"p{i}", value))
    node = b.node(op, *ports)
    infer_graph(b.graph)
    return node


def i64(*values):
    return np.array(values, np.int64)


def test_reshape_keeps_unknown_minus_one_dynamic():
    node = infer(Reshape(), (None, 3, 4), i64(-1, 12))
    assert node.out_port(0).data.get_shape() == (None, 12)


def test_reshape_special_zero_copies_a_dynamic_dim():
    node = infer(Reshape(special_zero=True), (None, 3, 4), i64(0, -1))
    assert node.out_port(0).data.get_shape() == (None, 12)


def test_reshape_with_unknown_target_has_the_target_rank():
    b = GraphBuilder()
    node = b.node(Reshape(), b.parameter("x", (2, 3, 4)), b.parameter("target", (3,), ElementType.i64))
    infer_graph(b.graph)
    assert node.out_port(0).data.get_shape() == (None, None, None)


def test_shape_of_static_input_is_a_shape_derived_value():
    node = infer(ShapeOf(), (2, 3, 4))
    data = node.out_port(0).data
    assert data.get_value().tolist() == [2, 3, 4]
    assert data.shape_derived
    assert data.get_type() is ElementType.i64


def test_shape_of_dynamic_input_has_no_value():
    data = infer(ShapeOf(output_type=ElementType.i32), (None, 3)).out_port(0).data
    assert data.get_value() is None
    assert data.get_shape() == (2,)
    assert data.get_type() is ElementType.i32


def test_reshape_through_shape_of_stays_shape_derived():
    b = GraphBuilder()
    x = b.parameter("x", (2, 3, 4))
    shape = b.op(ShapeOf(), x)
    first = b.op(Gather(), shape, b.const(i64(0)), b.const(np.array(0, np.int64)))
    target = b.op(Concat(axis=0), first, b.const(i64(-1)))
    out = b.node(Reshape(), x, target)
    infer_graph(b.graph)
    assert out.out_port(0).data.get_shape() == (2, 12)
    assert target.data.shape_derived


def test_concat_sums_static_dims_and_merges_dynamic_ones():
    node = infer(Concat(axis=1), (None, 2), (3, 5))
    assert node.out_port(0).data.get_shape() == (3, 7)
    node = infer(Concat(axis=1), (2, None), (2, 5))
    assert node.out_port(0).data.get_shape() == (2, None)


def test_split_of_a_dynamic_dim():
    node = infer(Split(num_splits=2), (None, 6), np.array(0, np.int64))
    assert [p.data.get_shape() for p in node.out_ports()] == [(None, 6), (None, 6)]


def test_reduce_with_unknown_axes_keeps_rank_when_keep_dims():
    assert infer(ReduceSum(keep_dims=True), (2, 3), Ints((1,))).out_port(0).data.get_shape() == (None, None)
    assert infer(ReduceSum(), (2, 3, 4), Ints((1,))).out_port(0).data.get_shape() is None


def test_squeeze_of_dynamic_dim_without_axes_is_unknown_rank():
    assert infer(Squeeze(), (1, None, 3)).out_port(0).data.get_shape() is None


def test_slice_full_range_of_dynamic_dim_stays_dynamic():
    big = np.iinfo(np.int64).max
    node = infer(Slice(), (None, 8), i64(0, 2), i64(big, 6), i64(1, 1))
    assert node.out_port(0).data.get_shape() == (None, 4)


def test_strided_slice_shrink_and_new_axis_on_dynamic_dims():
    op = StridedSlice(begin_mask=[0, 1], end_mask=[0, 1], new_axis_mask=[0, 0], shrink_axis_mask=[1, 0])
    node = infer(op, (None, None, 5), i64(0, 0), i64(1, 0), i64(1, 1))
    assert node.out_port(0).data.get_shape() == (None, 5)


def test_topk_with_unknown_k_has_dynamic_axis():
    node = infer(TopK(axis=1), (2, 10), ())
    assert node.out_port(0).data.get_shape() == (2, None)
    assert node.out_port(1).data.get_type() is ElementType.i32


def test_strided_slice_with_runtime_bounds_keeps_rank_and_masked_dims():
    op = StridedSlice(begin_mask=[1, 0, 1], end_mask=[1, 0, 1], new_axis_mask=[0, 0, 0, 1], shrink_axis_mask=[])
    node = infer(op, (2, 10, 5), Ints((4,)), Ints((4,)), i64(1, 2, 1, 1))
    assert node.out_port(0).data.get_shape() == (2, None, 5, 1)


def test_strided_slice_with_runtime_shrink_index_drops_the_dim():
    op = StridedSlice(begin_mask=[0, 1], end_mask=[0, 1], shrink_axis_mask=[1, 0])
    node = infer(op, (None, 3, 7), Ints((2,)), Ints((2,)), i64(1, 1))
    assert node.out_port(0).data.get_shape() == (3, 7)


def test_slice_with_runtime_bounds_changes_only_the_listed_axes():
    node = infer(Slice(), (4, 6, 8), Ints((1,)), Ints((1,)), Ints((1,)), i64(1))
    assert node.out_port(0).data.get_shape() == (4, None, 8)


def test_binary_elementwise_refuses_two_element_types():
    """The runtime refuses Add(f32, i32) when it reads the IR; inference names it first."""
    import pytest
    from irconv.errors import IrconvError
    from irconv_opset import Add

    with pytest.raises(IrconvError, match="Add needs both inputs of one element type, got f32 and i32"):
        infer(Add(), (2, 3), np.ones((2, 3), np.int32))
    assert infer(Add(), (2, 3), np.ones((2, 3), np.float32)).out_port(0).data.element_type is ElementType.f32
