"""Indexing, sequences of values and the rest: range, flip, roll, one-hot, index_select,
take_along_axis, nonzero, unstack, add_n, bmm, and the shrink/threshold activations."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor, i64, normalize_axes, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Add,
    Clamp,
    Divide,
    Equal,
    Gather,
    GatherElements,
    Greater,
    Log,
    Loop,
    MatMul,
    Multiply,
    NonZero,
    OneHot,
    Range,
    Reshape,
    Reverse,
    Roll,
    Round,
    Select,
    ShapeOf,
    Sign,
    Split,
    Squeeze,
    Subtract,
    Tanh,
    Transpose,
)
from irconv_opset.build import along_axis, shape_of
from irconv_opset.lowering.elementwise import ADD_N_OPS, ATAN2_OPS, add_n, atan2
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput

from irconv_paddle.dtypes import dtype_of_name
from irconv_paddle.extractors._common import arg, args, known_int, known_ints, x
from irconv_paddle.names import both


def extract_range(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """[start, end) by step (three scalar tensors) in ``dtype`` (PIR) or the inputs' type."""
    start, end, step = arg(ctx, 0), arg(ctx, 1), arg(ctx, 2)
    assert start is not None and end is not None and step is not None
    scalars = [ctx.op(Squeeze(), p, suffix=f"{n}_scalar") if (p.data.shape or ()) == (1,) else p
               for p, n in ((start, "start"), (end, "end"), (step, "step"))]
    name = ctx.attrs.get("dtype", None)
    dtype = dtype_of_name(name) if name is not None else None
    element = ElementType.from_numpy(dtype) if dtype is not None else start.data.element_type or ElementType.f32
    return [ctx.op(Range(output_type=element), *scalars)]


RANGE = aliases("paddle", ["range", "pd_op.arange"], extract_range, produces=[Range, Squeeze])


def extract_flip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axes = normalize_axes(ctx, known_ints(ctx, "axis", 1), require_rank(ctx))
    return [ctx.op(Reverse(mode="index"), x(ctx), i64(ctx, axes, "axes"))]


FLIP = aliases("paddle", [*both("flip"), *both("reverse")], extract_flip, produces=[Reverse])


