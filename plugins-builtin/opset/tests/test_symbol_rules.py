"""The opset's symbolic rules: dims of the inputs carried to the outputs as symbols."""

from __future__ import annotations

import numpy as np
from irconv.graph.symbolic import symbolic_shape
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv.types import ElementType
from irconv.types_symbols import floor_divide, value_of
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Divide,
    Equal,
    Gather,
    GatherElements,
    MatMul,
    Maximum,
    Minimum,
    Multiply,
    Range,
    ReLU,
    Reshape,
    Select,
    ShapeOf,
    Slice,
    Split,
    Squeeze,
    Transpose,
    Unsqueeze,
)
from irconv_opset.partial import symbolic_value


def test_elementwise_layout_agnostic_and_matmul_rules_carry_the_symbols():
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 8))
    w = b.const(np.zeros((8, 16), np.float32))
    y = b.op(MatMul(), b.op(ReLU(), x), w)
    z = b.op(Add(), y, b.const(np.zeros((16,), np.float32)))
    t = b.op(Transpose(), z, b.const(np.array([1, 0, 2], np.int64)))
    infer_graph(b.graph)
    batch, seq, _ = symbolic_shape(x)
    assert symbolic_shape(y) == (batch, seq, 16)
    assert symbolic_shape(z) == (batch, seq, 16)
    assert symbolic_shape(t) == (seq, batch, 16)


def test_concat_sums_and_reshape_with_minus_one_divides():
    b = GraphBuilder()
    tokens = b.parameter("x", (None, None, 8))
    x = b.op(MatMul(), tokens, b.const(np.zeros((8, 64), np.float32)))  # 64: a constant of the model
    past = b.parameter("past", (None, None, 64))
    both = b.op(Concat(axis=1), past, x)
    # view(b, s, -1, 16): the -1 is 64 / 16 even though b and s are dynamic
    shape = b.op(ShapeOf(), x)
    first_two = b.op(Gather(), shape, b.const(np.array([0, 1], np.int64)), b.const(np.int64(0)))
    target = b.op(Concat(axis=0), first_two, b.const(np.array([-1, 16], np.int64)))
    heads = b.op(Reshape(), x, target)
    infer_graph(b.graph)
    batch, seq, _ = symbolic_shape(tokens)
    past_batch, past_seq, _ = symbolic_shape(past)
    assert symbolic_shape(both) == (past_batch, past_seq + seq, 64)
    assert symbolic_shape(heads) == (batch, seq, 4, 16)


def test_a_model_input_s_static_dim_stays_a_symbol_through_reshape():
    b = GraphBuilder()
    x = b.parameter("x", (None, 64))  # 64 follows the input: a reshaped model may have another
    shape = b.op(ShapeOf(), x)
    first = b.op(Gather(), shape, b.const(np.array([0], np.int64)), b.const(np.int64(0)))
    target = b.op(Concat(axis=0), first, b.const(np.array([-1, 16], np.int64)))
    heads = b.op(Reshape(), x, target)
    infer_graph(b.graph)
    batch, width = symbolic_shape(x)
    dims = symbolic_shape(heads)
    assert dims[0] == batch and dims[2] == 16
    assert dims[1] != 4 and value_of(dims[1]) == 4  # 64 // 16 today, not a constant of the model


def _shape_piece(b: GraphBuilder, x, *axes: int):
    """``x.shape[axes]`` as exporters compute it: ShapeOf then Gather."""
    return b.op(Gather(), b.op(ShapeOf(), x), b.const(np.array(axes, np.int64)), b.const(np.int64(0)))


