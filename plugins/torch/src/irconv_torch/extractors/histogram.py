"""``histc``: counts of values in equal-width bins (transformers' mixture-of-experts layers
count the tokens routed to each expert with it)."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import extractor, f32, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Convert,
    Divide,
    Equal,
    Floor,
    GreaterEqual,
    LessEqual,
    LogicalAnd,
    Minimum,
    Multiply,
    Range,
    ReduceMax,
    ReduceMin,
    ReduceSum,
    Reshape,
    Select,
    Subtract,
    Unsqueeze,
)

from irconv_torch.extractors._args import TORCH_2_5, cast, out_type, tensor


@extractor("torch", "aten.histc.default", versions=TORCH_2_5,
           produces=[Reshape, Convert, Subtract, Multiply, Divide, Floor, Minimum, GreaterEqual, LessEqual, LogicalAnd,
                     Range, Unsqueeze, Equal, ReduceSum, ReduceMin, ReduceMax, Select, Add])
def histc(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Bin ``floor((x - min) * bins / (max - min))``, the maximum itself in the last bin;
    values outside ``[min, max]`` (and NaN) count nowhere. ``min == max == 0`` takes the
    data's range, widened by 1 each way when it is a single value, as torch does."""
    bins = ctx.attrs.int("bins", 100)
    if bins <= 0:
        raise ctx.attrs.bad("bins", bins, "a positive number of bins")
    low, high = ctx.attrs.float("min", 0.0), ctx.attrs.float("max", 0.0)
    if low > high:
        raise ctx.attrs.bad("max", high, f"at least min ({low})")
    values = ctx.op(Reshape(special_zero=False), cast(ctx, tensor(ctx, "self"), ElementType.f32, "f32"),
                    i64(ctx, [-1]), suffix="flat")
    lower, upper = f32(ctx, low, "min"), f32(ctx, high, "max")
    if low == high:
        lower, upper = _data_range(ctx, values) if low == 0.0 else (f32(ctx, low - 1, "min"), f32(ctx, high + 1, "max"))
    scaled = ctx.op(Divide(), ctx.op(Multiply(), ctx.op(Subtract(), values, lower, suffix="shifted"),
                                     f32(ctx, float(bins), "bins"), suffix="spread"),
                    ctx.op(Subtract(), upper, lower, suffix="width"), suffix="scaled")
    index = ctx.op(Minimum(), ctx.op(Floor(), scaled, suffix="floor"), f32(ctx, float(bins - 1), "last"),
                   suffix="bin")
    inside = ctx.op(LogicalAnd(), ctx.op(GreaterEqual(), values, lower, suffix="above"),
                    ctx.op(LessEqual(), values, upper, suffix="below"), suffix="inside")
    every_bin = ctx.op(Range(output_type=ElementType.f32), f32(ctx, 0.0, "first"), f32(ctx, float(bins), "end"),
                       f32(ctx, 1.0, "step"), suffix="bins_range")
    hit = ctx.op(LogicalAnd(), ctx.op(Equal(), ctx.op(Unsqueeze(), index, i64(ctx, -1), suffix="column"), every_bin,
                                      suffix="in_bin"),
                 ctx.op(Unsqueeze(), inside, i64(ctx, -1), suffix="inside_column"), suffix="hit")
    counts = ctx.op(ReduceSum(keep_dims=False), ctx.op(Convert(destination_type=ElementType.f32), hit, suffix="ones"),
                    i64(ctx, [0]), suffix="op")
    return [cast(ctx, counts, out_type(ctx), suffix="result")]


def _data_range(ctx: ExtractContext, values: OutPort) -> tuple[OutPort, OutPort]:
    """The smallest and largest value, 1 apart each way when they are equal."""
    lower = ctx.op(ReduceMin(keep_dims=False), values, i64(ctx, [0]), suffix="data_min")
    upper = ctx.op(ReduceMax(keep_dims=False), values, i64(ctx, [0]), suffix="data_max")
    same = ctx.op(Equal(), lower, upper, suffix="single_value")
    one = f32(ctx, 1.0, "one")
    return (ctx.op(Select(), same, ctx.op(Subtract(), lower, one, suffix="widened_min"), lower, suffix="min"),
            ctx.op(Select(), same, ctx.op(Add(), upper, one, suffix="widened_max"), upper, suffix="max"))
