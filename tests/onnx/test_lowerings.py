"""Ops irconv lowers onto several OpenVINO ops (no one-to-one match, or a runtime limit to
work around): the irconv IR on OpenVINO against onnxruntime, one model per lowering."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(13)
F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], inits: list[Any] = (), opset: int = 18,
           domains: dict[str, int] | None = None) -> Any:
    graph = helper.make_graph(nodes, "lowering", inputs, outputs, list(inits))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in (domains or {}).items()]
    return helper.make_model(graph, opset_imports=imports)


def _in(name: str, shape: Any, elem: int = F32) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _c(name: str, value: Any) -> Any:
    return numpy_helper.from_array(np.asarray(value), name)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------------ GatherElements
def _indices(shape: tuple[int, ...], axis_size: int) -> np.ndarray:
    return RNG.integers(-axis_size, axis_size, shape).astype(np.int64)


def test_gather_elements_indices_smaller_than_data(convert_and_compare) -> None:
    """ONNX reads only the leading part of the data on the non-axis dimensions."""
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=2)
    model = _model([node], [_in("x", [2, 3, 4]), _in("i", ["n", 2, 3], I64)], [_in("y", None)])
    convert_and_compare(model, {"x": _f32(2, 3, 4), "i": _indices((1, 2, 3), 4)})


def test_gather_elements_with_the_same_dynamic_extent(convert_and_compare) -> None:
    """One symbolic dim on both sides counts as equal: the plain op, no padding."""
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1)
    model = _model([node], [_in("x", ["n", 5]), _in("i", ["n", 4], I64)], [_in("y", None)])
    convert_and_compare(model, {"x": _f32(3, 5), "i": _indices((3, 4), 5)})


# ------------------------------------------------------------------ ai.onnx.ml
def _ml(node: Any, inputs: list[Any], ml_opset: int = 1) -> Any:
    return _model([node], inputs, [_in("y", None)], domains={"ai.onnx.ml": ml_opset})


def test_binarizer(convert_and_compare) -> None:
    node = helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=0.25)
    convert_and_compare(_ml(node, [_in("x", [3, 4])]), {"x": _f32(3, 4)})


@pytest.mark.parametrize("shape", [(3, 5), (5,), (2, 3, 5)])
def test_array_feature_extractor(convert_and_compare, shape: tuple[int, ...]) -> None:
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain="ai.onnx.ml")
    model = _ml(node, [_in("x", list(shape)), _in("i", [1, 3], I64)])
    convert_and_compare(model, {"x": _f32(*shape), "i": np.array([[4, 0, 2]], np.int64)})


def _random_forest(trees: int, depth: int, features: int, targets: int) -> dict[str, Any]:
    """TreeEnsemble attributes of ``trees`` random full trees of ``depth`` levels, every
    branch mode used, a set-membership node and NaN routing included."""
    modes, splits, feats, tracks, true_ids, false_ids, true_leaf, false_leaf = ([] for _ in range(8))
    leaf_targets, leaf_weights, members, roots = [], [], [], []

    def grow(level: int) -> tuple[int, bool]:
        if level == depth:
            leaf_targets.append(int(RNG.integers(targets)))
            leaf_weights.append(float(RNG.standard_normal()))
            return len(leaf_weights) - 1, True
        index = len(modes)
        mode = int(RNG.integers(7))
        modes.append(mode)
        splits.append(float(RNG.standard_normal()) if mode != 4 else 1.0)
        feats.append(int(RNG.integers(features)))
        tracks.append(int(RNG.integers(2)))
        if mode == 6:
            members.extend([1.0, -1.0, float("nan")])  # onnxruntime: integer members only
        for ids, leaf in ((true_ids, true_leaf), (false_ids, false_leaf)):
            ids.append(0)
            leaf.append(0)
        for ids, leaf in ((true_ids, true_leaf), (false_ids, false_leaf)):
            child, is_leaf = grow(level + 1)
            ids[index], leaf[index] = child, int(is_leaf)
        return index, False

    for _ in range(trees):
        roots.append(grow(0)[0])
    attributes = dict(
        nodes_modes=numpy_helper.from_array(np.array(modes, np.uint8), "nodes_modes"),
        nodes_splits=numpy_helper.from_array(np.array(splits, np.float32), "nodes_splits"),
        nodes_featureids=feats, nodes_missing_value_tracks_true=tracks,
        nodes_truenodeids=true_ids, nodes_falsenodeids=false_ids, nodes_trueleafs=true_leaf,
        nodes_falseleafs=false_leaf, leaf_targetids=leaf_targets, tree_roots=roots, n_targets=targets,
        leaf_weights=numpy_helper.from_array(np.array(leaf_weights, np.float32), "leaf_weights"),
    )
    if members:
        attributes["membership_values"] = numpy_helper.from_array(np.array(members, np.float32), "membership_values")
    return attributes


def _features(rows: int, features: int) -> np.ndarray:
    """Whole numbers (onnxruntime truncates a feature to an integer before a set-membership
    test, the spec does not) that hit the equality and membership cases, and some NaN."""
    x = RNG.integers(-2, 3, (rows, features)).astype(np.float32)
    return np.where(RNG.random((rows, features)) < 0.1, np.float32(np.nan), x)


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
def test_tree_ensemble(convert_and_compare, aggregate: int) -> None:
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", aggregate_function=aggregate,
                            **_random_forest(trees=4, depth=3, features=5, targets=3))
    convert_and_compare(_ml(node, [_in("x", ["n", 5])], ml_opset=5), {"x": _features(64, 5)})


@pytest.mark.parametrize(("post", "transform"), [
    (1, lambda s: np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)),
    (2, lambda s: 1 / (1 + np.exp(-s))),
])
def test_tree_ensemble_post_transform(tmp_path, installed_host, post: int, transform: Any) -> None:
    """SOFTMAX (1) and LOGISTIC (2) as the spec numbers them, applied to onnxruntime's raw
    scores (onnxruntime reads 1 as LOGISTIC and 2 as SOFTMAX, its older enum)."""
    import onnx
    import onnxruntime as ort
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    forest = _random_forest(trees=3, depth=3, features=4, targets=3)
    x = _features(32, 4)
    models = {}
    for kind in (0, post):
        node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", post_transform=kind, **forest)
        models[kind] = _ml(node, [_in("x", ["n", 4])], ml_opset=5)
        models[kind].ir_version = 10
    raw = ort.InferenceSession(models[0].SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    onnx.save(models[post], str(tmp_path / "model.onnx"))
    save_model(convert_model(tmp_path / "model.onnx", host=installed_host), tmp_path / "model.xml",
               host=installed_host, compress_to_fp16=False)
    np.testing.assert_allclose(run_ir(tmp_path / "model.xml", {"x": x})["y"], transform(raw), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ sequences of tensors
def _seq_model(nodes: list[Any], inputs: list[Any], inits: list[Any] = (), out_type: int = F32) -> Any:
    return _model(nodes, inputs, [_in("y", None, out_type)], inits, opset=18)


def test_sequence_insert_erase_at_with_elements_of_different_shapes(convert_and_compare) -> None:
    nodes = [
        helper.make_node("SequenceEmpty", [], ["s0"]),
        helper.make_node("SequenceInsert", ["s0", "a"], ["s1"]),
        helper.make_node("SequenceInsert", ["s1", "b", "front"], ["s2"]),
        helper.make_node("SequenceConstruct", ["a", "b", "c"], ["t"]),
        helper.make_node("SequenceErase", ["t", "minus_one"], ["t1"]),
        helper.make_node("SequenceAt", ["t1", "minus_one"], ["from_t"]),
        helper.make_node("SequenceAt", ["s2", "zero"], ["from_s"]),
        helper.make_node("Concat", ["from_s", "from_t"], ["y"], axis=0),
    ]
    inits = [_c("front", np.int64(0)), _c("minus_one", np.int64(-1)), _c("zero", np.int64(0))]
    model = _seq_model(nodes, [_in("a", [2, 3]), _in("b", [1, 3]), _in("c", [4, 3])], inits)
    convert_and_compare(model, {"a": _f32(2, 3), "b": _f32(1, 3), "c": _f32(4, 3)})


def test_sequence_at_a_run_time_position(convert_and_compare) -> None:
    nodes = [helper.make_node("SequenceConstruct", ["a", "b", "c"], ["s"]),
             helper.make_node("SequenceAt", ["s", "i"], ["y"])]
    model = _seq_model(nodes, [_in("a", [2, 3]), _in("b", [2, 3]), _in("c", [2, 3]), _in("i", [], I64)])
    convert_and_compare(model, {"a": _f32(2, 3), "b": _f32(2, 3), "c": _f32(2, 3), "i": np.array(-2, np.int64)})


@pytest.mark.parametrize(("split", "attributes"), [
    (None, {"axis": 1, "keepdims": 0}),
    (None, {"axis": -1}),
    (np.int64(2), {"axis": 1}),
    (np.array([1, 3, 1], np.int64), {"axis": 1}),
])
def test_split_to_sequence_then_concat(convert_and_compare, split: Any, attributes: dict[str, int]) -> None:
    inputs = ["x"] if split is None else ["x", "split"]
    nodes = [helper.make_node("SplitToSequence", inputs, ["s"], **attributes),
             helper.make_node("SequenceLength", ["s"], ["n"]),
             # equal parts stack on a new last axis, unequal ones join again on the split axis
             helper.make_node("ConcatFromSequence", ["s"], ["c"], **(
                 {"axis": -1, "new_axis": 1} if split is None else {"axis": 1})),
             helper.make_node("Shape", ["c"], ["shape"]),
             helper.make_node("Unsqueeze", ["n", "zero"], ["n_1d"]),
             helper.make_node("Concat", ["n_1d", "shape"], ["y"], axis=0)]
    inits = [_c("zero", np.array([0], np.int64))] + ([] if split is None else [_c("split", split)])
    model = _model(nodes, [_in("x", [2, 5, 5])], [_in("y", None, I64), _in("c", None)], inits, opset=18)
    convert_and_compare(model, {"x": _f32(2, 5, 5)})


# ------------------------------------------------------------------ ReduceMax / ReduceMin
@pytest.mark.parametrize(("op", "infinity"), [("ReduceMax", -np.inf), ("ReduceMin", np.inf)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reduce_extreme_of_only_infinities(convert_and_compare, op: str, infinity: float, dtype: Any) -> None:
    """The CPU plugin starts from the finite extreme, so a row of only -inf (ReduceMax) would
    come out finite: a fully masked attention row."""
    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    model = _model([node], [_in("x", [3, 4], elem)], [_in("y", None, elem)], [_c("axes", np.array([1], np.int64))])
    x = _f32(3, 4).astype(dtype)
    x[0] = infinity
    x[1, :2] = infinity
    convert_and_compare(model, {"x": x})


# ------------------------------------------------------------------ Tile
def test_tile_with_run_time_repeats(convert_and_compare) -> None:
    """Lowered to a Broadcast: the CPU plugin's Tile gives wrong values for run-time repeats."""
    model = _model([helper.make_node("Tile", ["x", "r"], ["y"])], [_in("x", [2, 3, 4]), _in("r", [3], I64)],
                   [_in("y", None)])
    convert_and_compare(model, {"x": _f32(2, 3, 4), "r": np.array([3, 1, 2], np.int64)})