def test_shape_values_carry_symbols_through_gather_concat_convert_and_arithmetic():
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 8))
    pieces = b.op(Concat(axis=0), _shape_piece(b, x, 1), _shape_piece(b, x, 0), b.const(np.array([3], np.int64)))
    as_i32 = b.op(Convert(destination_type=ElementType.i32), pieces)
    doubled = b.op(Multiply(), pieces, b.const(np.array([2], np.int64)))
    halved = b.op(Divide(), doubled, b.const(np.array([2], np.int64)))
    plus = b.op(Add(), pieces, _shape_piece(b, x, 0))
    infer_graph(b.graph)
    batch, seq, _ = symbolic_shape(x)
    assert list(symbolic_value(pieces)) == [seq, batch, 3]
    assert list(symbolic_value(as_i32)) == [seq, batch, 3]
    assert list(symbolic_value(doubled)) == [2 * seq, 2 * batch, 6]
    assert list(symbolic_value(halved)) == [seq, batch, 3]
    assert list(symbolic_value(plus)) == [seq + batch, 2 * batch, batch + 3]


def test_a_static_dim_of_a_model_input_is_a_pinned_symbol_in_shape_values():
    b = GraphBuilder()
    x = b.parameter("x", (2, 8))
    infer_graph(b.graph)
    shape = b.op(ShapeOf(), x)
    infer_graph(b.graph)
    dims = list(symbolic_value(shape))
    assert [value_of(d) for d in dims] == [2, 8]
    assert not any(isinstance(d, int) for d in dims)  # a reshaped model may have others


def test_unsqueeze_squeeze_and_broadcast_to_a_computed_shape_keep_the_symbols():
    b = GraphBuilder()
    x = b.parameter("x", (None, None))
    up = b.op(Unsqueeze(), x, b.const(np.array([1], np.int64)))
    down = b.op(Squeeze(), up, b.const(np.array([1], np.int64)))
    target = b.op(Concat(axis=0), _shape_piece(b, x, 0), b.const(np.array([4], np.int64)), _shape_piece(b, x, 1))
    expanded = b.op(Broadcast(), up, target)
    infer_graph(b.graph)
    batch, seq = symbolic_shape(x)
    assert symbolic_shape(up) == (batch, 1, seq)
    assert symbolic_shape(down) == (batch, seq)
    assert symbolic_shape(expanded) == (batch, 4, seq)


def test_slice_to_the_end_keeps_a_dim_and_split_divides_it():
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 8))
    whole = b.op(
        Slice(), x, b.const(np.array([0], np.int64)), b.const(np.array([2**63 - 1], np.int64)),
        b.const(np.array([1], np.int64)), b.const(np.array([1], np.int64)),
    )
    part = b.op(
        Slice(), x, b.const(np.array([1], np.int64)), b.const(np.array([2**63 - 1], np.int64)),
        b.const(np.array([1], np.int64)), b.const(np.array([1], np.int64)),
    )
    halves = b.node(Split(num_splits=2), x, b.const(np.int64(1)))
    infer_graph(b.graph)
    seq = symbolic_shape(x)[1]
    assert symbolic_shape(whole) == symbolic_shape(x)
    assert symbolic_shape(part)[1] != seq  # a new dim, not the input's
    assert symbolic_shape(halves.out_port(1))[1] == floor_divide(seq, 2)


def test_range_over_a_dim_has_that_dim_as_its_length():
    b = GraphBuilder()
    x = b.parameter("x", (None, None))
    length = b.op(Squeeze(), _shape_piece(b, x, 1), b.const(np.array([0], np.int64)))
    positions = b.op(Range(), b.const(np.int64(0)), length, b.const(np.int64(1)))
    infer_graph(b.graph)
    assert symbolic_shape(positions) == (symbolic_shape(x)[1],)


def test_concat_proves_the_joined_tensors_other_dims_equal():
    b = GraphBuilder()
    past = b.parameter("past", (None, None, 4))
    new = b.parameter("new", (None, None, 4))
    both = b.op(Concat(axis=1), past, new)
    infer_graph(b.graph)
    # past's batch and new's batch are one symbol now, wherever they are read
    assert symbolic_shape(past)[0] == symbolic_shape(new)[0] == symbolic_shape(both)[0]
    assert symbolic_shape(past)[1] != symbolic_shape(new)[1]


