"""fold.symbolic_shapes: shape values proven by symbols computed once, folded when static,
no-op broadcasts and reshapes removed; each rewrite compared in OpenVINO with the graph as
it was (f32 pinned by ``run_ir``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
from irconv import Graph
from irconv.testing import GraphBuilder, run_transform
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Gather,
    MatMul,
    Maximum,
    Pad,
    ReduceProd,
    ReLU,
    Reshape,
    ShapeOf,
    Slice,
    Subtract,
    Transpose,
)
from irconv_transforms.fold_symbolic_shapes import FoldSymbolicShapes

RNG = np.random.default_rng(0)


def _types(graph: Graph) -> Counter[str]:
    return Counter(node.type for node in graph.nodes())


def _i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def _batch_seq_heads(b: GraphBuilder, tensor, head: int, viewed=None):
    """``viewed.view(tensor.size(0), tensor.size(1), -1, head)`` (``viewed``: ``tensor`` unless given)."""
    dims = b.op(Gather(), b.op(ShapeOf(), tensor), b.const(_i64(0, 1)), b.const(np.int64(0)))
    return b.op(Reshape(), tensor if viewed is None else viewed, b.op(Concat(axis=0), dims, b.const(_i64(-1, head))))


def attention_views(sequence_first: bool = False) -> Graph:
    """q and k of x [b, s, 8] viewed per head, each view computing b and s from its own tensor
    (``sequence_first``: the views reshape an [s, b, 8] copy, so no dim keeps its place)."""
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 8))
    heads = []
    for order in ((0, 2, 1, 3), (0, 2, 3, 1)):
        projected = b.op(MatMul(), x, b.const(RNG.standard_normal((8, 8)).astype(np.float32)))
        viewed = b.op(Transpose(), projected, b.const(_i64(1, 0, 2))) if sequence_first else projected
        heads.append(b.op(Transpose(), _batch_seq_heads(b, projected, 4, viewed), b.const(_i64(*order))))
    b.result(b.op(MatMul(), *heads), "scores")
    return b.graph


def _same_in_openvino(before: Path, graph: Graph, tmp_path: Path, inputs: dict[str, np.ndarray]) -> None:
    expected = run_ir(before, inputs)
    got = run_ir(emit_ir(graph, tmp_path / "after.xml"), inputs)
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6)


def test_dims_computed_from_different_tensors_with_the_same_symbols_are_computed_once(tmp_path: Path) -> None:
    graph = attention_views(sequence_first=True)
    before = emit_ir(graph, tmp_path / "before.xml")
    assert _types(graph)["ShapeOf"] == 2
    assert run_transform(graph, FoldSymbolicShapes()) is True
    types = _types(graph)
    assert types["ShapeOf"] == 1 and types["Gather"] == 1 and types["Concat"] == 1
    for shape in (2, 3), (1, 1):
        _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((*shape, 8)).astype(np.float32)})


def test_a_shape_value_that_is_static_for_every_input_folds_to_a_constant(tmp_path: Path) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (None, 6))
    wide = b.op(MatMul(), x, b.const(RNG.standard_normal((6, 8)).astype(np.float32)))  # 8: a model constant
    width = b.op(Gather(), b.op(ShapeOf(), wide), b.const(_i64(1)), b.const(np.int64(0)))
    b.result(b.op(Reshape(), wide, b.op(Concat(axis=0), b.const(_i64(-1)), width)), "y")
    graph = b.graph
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    assert _types(graph)["ShapeOf"] == 0
    _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((3, 6)).astype(np.float32)})


def test_a_model_input_s_static_dims_stay_computed() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (2, 6))  # a static input: reshaping the model may change it
    width = b.op(Gather(), b.op(ShapeOf(), x), b.const(_i64(1)), b.const(np.int64(0)))
    b.result(b.op(Reshape(), x, b.op(Concat(axis=0), b.const(_i64(-1)), width)), "y")
    graph = b.graph
    assert run_transform(graph, FoldSymbolicShapes()) is False
    assert _types(graph)["ShapeOf"] == 1


def test_dims_of_different_inputs_stay_apart() -> None:
    b = GraphBuilder()
    x, z = b.parameter("x", (None, None, 4)), b.parameter("z", (None, None, 4))
    for name, tensor, other in (("x2", x, z), ("z2", z, x)):  # each reshaped by the other's dims
        dims = b.op(Gather(), b.op(ShapeOf(), other), b.const(_i64(0, 1)), b.const(np.int64(0)))
        b.result(b.op(Reshape(), tensor, b.op(Concat(axis=0), dims, b.const(_i64(2, 2)))), name)
    graph = b.graph
    assert run_transform(graph, FoldSymbolicShapes()) is False
    assert _types(graph)["ShapeOf"] == 2


def test_a_broadcast_or_reshape_to_the_shape_the_tensor_has_is_removed(tmp_path: Path) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 4))
    y = b.op(MatMul(), x, b.const(RNG.standard_normal((4, 4)).astype(np.float32)))
    other = b.op(MatMul(), x, b.const(RNG.standard_normal((4, 4)).astype(np.float32)))
    same = b.op(Broadcast(), y, b.op(ShapeOf(), other))  # both are [b, s, 4]
    b.result(other, "other")
    b.result(b.op(ReLU(), b.op(Reshape(), same, b.op(ShapeOf(), y))), "y")
    graph = b.graph
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    types = _types(graph)
    assert types["Broadcast"] == 0 and types["Reshape"] == 0
    _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((2, 3, 4)).astype(np.float32)})


def test_a_broadcast_that_grows_the_tensor_stays() -> None:
    b = GraphBuilder()
    x, z = b.parameter("x", (None, 1, 4)), b.parameter("z", (None, None, 4))
    b.result(b.op(Broadcast(), x, b.op(ShapeOf(), z)), "y")
    graph = b.graph
    run_transform(graph, FoldSymbolicShapes())
    assert _types(graph)["Broadcast"] == 1


def _targets(graph: Graph, kind: str) -> list[tuple[list[int] | None, object]]:
    """Each ``kind`` node's target (None when computed) and its ``special_zero``/``mode``."""
    found = []
    for node in graph.nodes():
        if node.type == kind:
            value = node.in_port(1).data.value
            found.append((None if value is None else value.tolist(), node.op.special_zero if kind == "Reshape" else node.op.mode))
    return found


