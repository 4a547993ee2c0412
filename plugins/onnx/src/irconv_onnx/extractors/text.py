"""TfIdfVectorizer on integer tokens, as n-gram matching with shifted slices.

An n-gram ``g`` of the pool, looked for with skip distance ``d``, starts at position ``s``
when ``x[s + j*d] == g[j]`` for every ``j``: the ``n`` slices ``x[j*d : L - d*(n-1-j)]``
compared with ``g[j]`` and joined with LogicalAnd give every start at once, for every
pool n-gram of that size (a last axis of pool entries). Summing over the starts counts
them. Unigrams are counted once (skip 1), longer n-grams for every skip distance
``1..max_skip_count+1``, as in the ONNX reference and onnxruntime.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import extractor, f32, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Add, Convert, Equal, Greater, LogicalAnd, MatMul, Multiply, ReduceSum, Select, Slice, Unsqueeze

_BIG = np.iinfo(np.int64).max


def _pool_grams(pool: np.ndarray, counts: list[int], lowest: int, highest: int) -> list[tuple[int, int, np.ndarray]]:
    """(n, index of the first, [K, n] table) for each n-gram size in use; the index counts
    every pool n-gram, sizes out of range included (that is how ``ngram_indexes`` is read)."""
    found, first = [], 0
    for i, start in enumerate(counts):
        n = i + 1
        end = counts[i + 1] if i + 1 < len(counts) else len(pool)
        k = max(end - start, 0) // n
        if k and lowest <= n <= highest:
            found.append((n, first, pool[start:start + k * n].reshape(k, n)))
        first += k
    return found


def _matches(ctx: ExtractContext, x: OutPort, grams: np.ndarray, skip: int) -> OutPort:
    """``[..., K]`` f32: how often each of the ``K`` n-grams occurs with this skip distance."""
    n = grams.shape[1]
    hit: OutPort | None = None
    for j in range(n):
        end = -skip * (n - 1 - j) or _BIG
        part = ctx.op(Slice(), x, i64(ctx, [j * skip]), i64(ctx, [end]), i64(ctx, [1]), i64(ctx, [-1]),
                      suffix=f"n{n}_skip{skip}_item{j}")
        column = ctx.const(grams[:, j].astype(x.data.element_type.numpy), suffix=f"n{n}_item{j}_tokens")
        equal = ctx.op(Equal(), ctx.op(Unsqueeze(), part, i64(ctx, [-1]), suffix=f"n{n}_skip{skip}_col{j}"), column,
                       suffix=f"n{n}_skip{skip}_eq{j}")
        hit = equal if hit is None else ctx.op(LogicalAnd(), hit, equal, suffix=f"n{n}_skip{skip}_and{j}")
    assert hit is not None
    as_f32 = ctx.op(Convert(destination_type=ElementType.f32), hit, suffix=f"n{n}_skip{skip}_hits")
    return ctx.op(ReduceSum(keep_dims=False), as_f32, i64(ctx, [-2]), suffix=f"n{n}_skip{skip}_count")


@extractor("onnx", "TfIdfVectorizer", versions=(9, None), produces=[Slice, Equal, LogicalAnd, ReduceSum, MatMul, Add, Convert, Greater, Multiply, Select, Unsqueeze])
def _tfidf(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    if "pool_strings" in a:
        raise a.bad("pool_strings", "...", "OpenVINO has no string tensors (integer token pools convert)")
    x = ctx.input(0)
    if not x.data.element_type.is_integer:
        raise a.bad("X", str(x.data.element_type), "irconv converts integer tokens")
    indexes = a.ints("ngram_indexes")
    size = max(indexes) + 1
    pool = np.asarray(a.ints("pool_int64s"), np.int64)
    lowest, highest, skips = a.int("min_gram_length"), a.int("max_gram_length"), a.int("max_skip_count")
    total: OutPort | None = None
    for n, first, grams in _pool_grams(pool, a.ints("ngram_counts"), lowest, highest):
        place = np.zeros((len(grams), size), np.float32)  # pool n-gram -> output slot
        place[np.arange(len(grams)), indexes[first:first + len(grams)]] = 1
        counts: OutPort | None = None
        for skip in ([1] if n == 1 else range(1, skips + 2)):
            found = _matches(ctx, x, grams, skip)
            counts = found if counts is None else ctx.op(Add(), counts, found, suffix=f"n{n}_skip{skip}_sum")
        assert counts is not None
        placed = ctx.op(MatMul(), counts, ctx.const(place, suffix=f"n{n}_slots"), suffix=f"n{n}_placed")
        total = placed if total is None else ctx.op(Add(), total, placed, suffix=f"n{n}_total")
    if total is None:  # no n-gram in range: all zeros of the output's shape
        raise a.bad("ngram_counts", a.ints("ngram_counts"), "no pool n-gram has a length in the gram range")
    mode = a.str("mode")
    # weights[k] belongs to pool n-gram k (the spec, onnxruntime), so to output slot indexes[k]
    given = np.asarray(a.floats("weights", []), np.float32)
    weights = np.zeros(size, np.float32)
    if given.size:
        weights[np.asarray(indexes)[: given.size]] = given[: len(indexes)]
    if mode == "TF":
        return [total]
    if mode == "IDF":
        present = ctx.op(Greater(), total, f32(ctx, 0, "zero"), suffix="present")
        weight = weights if given.size else np.ones(size, np.float32)
        return [ctx.op(Select(), present, ctx.const(weight, suffix="weights"), f32(ctx, 0, "none"))]
    if mode == "TFIDF":
        return [ctx.op(Multiply(), total, ctx.const(weights, suffix="weights"))] if given.size else [total]
    raise a.bad("mode", mode, "expected TF, IDF or TFIDF")