def test_tile_repeating_one_axis_by_a_dim_stays_a_tile(convert_and_compare, tmp_path) -> None:
    """``w.repeat(b, 1, 1)`` (DeBERTa's relative embeddings per batch row): the repeats are
    computed from a shape, and only one of them can differ from 1."""
    nodes = [
        helper.make_node("Shape", ["y"], ["shape"], start=0, end=1),
        helper.make_node("Concat", ["shape", "ones"], ["r"], axis=0),
        helper.make_node("Tile", ["x", "r"], ["t"]),
    ]
    model = _model(nodes, [_in("x", [4, 5, 3]), _in("y", ["b", 2])], [_in("t", None)], [_c("ones", [1, 1])])
    convert_and_compare(model, {"x": _f32(4, 5, 3), "y": _f32(3, 2)})
    xml = tmp_path / "model.xml"  # what convert_and_compare wrote
    assert 'type="Tile"' in xml.read_text() and 'type="Broadcast"' not in xml.read_text()


# ------------------------------------------------------------------ TfIdfVectorizer
@pytest.mark.parametrize(("mode", "shape", "grams"), [
    ("TF", [12], (1, 3)),
    ("IDF", [3, 10], (2, 3)),
    ("TFIDF", [2, 9], (1, 2)),
])
def test_tfidf_vectorizer(convert_and_compare, mode: str, shape: list[int], grams: tuple[int, int]) -> None:
    """Unigrams, bigrams and trigrams from a pool, skips up to 2, with and without a batch."""
    pool = [2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 3, 4, 5, 2, 2, 3, 5, 4, 4]  # 4 unigrams, 3 bigrams, 3 trigrams
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode=mode, min_gram_length=grams[0],
                            max_gram_length=grams[1], max_skip_count=2, ngram_counts=[0, 4, 10],
                            ngram_indexes=[9, 0, 1, 2, 3, 4, 5, 6, 7, 8], pool_int64s=pool,
                            weights=[0.5 + i for i in range(10)])
    model = _model([node], [_in("x", shape, TensorProto.INT32)], [_in("y", None)], opset=9)
    convert_and_compare(model, {"x": RNG.integers(2, 9, shape).astype(np.int32)})