def test_a_view_to_the_tensor_s_own_dims_gets_a_constant_target(tmp_path: Path) -> None:
    graph = attention_views()
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    assert _types(graph)["ShapeOf"] == 0
    assert _targets(graph, "Reshape") == [([0, 0, -1, 4], True)] * 2
    for shape in (2, 3), (1, 1), (3, 1):
        _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((*shape, 8)).astype(np.float32)})


def _expand_with_own_dims(b: GraphBuilder, tensor, size_from) -> object:
    """torch's ``expand(b, 2, 2, s, 4)`` of [b, 2, 1, s, 4] as its extractor writes it: a
    bidirectional broadcast to ``Maximum(sizes, 1)``, b and s read from ``size_from``."""
    shape = b.op(ShapeOf(), size_from)
    first = b.op(Gather(), shape, b.const(_i64(0)), b.const(np.int64(0)))
    length = b.op(Gather(), shape, b.const(_i64(3)), b.const(np.int64(0)))
    sizes = b.op(Concat(axis=0), first, b.const(_i64(2, 2)), length, b.const(_i64(4)))
    return b.op(Broadcast(mode="bidirectional"), tensor, b.op(Maximum(), sizes, b.const(np.int64(1))))


def test_an_expand_to_the_tensor_s_own_dims_gets_a_constant_target(tmp_path: Path) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (None, 2, 1, None, 4))
    b.result(b.op(ReLU(), _expand_with_own_dims(b, x, x)), "y")
    graph = b.graph
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    types = _types(graph)
    assert types["ShapeOf"] == 0 and types["Maximum"] == 0
    assert _targets(graph, "Broadcast") == [([1, 1, 2, 1, 1], "bidirectional")]
    for batch, length in (2, 3), (1, 1), (2, 0):  # a 0-long dim: max(0, 1) is 1, broadcast with 0 still 0
        _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((batch, 2, 1, length, 4)).astype(np.float32)})


