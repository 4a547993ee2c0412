"""The ``ai.onnx.ml`` ops that opset ops can express: Binarizer, ArrayFeatureExtractor and
TreeEnsemble (see ``_forest`` for how a tree ensemble becomes a few tensor ops).

The string-typed ones (LabelEncoder on strings, CategoryMapper, ...) stay unsupported:
OpenVINO has no string tensors.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import (
    Gather,
    Greater,
    Reshape,
    Select,
)

from irconv_onnx.extractors._forest import FOREST_OPS, Branch, Forest, Leaf, lower_forest

ML = "ai.onnx.ml"


@extractor("onnx", "Binarizer", domain=ML, produces=[Greater, Select])
def _binarizer(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``x > threshold`` as 1 / 0 of x's type."""
    x = ctx.input(0)
    above = ctx.op(Greater(), x, const_like(ctx, ctx.attrs.float("threshold", 0.0), x, "threshold"), suffix="above")
    return [ctx.op(Select(), above, const_like(ctx, 1, x, "one"), const_like(ctx, 0, x, "zero"))]


@extractor("onnx", "ArrayFeatureExtractor", domain=ML, produces=[Gather, Reshape])
def _array_feature_extractor(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Gather on the last axis with the indices flattened; a 1-D input gives one row
    (``[1, k]``), as onnxruntime and the reference do."""
    x = ctx.input(0)
    indices = ctx.op(Reshape(special_zero=False), ctx.input(1), i64(ctx, [-1]), suffix="indices_flat")
    if ctx.input_rank(0) == 1:
        x = ctx.op(Reshape(special_zero=False), x, i64(ctx, [1, -1]), suffix="row")
    return [ctx.op(Gather(), x, indices, i64(ctx, -1))]


# ------------------------------------------------------------------ TreeEnsemble (ml opset 5)
def _member_sets(modes: np.ndarray, membership: np.ndarray | None) -> list[tuple[float, ...]]:
    """The set of each BRANCH_MEMBER node, in node order: ``membership_values`` holds them one
    after another, each closed by a NaN."""
    sets: list[tuple[float, ...]] = []
    values = [] if membership is None else [float(v) for v in np.asarray(membership).reshape(-1)]
    current: list[float] = []
    for v in values:
        if np.isnan(v):
            sets.append(tuple(current))
            current = []
        else:
            current.append(v)
    wanted = int(np.sum(modes == 6))
    if len(sets) < wanted:
        sets += [()] * (wanted - len(sets))
    return sets


def _tree_ensemble_forest(ctx: ExtractContext) -> Forest:
    a = ctx.attrs
    modes = np.asarray(a.tensor("nodes_modes")).reshape(-1).astype(np.int64)
    splits = np.asarray(a.tensor("nodes_splits")).reshape(-1)
    features = a.ints("nodes_featureids")
    tracks = a.ints("nodes_missing_value_tracks_true", None) or [0] * len(modes)
    member_sets = iter(_member_sets(modes, a.tensor("membership_values", None)))
    branches = [
        Branch(feature=features[i], mode=int(modes[i]), split=float(splits[i]), missing_true=bool(tracks[i]),
               members=next(member_sets) if modes[i] == 6 else ())
        for i in range(len(modes))
    ]
    weights = np.asarray(a.tensor("leaf_weights")).reshape(-1)
    leaves = [Leaf(((target, float(w)),)) for target, w in zip(a.ints("leaf_targetids"), weights, strict=True)]
    true_ids, false_ids = a.ints("nodes_truenodeids"), a.ints("nodes_falsenodeids")
    true_leaf, false_leaf = a.ints("nodes_trueleafs"), a.ints("nodes_falseleafs")
    # A child is a branch index, or a leaf index encoded as ~index (negative).
    children = [
        (~true_ids[i] if true_leaf[i] else true_ids[i], ~false_ids[i] if false_leaf[i] else false_ids[i])
        for i in range(len(modes))
    ]
    roots = []
    for r in a.ints("tree_roots"):
        degenerate = true_leaf[r] and false_leaf[r] and true_ids[r] == false_ids[r]  # the tree is one leaf
        roots.append(~true_ids[r] if degenerate else r)
    aggregate = {0: "average", 1: "sum", 2: "min", 3: "max"}.get(a.int("aggregate_function", 1))
    post = {0: "none", 1: "softmax", 2: "logistic"}.get(a.int("post_transform", 0))
    if aggregate is None:
        raise a.bad("aggregate_function", a.int("aggregate_function"), "expected 0..3 (AVERAGE, SUM, MIN, MAX)")
    if post is None:
        raise a.bad("post_transform", a.int("post_transform"),
                    "irconv lowers NONE, SOFTMAX and LOGISTIC (OpenVINO has no inverse erf for PROBIT)")
    return Forest(branches, leaves, children, roots, a.int("n_targets"), aggregate, post)


@extractor("onnx", "TreeEnsemble", versions=(5, None), domain=ML, produces=FOREST_OPS)
def _tree_ensemble(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [lower_forest(ctx, ctx.input(0), _tree_ensemble_forest(ctx))]