def extract_roll(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``shifts`` along ``axis``; no axis: the flattened tensor, shape kept."""
    data = x(ctx)
    shifts = known_ints(ctx, "shifts", 1)
    axes = ctx.attrs.ints("axis", [])
    if axes:
        return [ctx.op(Roll(), data, i64(ctx, shifts, "shifts"), i64(ctx, axes, "axes"))]
    flat = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1], "flat"), suffix="flat")
    rolled = ctx.op(Roll(), flat, i64(ctx, shifts, "shifts"), i64(ctx, [0], "axes"), suffix="roll")
    return [ctx.op(Reshape(special_zero=False), rolled, shape_of(ctx, data))]


ROLL = aliases("paddle", both("roll"), extract_roll, produces=[Roll, Reshape, ShapeOf])


def extract_one_hot(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """float32 one-hot vectors of ``depth`` along a new last axis."""
    depth = known_int(ctx, "depth", 1, -1)
    on, off = ctx.const(np.asarray(1.0, np.float32), suffix="on"), ctx.const(np.asarray(0.0, np.float32), suffix="off")
    return [ctx.op(OneHot(axis=-1), x(ctx), i64(ctx, depth, "depth"), on, off)]


ONE_HOT = aliases("paddle", ["one_hot_v2", "pd_op.one_hot"], extract_one_hot, produces=[OneHot])


def extract_index_select(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim", ctx.attrs.int("axis", 0)), require_rank(ctx))
    return [ctx.op(Gather(batch_dims=0), x(ctx), arg(ctx, 1), i64(ctx, axis, "axis"))]


INDEX_SELECT = aliases("paddle", both("index_select"), extract_index_select, produces=[Gather])


def extract_take_along_axis(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("Axis", ctx.attrs.int("axis", 0)), require_rank(ctx))
    return [ctx.op(GatherElements(axis=axis), x(ctx), arg(ctx, 1))]


TAKE_ALONG_AXIS = aliases("paddle", both("take_along_axis"), extract_take_along_axis, produces=[GatherElements])


def extract_nonzero(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """[count, rank] int64 coordinates of the non-zero elements."""
    found = ctx.op(NonZero(output_type=ElementType.i64), x(ctx), suffix="nonzero")
    return [ctx.op(Transpose(), found, i64(ctx, [1, 0], "perm"))]


NONZERO = aliases("paddle", ["where_index", "pd_op.nonzero"], extract_nonzero, produces=[NonZero, Transpose])


def extract_unstack(node: Node, ctx: ExtractContext) -> list[OutPort]:
    rank = require_rank(ctx)
    axis = normalize_axis(ctx, ctx.attrs.int("axis", 0), rank)
    count = node.num_outputs()
    parts = ctx.add(Split(num_splits=count), [x(ctx), i64(ctx, axis, "axis")], suffix="split")
    return [ctx.op(Squeeze(), parts.out_port(i), i64(ctx, [axis], f"axis{i}"), suffix=f"item{i}") for i in range(count)]


UNSTACK = aliases("paddle", both("unstack"), extract_unstack, produces=[Split, Squeeze])


def extract_add_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [add_n(ctx, args(ctx, 0))]


ADD_N = aliases("paddle", ["sum", "pd_op.add_n"], extract_add_n, produces=ADD_N_OPS)


def extract_atan2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    y, other = x(ctx), arg(ctx, 1)
    assert other is not None
    return [atan2(ctx, y, other)]


ATAN2 = aliases("paddle", both("atan2"), extract_atan2, produces=ATAN2_OPS)


@extractor("paddle", "bmm", produces=[MatMul])
def extract_bmm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(MatMul(transpose_a=False, transpose_b=False), x(ctx), arg(ctx, 1))]


PD_BMM = aliases("paddle", ["pd_op.bmm"], extract_bmm, produces=[MatMul])


@extractor("paddle", "round", produces=[Round])
def extract_round(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Halves away from zero, as Paddle rounds."""
    return [ctx.op(Round(mode="half_away_from_zero"), x(ctx))]


PD_ROUND = aliases("paddle", ["pd_op.round"], extract_round, produces=[Round])


def extract_log_base(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    base = 2.0 if ctx.source_op.op_type.endswith("log2") else 10.0
    return [ctx.op(Divide(m_pythondiv=False), ctx.op(Log(), data, suffix="ln"),
                   const_like(ctx, float(np.log(base)), data, "ln_base"))]


LOG_BASE = aliases("paddle", [*both("log2"), *both("log10")], extract_log_base, produces=[Log, Divide])


def extract_softshrink(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x - sign(x) * lambda where |x| > lambda, else 0."""
    data = x(ctx)
    lam = const_like(ctx, ctx.attrs.float("threshold", ctx.attrs.float("lambda", 0.5)), data, "lambda")
    outside = ctx.op(Greater(), ctx.op(Abs(), data, suffix="abs"), lam, suffix="outside")
    shrunk = ctx.op(Subtract(), data, ctx.op(Multiply(), ctx.op(Sign(), data, suffix="sign"), lam, suffix="step"),
                    suffix="shrunk")
    return [ctx.op(Select(), outside, shrunk, const_like(ctx, 0.0, data, "zero"))]


SOFTSHRINK = aliases("paddle", both("softshrink"), extract_softshrink,
                     produces=[Abs, Greater, Subtract, Multiply, Sign, Select])


def extract_tanh_shrink(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    return [ctx.op(Subtract(), data, ctx.op(Tanh(), data, suffix="tanh"))]


TANH_SHRINK = aliases("paddle", ["tanh_shrink", "pd_op.tanh_shrink"], extract_tanh_shrink, produces=[Subtract, Tanh])


def extract_hardtanh(node: Node, ctx: ExtractContext) -> list[OutPort]:
    low = ctx.attrs.float("t_min", ctx.attrs.float("min", -1.0))
    high = ctx.attrs.float("t_max", ctx.attrs.float("max", 1.0))
    return [ctx.op(Clamp(min=low, max=high), x(ctx))]


HARDTANH = aliases("paddle", ["brelu", "pd_op.hardtanh"], extract_hardtanh, produces=[Clamp])


def extract_thresholded_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    above = ctx.op(Greater(), data, const_like(ctx, ctx.attrs.float("threshold", 1.0), data, "threshold"),
                   suffix="above")
    return [ctx.op(Select(), above, data, const_like(ctx, ctx.attrs.float("value", 0.0), data, "zero"))]


THRESHOLDED_RELU = aliases("paddle", both("thresholded_relu"), extract_thresholded_relu, produces=[Greater, Select])


def extract_increment(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    return [ctx.op(Add(), data, const_like(ctx, ctx.attrs.float("step", 1.0), data, "step"))]


INCREMENT = aliases("paddle", both("increment"), extract_increment, produces=[Add])


def extract_if(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """PIR's ``if``: both branches were read into the graph (operands: the condition, then the
    true branch's results, then the false branch's); each result is selected by the
    condition. Branches of inference programs have no side effects, so computing both is
    exact; their results must have broadcast-compatible shapes."""
    condition = x(ctx)
    count = node.num_outputs()
    branches = [arg(ctx, i) for i in range(1, 1 + 2 * count)]
    if any(port is None for port in branches):
        from irconv import ConversionError

        raise ConversionError(f"{ctx.where()}: a branch gives fewer results than the if has")
    return [ctx.op(Select(), condition, branches[i], branches[count + i], suffix=f"select{i}" if i else None)
            for i in range(count)]


PD_IF = aliases("paddle", ["pd_op.if"], extract_if, produces=[Select])


def extract_conditional_block(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The legacy ``if`` block's variables it writes over (the reader put the block's
    operators in line): arguments the condition, the block's values, then the values from
    before the block; each result is the block's value where the condition holds."""
    if not ctx.attrs.bool("is_scalar_condition", True):
        raise ctx.attrs.bad("is_scalar_condition", False, "a block run when its inputs are not empty is not converted")
    count = node.num_outputs()
    values = [arg(ctx, i) for i in range(1, 1 + 2 * count)]
    if any(port is None for port in values):
        from irconv import ConversionError

        raise ConversionError(f"{ctx.where()}: a value the block writes over is missing")
    condition = x(ctx)
    return [ctx.op(Select(), condition, values[i], values[count + i], suffix=f"select{i}" if i else None)
            for i in range(count)]


CONDITIONAL_BLOCK = aliases("paddle", ["conditional_block"], extract_conditional_block, produces=[Select])


def extract_select_input(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``select_input``: the value of ``X`` whose position the integer ``Mask`` holds (the
    legacy ``if``'s merge of its branches: [false value, true value] by the condition as int)."""
    choices, mask = args(ctx, 0), arg(ctx, 1)
    assert mask is not None
    chosen = choices[0]
    for k, choice in enumerate(choices[1:], start=1):
        picked = ctx.op(Equal(), mask, const_like(ctx, k, mask, f"is{k}"), suffix=f"mask{k}")
        chosen = ctx.op(Select(), picked, choice, chosen, suffix=f"choice{k}" if k + 1 < len(choices) else None)
    return [chosen]


SELECT_INPUT = aliases("paddle", ["select_input"], extract_select_input, produces=[Equal, Select])


def extract_while(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``while`` as Loop-5 (PIR's, and the legacy op with its sub-block read the same way):
    arguments the condition, the carried values, then the values the body reads from outside; the body's parameters the carried values then those read
    values, its results the next condition then the next carried values."""
    body = ctx.body("body")
    carried = node.num_outputs()
    captured = ctx.attrs.int("captured", 0)
    outer = [arg(ctx, 1 + i) for i in range(carried + captured)]
    if any(port is None for port in outer):
        from irconv import ConversionError

        raise ConversionError(f"{ctx.where()}: a loop value is missing")
    inputs = [i64(ctx, -1, "trip_count"), x(ctx), *outer]
    op = Loop(body=body, input_map=tuple(BodyInput(2 + i, i) for i in range(carried + captured)),
              output_map=tuple(BodyOutput(i, 1 + i) for i in range(carried)),
              back_edges=tuple(BackEdge(1 + i, i) for i in range(carried)), current_iteration=-1, condition_output=0)
    loop = ctx.add(op, inputs, "loop")
    return [loop.out_port(i) for i in range(carried)]


WHILE = aliases("paddle", ["while", "pd_op.while"], extract_while, produces=[Loop])


def _quant_scale(ctx: ExtractContext, data: OutPort) -> OutPort:
    """Scale / (2^(bits-1) - 1), per channel along ``quant_axis`` when the scale has several values."""
    scale = arg(ctx, 1)
    assert scale is not None
    levels = const_like(ctx, float(2 ** (ctx.attrs.int("bit_length", 8) - 1) - 1), data, "levels")
    step = ctx.op(Divide(m_pythondiv=False), scale, levels, suffix="step")
    axis = ctx.attrs.int("quant_axis", -1)
    shape = scale.data.shape
    if axis >= 0 and (shape is None or len(shape) != 1 or shape[0] != 1):
        step = along_axis(ctx, step, axis, require_rank(ctx), "step_along")
    return step


def extract_dequantize_linear(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Quantised values back to real ones: x * scale / (2^(bits-1) - 1)."""
    data = x(ctx)
    return [ctx.op(Multiply(), data, _quant_scale(ctx, data))]


DEQUANTIZE_LINEAR = aliases("paddle", both("dequantize_linear"), extract_dequantize_linear,
                            produces=[Divide, Multiply, Reshape])


def extract_quantize_linear(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Real values to quantised ones (kept as floats): round(x / step) within +-(2^(bits-1) - 1),
    halves to even (``round_type`` 0) or away from zero."""
    data = x(ctx)
    levels = float(2 ** (ctx.attrs.int("bit_length", 8) - 1) - 1)
    ratio = ctx.op(Divide(m_pythondiv=False), data, _quant_scale(ctx, data), suffix="ratio")
    mode = "half_to_even" if ctx.attrs.int("round_type", 0) == 0 else "half_away_from_zero"
    rounded = ctx.op(Round(mode=mode), ratio, suffix="round")
    return [ctx.op(Clamp(min=-levels, max=levels), rounded)]


QUANTIZE_LINEAR = aliases("paddle", both("quantize_linear"), extract_quantize_linear,
                          produces=[Divide, Round, Clamp, Reshape])