def test_an_expand_to_another_tensor_s_dims_keeps_its_computed_target() -> None:
    b = GraphBuilder()
    x, z = b.parameter("x", (None, 2, 1, None, 4)), b.parameter("z", (None, 2, 1, None, 4))
    b.result(_expand_with_own_dims(b, x, z), "y")
    graph = b.graph
    run_transform(graph, FoldSymbolicShapes())
    assert _targets(graph, "Broadcast") == [(None, "bidirectional")]


def test_a_target_shared_by_two_reshapes_is_replaced_for_the_one_it_fits(tmp_path: Path) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 8))
    dims = b.op(Gather(), b.op(ShapeOf(), x), b.const(_i64(0, 1)), b.const(np.int64(0)))
    target = b.op(Concat(axis=0), dims, b.const(_i64(-1, 4)))
    b.result(b.op(Reshape(), x, target), "own")  # [b, s, 8] -> [b, s, 2, 4]
    b.result(b.op(Reshape(), b.op(Transpose(), x, b.const(_i64(1, 0, 2))), target), "moved")  # [s, b, 8]
    graph = b.graph
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    assert sorted(_targets(graph, "Reshape"), key=str) == sorted([([0, 0, -1, 4], True), (None, False)], key=str)
    _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((2, 3, 8)).astype(np.float32)})


def test_dims_of_different_inputs_with_one_name_are_one() -> None:
    b = GraphBuilder()
    x = b.parameter("x", (None, 4), dim_names=("batch", None))
    z = b.parameter("z", (None, 4), dim_names=("batch", None))
    batch = b.op(Gather(), b.op(ShapeOf(), x), b.const(_i64(0)), b.const(np.int64(0)))
    b.result(b.op(Reshape(), z, b.op(Concat(axis=0), batch, b.const(_i64(2, 2)))), "z2")
    graph = b.graph
    assert run_transform(graph, FoldSymbolicShapes()) is True
    assert _types(graph)["ShapeOf"] == 0
    assert _targets(graph, "Reshape") == [([0, 2, 2], True)]


def test_a_merge_of_moved_dims_gets_minus_one_for_the_one_dim_it_cannot_copy(tmp_path: Path) -> None:
    """``repeat_kv``'s ``reshape(b, 4, s, 16)`` of ``[b, 2, 2, s, 16]``: b keeps its place, s
    does not; the element count gives it (zero-sized batches and lengths included)."""
    b = GraphBuilder()
    x = b.parameter("x", (None, 2, 2, None, 4))
    shape = b.op(ShapeOf(), x)
    first = b.op(Gather(), shape, b.const(_i64(0)), b.const(np.int64(0)))
    length = b.op(Gather(), shape, b.const(_i64(3)), b.const(np.int64(0)))
    target = b.op(Concat(axis=0), first, b.const(_i64(4)), length, b.const(_i64(4)))
    b.result(b.op(Reshape(), x, target), "y")
    graph = b.graph
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    assert _targets(graph, "Reshape") == [([0, 4, -1, 4], True)]
    for batch, steps in (2, 3), (1, 1), (0, 3), (2, 0), (0, 0):
        _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((batch, 2, 2, steps, 4)).astype(np.float32)})


def test_a_pad_by_computed_zeros_is_removed(tmp_path: Path) -> None:
    """ONNX GatherElements' lowering pads the indices by ``data - indices`` extents: for
    indices as large as the data, by nothing."""
    b = GraphBuilder()
    x = b.parameter("x", (None, None, 4))
    y = b.op(MatMul(), x, b.const(RNG.standard_normal((4, 4)).astype(np.float32)))
    other = b.op(MatMul(), x, b.const(RNG.standard_normal((4, 4)).astype(np.float32)))
    zeros, ones = b.const(_i64(0, 0, 0)), b.const(_i64(1, 1, 1))
    missing = b.op(Subtract(), b.op(ShapeOf(), other), b.op(ShapeOf(), y))
    padded = b.op(Pad(), y, zeros, missing)
    b.result(b.op(ReLU(), b.op(Slice(), padded, zeros, b.op(ShapeOf(), y), ones)), "y")
    graph = b.graph
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    types = _types(graph)
    assert types["Pad"] == 0 and types["Slice"] == 1  # a whole Slice stays (see the module)
    _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((2, 3, 4)).astype(np.float32)})