# ------------------------------------------------------------------ Mod
@pytest.mark.parametrize("fmod", [0, 1])
def test_float_mod_by_infinity(convert_and_compare, fmod: int) -> None:
    """The CPU plugin gives NaN for a finite x modulo an infinite y."""
    x = np.array([0.0, -3.0, 3.0, -1.0, 1.0, 5.5, -7.25, np.inf, 1.0, 4.0], np.float32)
    y = np.array([-2.0, np.inf, np.inf, -np.inf, -np.inf, 2.0, 3.0, 2.0, 0.5, -3.0], np.float32)
    model = _model([helper.make_node("Mod", ["x", "y"], ["z"], fmod=fmod)], [_in("x", [10]), _in("y", [10])],
                   [_in("z", None)], opset=28)  # onnxruntime: float floor-mod from opset 28
    convert_and_compare(model, {"x": x, "y": y})


# ------------------------------------------------------------------ BitCast
@pytest.mark.parametrize(("source", "target"), [
    (np.int8, TensorProto.UINT8), (np.uint8, TensorProto.INT8), (np.int16, TensorProto.UINT16),
    (np.uint16, TensorProto.INT16), (np.bool_, TensorProto.UINT8),
])
def test_bit_cast_between_integers(tmp_path, installed_host, source: Any, target: int) -> None:
    """Against NumPy's view (onnxruntime has no BitCast yet)."""
    import onnx
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    info = np.iinfo(source) if source is not np.bool_ else None
    x = (np.array([0, 1, 0, 1], source) if info is None
         else np.array([info.min, -1 if info.min else 200, 0, 1, info.max], source))
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(source))
    model = _model([helper.make_node("BitCast", ["x"], ["y"], to=target)], [_in("x", [len(x)], elem)],
                   [_in("y", None, target)], opset=26)
    onnx.save(model, str(tmp_path / "model.onnx"))
    save_model(convert_model(tmp_path / "model.onnx", host=installed_host), tmp_path / "model.xml",
               host=installed_host, compress_to_fp16=False)
    want = x.view(helper.tensor_dtype_to_np_dtype(target))
    got = run_ir(tmp_path / "model.xml", {"x": x})["y"]
    assert got.dtype == want.dtype and np.array_equal(got, want)


