"""Merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot."""

from __future__ import annotations

from functools import reduce

from irconv import ExtractContext
from irconv.frontend import aliases, extractor, f32, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import Add, Concat, Einsum, Maximum, Minimum, Multiply, NormalizeL2, Subtract, Unsqueeze

from irconv_tf.keras_reader.extractors._base import layer


def _inputs(ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(i) for i in range(len(layer(ctx).arguments))]


def _fold(node: Node, ctx: ExtractContext) -> list[OutPort]:
    make = _FOLDS[ctx.source_op.op_type]
    return [reduce(lambda a, b: ctx.op(make(), a, b, suffix=make().type.lower()), _inputs(ctx))]


#: The merge layers that fold their inputs with one binary op.
_FOLDS: dict[str, type[Op]] = {"Add": Add, "Multiply": Multiply, "Maximum": Maximum, "Minimum": Minimum}
FOLDS = [record for name, op in _FOLDS.items() for record in aliases("keras", [name], _fold, produces=[op])]


@extractor("keras", "Subtract", produces=[Subtract])
def _subtract(node: Node, ctx: ExtractContext) -> list[OutPort]:
    first, second = _inputs(ctx)
    return [ctx.op(Subtract(), first, second, suffix="subtract")]


@extractor("keras", "Average", produces=[Add, Multiply])
def _average(node: Node, ctx: ExtractContext) -> list[OutPort]:
    inputs = _inputs(ctx)
    total = reduce(lambda a, b: ctx.op(Add(), a, b, suffix="add"), inputs)
    return [ctx.op(Multiply(), total, f32(ctx, 1.0 / len(inputs), "inverse_count"), suffix="average")]


@extractor("keras", "Concatenate", produces=[Concat])
def _concatenate(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), require_rank(ctx, 0))
    return [ctx.op(Concat(axis=axis), *_inputs(ctx), suffix="concat")]


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@extractor("keras", "Dot", produces=[Einsum, Unsqueeze, NormalizeL2])
def _dot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """keras.layers.Dot: batch_dot over one axis of each input (axis 0 being the batch),
    as an Einsum; rank-2 inputs keep a trailing 1 as Keras' batch_dot does."""
    first, second = _inputs(ctx)
    ranks = require_rank(ctx, 0), require_rank(ctx, 1)
    given = ctx.attrs.get("axes")
    pair = [given, given] if isinstance(given, int) else ctx.attrs.ints("axes", length=2)
    axes = [normalize_axis(ctx, int(a), r) for a, r in zip(pair, ranks, strict=True)]
    if 0 in axes:
        raise ctx.attrs.bad("axes", given, "a dot product over the batch axis")
    if ctx.attrs.bool("normalize", False):  # l2-normalised along the dot axes (epsilon 1e-12)
        first = ctx.op(
            NormalizeL2(eps=1e-12, eps_mode="max"), first, i64(ctx, [axes[0]], "axis0"), suffix="normalized0"
        )
        second = ctx.op(
            NormalizeL2(eps=1e-12, eps_mode="max"), second, i64(ctx, [axes[1]], "axis1"), suffix="normalized1"
        )
    letters = iter(_LETTERS[2:])
    left = ["a"] + [next(letters) for _ in range(ranks[0] - 1)]
    right = ["a"] + [next(letters) for _ in range(ranks[1] - 1)]
    right[axes[1]] = left[axes[0]] = "b"
    kept = [c for c in left if c != "b"] + [c for c in right[1:] if c != "b"]
    equation = f"{''.join(left)},{''.join(right)}->{''.join(kept)}"
    result = ctx.op(Einsum(equation=equation), first, second, suffix="einsum")
    if len(kept) == 1:
        result = ctx.op(Unsqueeze(), result, i64(ctx, [1], "axis"), suffix="keep_dims")
    return [result]
