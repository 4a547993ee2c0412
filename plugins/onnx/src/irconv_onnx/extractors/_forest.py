"""A decision-tree ensemble as a few tensor ops, whatever the number and depth of the trees.

Every branch node's condition is evaluated for every row at once (``Gather`` the features,
compare with the splits: ``[N, branches]`` booleans). A leaf is reached exactly when every
condition on its root-to-leaf path has the outcome the path needs, so the paths become an
index table ``[paths, depth]`` into the conditions plus the outcome each step needs:
``Gather`` + ``Equal`` + ``ReduceLogicalAnd`` gives ``[N, paths]`` leaf indicators, one true
per tree and row. The aggregation is then a ``MatMul`` with the leaves' weights (SUM,
AVERAGE) or a masked ``ReduceMin``/``ReduceMax`` (MIN, MAX). The tables grow with the number
of leaves times the depth, not with their product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import ExtractContext
from irconv.frontend import const_like, i64, numpy_dtype
from irconv.graph import OutPort
from irconv.types import ElementType
from irconv_opset import (
    Broadcast,
    Concat,
    Convert,
    Equal,
    Gather,
    IsNaN,
    Less,
    LessEqual,
    LogicalAnd,
    LogicalOr,
    MatMul,
    NotEqual,
    ReduceLogicalAnd,
    ReduceLogicalOr,
    ReduceMax,
    ReduceMin,
    Select,
    ShapeOf,
    Sigmoid,
    SoftMax,
    Unsqueeze,
)
from irconv_opset.build import shape_of

#: Branch modes, numbered as in TreeEnsemble's ``nodes_modes``.
LEQ, LT, GTE, GT, EQ, NEQ, MEMBER = range(7)

#: What ``lower_forest`` may build.
FOREST_OPS = (Broadcast, Concat, Convert, Equal, Gather, IsNaN, Less, LessEqual, LogicalAnd, LogicalOr, MatMul, NotEqual,
              ReduceLogicalAnd, ReduceLogicalOr, ReduceMax, ReduceMin, Select, Sigmoid, SoftMax, Unsqueeze, ShapeOf)


@dataclass(frozen=True)
class Branch:
    """``x[feature] <mode> split`` (or ``in members``); NaN goes the true way when ``missing_true``."""

    feature: int
    mode: int
    split: float
    missing_true: bool = False
    members: tuple[float, ...] = ()


@dataclass(frozen=True)
class Leaf:
    """What reaching the leaf adds: ``(target, weight)`` pairs."""

    contributions: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Forest:
    """``children[b]`` = (true child, false child) of branch ``b``: a branch index, or ``~leaf``
    (negative) for a leaf; ``roots`` likewise (``~leaf`` for a tree that is a single leaf)."""

    branches: list[Branch]
    leaves: list[Leaf]
    children: list[tuple[int, int]]
    roots: list[int]
    targets: int
    aggregate: str  # sum, average, min, max
    post: str  # none, softmax, logistic


def _paths(forest: Forest) -> list[tuple[int, list[tuple[int, bool]]]]:
    """Every (leaf, path) of every tree, a path being (branch, outcome needed) steps."""
    found: list[tuple[int, list[tuple[int, bool]]]] = []
    for root in forest.roots:
        stack: list[tuple[int, list[tuple[int, bool]]]] = [(root, [])]
        while stack:
            node, path = stack.pop()
            if node < 0:
                found.append((~node, path))
                continue
            if len(path) > len(forest.branches):
                raise ValueError(f"the trees have a cycle through branch {node}")
            true_child, false_child = forest.children[node]
            stack.append((false_child, [*path, (node, False)]))
            stack.append((true_child, [*path, (node, True)]))
    return found


def _conditions(ctx: ExtractContext, x: OutPort, branches: list[Branch]) -> OutPort:
    """``[N, branches]`` booleans: the outcome of every branch for every row."""
    cols = ctx.op(Gather(), x, i64(ctx, [b.feature for b in branches]), i64(ctx, 1), suffix="features")
    modes = np.array([b.mode for b in branches])
    splits = const_like(ctx, [b.split for b in branches], x, "splits")
    # GT/GTE as Less/LessEqual with the operands swapped: the CPU plugin's Greater and
    # GreaterEqual say true for NaN, which must take the false branch.
    compare = {LEQ: (LessEqual, False), LT: (Less, False), GTE: (LessEqual, True), GT: (Less, True),
               EQ: (Equal, False), NEQ: (NotEqual, False)}
    cond: OutPort | None = None
    for mode in sorted(set(modes.tolist())):
        if mode == MEMBER:
            width = max(1, max(len(b.members) for b in branches))
            table = np.full((len(branches), width), np.nan)  # NaN pads: equal to nothing
            for i, b in enumerate(branches):
                table[i, : len(b.members)] = b.members
            hits = ctx.op(Equal(), ctx.op(Unsqueeze(), cols, i64(ctx, [2]), suffix="features_col"),
                          const_like(ctx, table, x, "members"), suffix="member_hits")
            result = ctx.op(ReduceLogicalOr(keep_dims=False), hits, i64(ctx, [2]), suffix="member")
        elif mode in compare:
            kind, swapped = compare[mode]
            result = ctx.op(kind(), *((splits, cols) if swapped else (cols, splits)), suffix=f"mode{mode}")
        else:
            raise ValueError(f"unknown branch mode {mode}")
        cond = result if cond is None else ctx.op(Select(), ctx.const(modes == mode, suffix=f"is_mode{mode}"),
                                                  result, cond, suffix=f"cond{mode}")
    assert cond is not None
    tracks = np.array([b.missing_true for b in branches])
    if tracks.any():
        missing = ctx.op(LogicalAnd(), ctx.op(IsNaN(), cols, suffix="missing"),
                         ctx.const(tracks, suffix="missing_goes_true"), suffix="missing_true")
        cond = ctx.op(LogicalOr(), cond, missing, suffix="cond")
    return cond


def _reached(ctx: ExtractContext, x: OutPort, forest: Forest, paths: list[tuple[int, list[tuple[int, bool]]]]) -> OutPort:
    """``[N, paths]`` booleans: which leaves every row reaches."""
    depth = max(1, max(len(p) for _, p in paths))
    index = np.zeros((len(paths), depth), np.int64)
    outcome = np.zeros((len(paths), depth), bool)
    padding = np.ones((len(paths), depth), bool)
    for row, (_, path) in enumerate(paths):
        for step, (branch, wanted) in enumerate(path):
            index[row, step], outcome[row, step], padding[row, step] = branch, wanted, False
    if not forest.branches:  # every tree is a single leaf
        rows = ctx.op(Gather(), shape_of(ctx, x), i64(ctx, [0]), i64(ctx, 0), suffix="rows")
        shape = ctx.op(Concat(axis=0), rows, i64(ctx, [len(paths)]), suffix="reached_shape")
        return ctx.op(Broadcast(), ctx.const(np.array(True), suffix="true"), shape, suffix="reached")
    cond = _conditions(ctx, x, forest.branches)
    steps = ctx.op(Gather(), cond, i64(ctx, index), i64(ctx, 1), suffix="path_steps")
    ok = ctx.op(Equal(), steps, ctx.const(outcome, suffix="path_outcomes"), suffix="step_ok")
    ok = ctx.op(LogicalOr(), ok, ctx.const(padding, suffix="path_padding"), suffix="step_ok_or_pad")
    return ctx.op(ReduceLogicalAnd(keep_dims=False), ok, i64(ctx, [2]), suffix="reached")


def lower_forest(ctx: ExtractContext, x: OutPort, forest: Forest) -> OutPort:
    """``[N, targets]`` scores of the ensemble for ``x`` ``[N, features]``."""
    paths = _paths(forest)
    reached = _reached(ctx, x, forest, paths)
    dtype = numpy_dtype(x.data.element_type)
    if forest.aggregate in ("sum", "average"):
        scale = 1.0 / len(forest.roots) if forest.aggregate == "average" else 1.0
        weights = np.zeros((len(paths), forest.targets), np.float64)
        for row, (leaf, _) in enumerate(paths):
            for target, w in forest.leaves[leaf].contributions:
                weights[row, target] += w * scale
        as_number = ctx.op(Convert(destination_type=ElementType.from_numpy(dtype)), reached, suffix="reached_number")
        scores = ctx.op(MatMul(), as_number, ctx.const(weights.astype(dtype), suffix="leaf_weights"), suffix="scores")
    else:
        hits = np.zeros((len(paths), forest.targets), bool)
        values = np.zeros((len(paths), forest.targets), np.float64)
        for row, (leaf, _) in enumerate(paths):
            for target, w in forest.leaves[leaf].contributions:
                hits[row, target], values[row, target] = True, w
        lowest = forest.aggregate == "max"
        start = np.finfo(dtype).min if lowest else np.finfo(dtype).max
        used = ctx.op(LogicalAnd(), ctx.op(Unsqueeze(), reached, i64(ctx, [2]), suffix="reached_col"),
                      ctx.const(hits, suffix="leaf_targets"), suffix="contributes")
        picked = ctx.op(Select(), used, ctx.const(values.astype(dtype), suffix="leaf_weights"),
                        ctx.const(np.asarray(start, dtype), suffix="start"), suffix="contributions")
        reduce = ReduceMax(keep_dims=False) if lowest else ReduceMin(keep_dims=False)
        scores = ctx.op(reduce, picked, i64(ctx, [1]), suffix="reduced")
        # A target no reached leaf feeds scores 0, as in onnxruntime (the ONNX reference
        # leaves the start value there; the spec does not say).
        fed = ctx.op(ReduceLogicalOr(keep_dims=False), used, i64(ctx, [1]), suffix="fed")
        scores = ctx.op(Select(), fed, scores, ctx.const(np.zeros((), dtype), suffix="zero"), suffix="scores")
    if forest.post == "softmax":
        return ctx.op(SoftMax(axis=1), scores)
    if forest.post == "logistic":
        return ctx.op(Sigmoid(), scores)
    return scores