# ------------------------------------------------------------------ LSTM with peepholes
@pytest.mark.parametrize(("direction", "layout", "lengths"), [
    ("forward", 0, None), ("reverse", 0, [5, 3, 1]), ("bidirectional", 0, [2, 5, 4]),
])
def test_lstm_with_peepholes(convert_and_compare, direction: str, layout: int, lengths: Any) -> None:
    """One TensorIterator per direction (OpenVINO's LSTMSequence has no peepholes); rows
    shorter than the sequence keep their state and output zeros."""
    steps, batch, size, hidden = 5, 3, 4, 6
    dirs = 2 if direction == "bidirectional" else 1
    x_shape = [steps, batch, size] if layout == 0 else [batch, steps, size]
    state_shape = [dirs, batch, hidden] if layout == 0 else [batch, dirs, hidden]
    inputs = ["x", "W", "R", "B", "lengths" if lengths else "", "h0", "c0", "P"]
    node = helper.make_node("LSTM", inputs, ["Y", "Y_h", "Y_c"], hidden_size=hidden, direction=direction,
                            layout=layout)
    inits = [_c("W", 0.4 * _f32(dirs, 4 * hidden, size)), _c("R", 0.4 * _f32(dirs, 4 * hidden, hidden)),
             _c("B", 0.2 * _f32(dirs, 8 * hidden)), _c("P", 0.5 * _f32(dirs, 3 * hidden))]
    if lengths:
        inits.append(_c("lengths", np.array(lengths, np.int32)))
    model = _model([node], [_in("x", x_shape), _in("h0", state_shape), _in("c0", state_shape)],
                   [_in("Y", None), _in("Y_h", None), _in("Y_c", None)], inits, opset=14)
    convert_and_compare(model, {"x": _f32(*x_shape), "h0": _f32(*state_shape), "c0": _f32(*state_shape)})