def test_a_flatten_to_rows_of_one_gets_a_constant_target(tmp_path: Path) -> None:
    """``Flatten(axis=2)`` of a ``[b, s]`` mask: ``[b * s, -1]`` is ``[-1, 1]``, with the -1
    given to the dim the symbols cannot copy and the static dim spelled out."""
    b = GraphBuilder()
    x = b.parameter("x", (None, None))
    rows = b.op(ReduceProd(keep_dims=True), b.op(ShapeOf(), x), b.const(_i64(0)))
    b.result(b.op(Reshape(), x, b.op(Concat(axis=0), rows, b.const(_i64(-1)))), "y")
    graph = b.graph
    before = emit_ir(graph, tmp_path / "before.xml")
    assert run_transform(graph, FoldSymbolicShapes()) is True
    assert _targets(graph, "Reshape") == [([-1, 1], True)]
    _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal((2, 3)).astype(np.float32)})


def _expanded_into(reader: str, table_shape: tuple[int, ...]) -> Graph:
    """``table.expand(x.size(0), ...)`` read by a MatMul with x (``table @ x``) or an Add
    (``table + x``): the reader broadcasts over x's batch either way."""
    b = GraphBuilder()
    x = b.parameter("x", (None, 1, 5) if reader == "MatMul" else (None, 8, 1))
    table = b.const(RNG.standard_normal(table_shape).astype(np.float32))
    batch = b.op(Gather(), b.op(ShapeOf(), x), b.const(_i64(0)), b.const(np.int64(0)))
    target = b.op(Concat(axis=0), batch, b.const(_i64(*table_shape[-2:])))
    expanded = b.op(Broadcast(mode="bidirectional"), table, target)
    b.result(b.op(MatMul() if reader == "MatMul" else Add(), expanded, x), "y")
    return b.graph


def test_a_broadcast_its_reader_does_itself_is_removed(tmp_path: Path) -> None:
    for reader, table_shape in (("MatMul", (1, 8, 1)), ("Add", (1, 8, 1)), ("MatMul", (8, 1))):
        graph = _expanded_into(reader, table_shape)
        before = emit_ir(graph, tmp_path / "before.xml")
        assert run_transform(graph, FoldSymbolicShapes()) is True
        assert _types(graph)["Broadcast"] == 0, (reader, table_shape)
        shape = (3, 1, 5) if reader == "MatMul" else (3, 8, 1)
        _same_in_openvino(before, graph, tmp_path, {"x": RNG.standard_normal(shape).astype(np.float32)})


def test_a_broadcast_that_gives_its_reader_a_bigger_shape_stays() -> None:
    """[8] expanded to [b, 8] and added to a [8]: without the broadcast the sum is [8]; and a
    MatMul whose matrix dims the broadcast grows."""
    b = GraphBuilder()
    x = b.parameter("x", (None, 8))
    row = b.const(RNG.standard_normal(8).astype(np.float32))
    grown = b.op(Broadcast(mode="bidirectional"), row, b.op(ShapeOf(), x))
    b.result(b.op(Add(), grown, row), "sum")
    column = b.const(RNG.standard_normal((1, 1)).astype(np.float32))
    tall = b.op(Broadcast(mode="bidirectional"), column, b.op(ShapeOf(), x))  # [b, 8]
    b.result(b.op(MatMul(transpose_a=True), tall, x), "product")
    graph = b.graph
    run_transform(graph, FoldSymbolicShapes())
    assert _types(graph)["Broadcast"] == 2