def test_expand_s_minus_one_handling_resolves_to_the_shape_it_keeps():
    """``x.expand(shape)`` as TorchScript exports it: ``Select(Equal(shape, ConstantOfShape(
    rank) * -1), ConstantOfShape(rank), shape)``; a dim is never -1, so it is ``shape``."""
    b = GraphBuilder()
    x = b.parameter("x", (None, None))
    shape = b.op(ShapeOf(), x)
    rank = b.op(ShapeOf(), shape)
    ones = b.op(Broadcast(), b.const(np.int64(1)), rank)
    minus = b.op(Multiply(), ones, b.const(np.int64(-1)))
    target = b.op(Select(), b.op(Equal(), shape, minus), ones, shape)
    infer_graph(b.graph)
    assert list(symbolic_value(target)) == list(symbolic_shape(x))


def test_maximum_and_minimum_of_dims_are_decided_only_where_bounds_prove_them():
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 8))
    limited = b.parameter("limited", (None,), dim_names=("window",))
    limited.node.op.bounds = ((1, 100),)
    pieces = _shape_piece(b, x, 0, 1)
    plus_two = b.op(Add(), pieces, b.const(np.array([2, 2], np.int64)))
    less_four = b.op(Add(), pieces, b.const(np.array([-4, -4], np.int64)))
    at_least_one = b.op(Maximum(), pieces, b.const(np.int64(1)))
    plus_two_at_least_one = b.op(Maximum(), plus_two, b.const(np.int64(1)))
    clamped = b.op(Maximum(), less_four, b.const(np.int64(0)))  # a window start: may be negative before
    same = b.op(Maximum(), pieces, pieces)
    window = _shape_piece(b, limited, 0)
    capped = b.op(Minimum(), window, b.const(np.array([512], np.int64)))
    floor = b.op(Maximum(), window, b.const(np.array([1], np.int64)))
    infer_graph(b.graph)
    batch, seq, _ = symbolic_shape(x)
    assert list(symbolic_value(at_least_one)) == [None, None]  # a dim may be 0
    assert list(symbolic_value(plus_two_at_least_one)) == [batch + 2, seq + 2]
    assert list(symbolic_value(clamped)) == [None, None]  # s - 4 may be below 0
    assert list(symbolic_value(same)) == [batch, seq]
    (named,) = symbolic_shape(limited)
    assert list(symbolic_value(capped)) == [named] and list(symbolic_value(floor)) == [named]


def test_dims_of_inputs_with_one_name_are_one_symbol():
    b = GraphBuilder()
    ids = b.parameter("ids", (None, None), dim_names=("batch", "length"))
    mask = b.parameter("mask", (None, None), dim_names=("batch", "total"))
    other = b.parameter("other", (None, None))
    infer_graph(b.graph)
    (batch, length), (mask_batch, total), (other_batch, _) = (symbolic_shape(p) for p in (ids, mask, other))
    assert batch == mask_batch and length != total
    assert other_batch not in (batch, length, total)


def test_a_slice_to_a_dim_of_a_longer_table_is_the_minimum_and_broadcasts_to_the_dim():
    """BERT's ``position_ids[:, :seq]`` of a ``[1, 512]`` buffer, its embeddings added to the
    tokens': the sum keeps the tokens' sequence symbol, and GatherElements the indices' dims."""
    b = GraphBuilder()
    tokens = b.parameter("tokens", (None, None, 8))
    table = b.const(np.arange(512, dtype=np.int64)[None])
    positions = b.op(
        Slice(), table, b.const(np.array([0], np.int64)), _shape_piece(b, tokens, 1),
        b.const(np.array([1], np.int64)), b.const(np.array([1], np.int64)),
    )
    picked = b.op(GatherElements(), table, positions)
    embedded = b.op(Gather(), b.const(np.ones((512, 8), np.float32)), picked, b.const(np.int64(0)))
    total = b.op(Add(), tokens, embedded)
    infer_graph(b.graph)
    seq = symbolic_shape(tokens)[1]
    assert str(symbolic_shape(positions)[1]) == f"min({seq}, 512)"
    assert symbolic_shape(picked) == symbolic_shape(positions)
    assert symbolic_shape(total)[:2] == symbolic_shape(tokens)[:2]