def test_lstm_with_peepholes_batch_first_layout(tmp_path, installed_host) -> None:
    """layout=1 gives the layout=0 results transposed (onnxruntime has no layout=1 LSTM)."""
    import onnx
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    steps, batch, size, hidden = 4, 2, 3, 5
    inits = [_c("W", 0.4 * _f32(2, 4 * hidden, size)), _c("R", 0.4 * _f32(2, 4 * hidden, hidden)),
             _c("P", 0.5 * _f32(2, 3 * hidden)), _c("lengths", np.array([4, 2], np.int32))]
    x = _f32(steps, batch, size)
    results = []
    for layout, feed in ((0, x), (1, x.transpose(1, 0, 2))):
        node = helper.make_node("LSTM", ["x", "W", "R", "", "lengths", "", "", "P"], ["Y", "Y_h"], hidden_size=hidden,
                                direction="bidirectional", layout=layout)
        model = _model([node], [_in("x", list(feed.shape))], [_in("Y", None), _in("Y_h", None)], inits, opset=14)
        onnx.save(model, str(tmp_path / f"layout{layout}.onnx"))
        save_model(convert_model(tmp_path / f"layout{layout}.onnx", host=installed_host),
                   tmp_path / f"layout{layout}.xml", host=installed_host, compress_to_fp16=False)
        results.append(run_ir(tmp_path / f"layout{layout}.xml", {"x": feed}))
    np.testing.assert_allclose(results[1]["Y"], results[0]["Y"].transpose(2, 0, 1, 3), rtol=1e-6)
    np.testing.assert_allclose(results[1]["Y_h"], results[0]["Y_h"].transpose(1, 0, 2), rtol=1e-6)


# ------------------------------------------------------------------ Greater with NaN
@pytest.mark.parametrize("op", ["Greater", "GreaterOrEqual"])
def test_greater_with_nan_is_false(convert_and_compare, op: str) -> None:
    """The CPU plugin's Greater/GreaterEqual say true for NaN: irconv swaps to Less/LessEqual."""
    model = _model([helper.make_node(op, ["a", "b"], ["y"])], [_in("a", [5]), _in("b", [5])],
                   [_in("y", None, TensorProto.BOOL)])
    nan = np.float32(np.nan)
    convert_and_compare(model, {"a": np.array([nan, 1, 2, nan, 3], np.float32),
                                "b": np.array([0, nan, 2, nan, 1], np.float32)})


# ------------------------------------------------------------------ MelWeightMatrix
def test_mel_weight_matrix(convert_and_compare) -> None:
    """Built from Range/Select arithmetic; the sample rate is a run-time input."""
    node = helper.make_node("MelWeightMatrix", ["bins", "length", "rate", "low", "high"], ["w"])
    model = _model([node], [_in("rate", [], TensorProto.INT32)], [_in("w", None)],
                   [_c("bins", np.int32(8)), _c("length", np.int32(32)), _c("low", np.float32(0.0)),
                    _c("high", np.float32(4000.0))], opset=17)
    convert_and_compare(model, {"rate": np.asarray(8000, np.int32)}, rtol=1e-5, atol=1e-6)
