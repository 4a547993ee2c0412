"""Grouped matrix products of mixture-of-experts layers: rows sorted by expert, each row
multiplied by its expert's weight: ``transformers``' ``grouped_mm_fallback``, the custom op
its MoE layers call on CPU."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Convert,
    Equal,
    Gather,
    GreaterEqual,
    MatMul,
    Multiply,
    Range,
    ReduceSum,
    ShapeOf,
    Unsqueeze,
)
from irconv_opset.build import shape_of

from irconv_torch.extractors._args import TORCH_2_5, cast, out_type, tensor

#: What the grouped product builds.
_GROUPED_OPS: tuple[type[Op], ...] = (MatMul, GreaterEqual, ReduceSum, Equal, Multiply, Range, Gather, ShapeOf,
                                      Unsqueeze, Convert)


def _grouped(ctx: ExtractContext, rows: OutPort, weights: OutPort, ends: OutPort) -> OutPort:
    """``rows`` (S, K) against ``weights`` (E, K, N), row ``s`` by the expert ``e`` with
    ``ends[e-1] <= s < ends[e]`` (``ends``: cumulative row counts); rows past the last end
    are zeros. Every expert multiplies every row (E x the products, (E, S, N) in memory,
    no weight copied per row); a one-hot of each row's expert keeps its own product."""
    element_type = out_type(ctx)
    count = ctx.op(Gather(), shape_of(ctx, rows), i64(ctx, 0), i64(ctx, 0), suffix="rows")
    row = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), count, i64(ctx, 1), suffix="row")
    ends = cast(ctx, ends, ElementType.i64, "ends_i64")
    # expert of row s = how many ends are <= s (E for a row past every end: no expert)
    passed = ctx.op(GreaterEqual(), ctx.op(Unsqueeze(), row, i64(ctx, -1)), ctx.op(Unsqueeze(), ends, i64(ctx, 0)),
                    suffix="passed")
    expert = ctx.op(ReduceSum(keep_dims=False), ctx.op(Convert(destination_type=ElementType.i64), passed),
                    i64(ctx, [1]), suffix="expert")
    experts = ctx.op(Gather(), shape_of(ctx, weights), i64(ctx, 0), i64(ctx, 0), suffix="experts")
    each = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), experts, i64(ctx, 1), suffix="each")
    one_hot = ctx.op(Equal(), ctx.op(Unsqueeze(), each, i64(ctx, -1)), ctx.op(Unsqueeze(), expert, i64(ctx, 0)),
                     suffix="one_hot")  # (E, S)
    products = ctx.op(MatMul(), cast(ctx, rows, element_type, "rows_t"), cast(ctx, weights, element_type, "weights_t"),
                      suffix="products")  # (E, S, N)
    kept = ctx.op(Multiply(), products, ctx.op(Unsqueeze(), cast(ctx, one_hot, element_type, "one_hot_t"),
                                               i64(ctx, -1)), suffix="kept")
    return ctx.op(ReduceSum(keep_dims=False), kept, i64(ctx, [0]), suffix="op")


@extractor("torch", "transformers.grouped_mm_fallback.default", versions=TORCH_2_5, produces=_GROUPED_OPS)
def grouped_mm_fallback(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_grouped(ctx, tensor(ctx, "input"), tensor(ctx, "weight"), tensor(ctx, "offs"))]

