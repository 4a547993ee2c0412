"""Split and reductions given what the runtime refuses: one error naming the node and the
rule, never a raw ZeroDivisionError or an IR ``read_model`` rejects."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.errors import ConversionError
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import ReduceMean, ReduceSum, Split


def infer(op, shape, constant):
    b = GraphBuilder()
    node = b.node(op, b.parameter("x", shape), b.const(constant), name="n")
    infer_graph(b.graph)
    return node


@pytest.mark.parametrize(
    ("count", "words"),
    [
        (0, r"node 'n' \(Split-1\) .*num_splits is 0: it must be at least 1"),
        (-2, r"num_splits is -2: it must be at least 1"),
        (3, r"node 'n' \(Split-1\) .*num_splits 3 does not divide axis 1, of 4 elements"),
    ],
)
def test_split_into_parts_the_runtime_refuses_is_named(count, words):
    with pytest.raises(ConversionError, match=words):
        infer(Split(num_splits=count), (2, 4), np.int64(1))


def test_split_of_a_dynamic_or_divisible_axis_passes():
    assert infer(Split(num_splits=2), (2, 4), np.int64(-1)).out_port(1).data.shape == (2, 2)
    assert infer(Split(num_splits=3), (2, None), np.int64(1)).out_port(2).data.shape == (2, None)


def test_reduction_axes_of_rank_2_are_refused():
    with pytest.raises(ConversionError, match=r"node 'n' \(ReduceSum-1\): input 1 \(axes\) must have rank 0 or 1"):
        infer(ReduceSum(), (2, 4), np.array([[0, 1]], np.int64))


def test_a_reduction_axis_out_of_range_names_the_node():
    with pytest.raises(ConversionError) as caught:
        infer(ReduceMean(keep_dims=True), (2, 4), np.array([1, 9], np.int64))
    assert str(caught.value) == (
        "shape inference failed at node 'n' (ReduceMean-1) with inputs ([2,4]:f32, [2]:i64): "
        "axis 9 is out of range for rank 2"
    )
