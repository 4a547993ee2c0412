"""Activations and other one-input element-wise operators."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, const_like, extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import (
    Clamp,
    Divide,
    Elu,
    Gelu,
    Greater,
    HardSigmoid,
    Log,
    Multiply,
    Power,
    PReLU,
    Reshape,
    Select,
    Sigmoid,
    SoftPlus,
    Sqrt,
    Swish,
)
from irconv_opset.build import along_axis
from irconv_opset.lowering.elementwise import UNARY_OPS, Unary, unary
from irconv_opset.lowering.softmax import SOFTMAX_OPS, softmax

from irconv_paddle.extractors._common import arg, known_float, x
from irconv_paddle.names import both, plain_type

#: Paddle's attribute-free unary ops (both forms' names) -> what they compute.
_UNARY = {"relu": Unary.RELU, "sigmoid": Unary.SIGMOID, "tanh": Unary.TANH, "exp": Unary.EXP, "log": Unary.LOG,
          "sqrt": Unary.SQRT, "abs": Unary.ABS, "floor": Unary.FLOOR, "ceil": Unary.CEILING, "sin": Unary.SIN,
          "cos": Unary.COS, "tan": Unary.TAN, "asin": Unary.ASIN, "acos": Unary.ACOS, "atan": Unary.ATAN,
          "sinh": Unary.SINH, "cosh": Unary.COSH, "asinh": Unary.ASINH, "acosh": Unary.ACOSH,
          "atanh": Unary.ATANH, "erf": Unary.ERF, "sign": Unary.SIGN, "softsign": Unary.SOFTSIGN,
          "silu": Unary.SWISH, "logical_not": Unary.LOGICAL_NOT, "isnan": Unary.IS_NAN,
          "isinf": Unary.IS_INF, "isfinite": Unary.IS_FINITE, "bitwise_not": Unary.BITWISE_NOT}


def extract_unary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [unary(ctx, _UNARY[plain_type(ctx)], x(ctx))]


UNARY = aliases("paddle", [n for name in _UNARY for n in both(name)], extract_unary, produces=UNARY_OPS)


@extractor("paddle", "mish", produces=[Unary.MISH.op])
def extract_mish(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [unary(ctx, Unary.MISH, x(ctx))]


PD_MISH = aliases("paddle", ["pd_op.mish"], extract_mish, produces=[Unary.MISH.op])


@extractor("paddle", "relu6", produces=[Clamp])
def extract_relu6(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Clamp(min=0.0, max=ctx.attrs.float("threshold", 6.0)), x(ctx))]


PD_RELU6 = aliases("paddle", ["pd_op.relu6"], extract_relu6, produces=[Clamp])


@extractor("paddle", "leaky_relu", produces=[PReLU])
def extract_leaky_relu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    slope = const_like(ctx, [ctx.attrs.float("negative_slope", ctx.attrs.float("alpha", 0.02))], data, "slope")
    return [ctx.op(PReLU(), data, slope)]


PD_LEAKY_RELU = aliases("paddle", ["pd_op.leaky_relu"], extract_leaky_relu, produces=[PReLU])


@extractor("paddle", "elu", produces=[Elu])
def extract_elu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Elu(alpha=ctx.attrs.float("alpha", 1.0)), x(ctx))]


PD_ELU = aliases("paddle", ["pd_op.elu"], extract_elu, produces=[Elu])


@extractor("paddle", "gelu", produces=[Gelu])
def extract_gelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    mode = "tanh" if ctx.attrs.bool("approximate", False) else "erf"
    return [ctx.op(Gelu(approximation_mode=mode), x(ctx))]


PD_GELU = aliases("paddle", ["pd_op.gelu"], extract_gelu, produces=[Gelu])


@extractor("paddle", "hard_sigmoid", produces=[HardSigmoid])
def extract_hard_sigmoid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """max(0, min(1, slope * x + offset))."""
    data = x(ctx)
    slope = const_like(ctx, ctx.attrs.float("slope", 0.1666667), data, "slope")
    offset = const_like(ctx, ctx.attrs.float("offset", 0.5), data, "offset")
    return [ctx.op(HardSigmoid(), data, slope, offset)]


PD_HARD_SIGMOID = aliases("paddle", ["pd_op.hardsigmoid"], extract_hard_sigmoid, produces=[HardSigmoid])


@extractor("paddle", "hard_swish", produces=[Unary.HSWISH.op, Multiply, Clamp, Divide])
def extract_hard_swish(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x * min(max(x + offset, 0), threshold) / scale; HSwish for Paddle's defaults (3, 6, 6)."""
    offset, threshold, scale = (ctx.attrs.float("offset", 3.0), ctx.attrs.float("threshold", 6.0),
                                ctx.attrs.float("scale", 6.0))
    data = x(ctx)
    if (offset, threshold, scale) == (3.0, 6.0, 6.0):
        return [unary(ctx, Unary.HSWISH, data)]
    from irconv_opset import Add

    shifted = ctx.op(Add(), data, const_like(ctx, offset, data, "offset"), suffix="shift")
    gate = ctx.op(Clamp(min=0.0, max=threshold), shifted, suffix="clamp")
    product = ctx.op(Multiply(), data, gate, suffix="mul")
    return [ctx.op(Divide(m_pythondiv=False), product, const_like(ctx, scale, data, "scale"))]


PD_HARD_SWISH = aliases("paddle", ["pd_op.hardswish"], extract_hard_swish,
                        produces=[Unary.HSWISH.op, Multiply, Clamp, Divide])


@extractor("paddle", "swish", produces=[Swish])
def extract_swish(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    beta = ctx.attrs.float("beta", 1.0)
    return [ctx.op(Swish(), data, const_like(ctx, beta, data, "beta"))]


PD_SWISH = aliases("paddle", ["pd_op.swish"], extract_swish, produces=[Swish])


@extractor("paddle", "softplus", produces=[SoftPlus, Multiply, Divide, Greater, Select])
def extract_softplus(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    data = x(ctx)
    beta, threshold = ctx.attrs.float("beta", 1.0), ctx.attrs.float("threshold", 20.0)
    scaled = ctx.op(Multiply(), data, const_like(ctx, beta, data, "beta"), suffix="scaled")
    soft = ctx.op(Divide(m_pythondiv=False), ctx.op(SoftPlus(), scaled, suffix="softplus"),
                  const_like(ctx, beta, data, "beta_div"), suffix="soft")
    linear = ctx.op(Greater(), scaled, const_like(ctx, threshold, data, "threshold"), suffix="linear")
    return [ctx.op(Select(), linear, data, soft)]


PD_SOFTPLUS = aliases("paddle", ["pd_op.softplus"], extract_softplus,
                      produces=[SoftPlus, Multiply, Divide, Greater, Select])


@extractor("paddle", "logsigmoid", produces=[Sigmoid, Log])
def extract_logsigmoid(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Log(), ctx.op(Sigmoid(), x(ctx), suffix="sigmoid"))]


PD_LOGSIGMOID = aliases("paddle", ["pd_op.logsigmoid"], extract_logsigmoid, produces=[Sigmoid, Log])


@extractor("paddle", "square", produces=[Multiply])
def extract_square(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    return [ctx.op(Multiply(), data, data)]


PD_SQUARE = aliases("paddle", ["pd_op.square"], extract_square, produces=[Multiply])


@extractor("paddle", "rsqrt", produces=[Sqrt, Divide])
def extract_rsqrt(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    return [ctx.op(Divide(m_pythondiv=False), const_like(ctx, 1.0, data, "one"), ctx.op(Sqrt(), data, suffix="sqrt"))]


PD_RSQRT = aliases("paddle", ["pd_op.rsqrt"], extract_rsqrt, produces=[Sqrt, Divide])


@extractor("paddle", "reciprocal", produces=[Divide])
def extract_reciprocal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    return [ctx.op(Divide(m_pythondiv=False), const_like(ctx, 1.0, data, "one"), data)]


PD_RECIPROCAL = aliases("paddle", ["pd_op.reciprocal"], extract_reciprocal, produces=[Divide])


@extractor("paddle", "pow", produces=[Power])
def extract_pow(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """x ** factor (legacy ``factor``, or its ``FactorTensor``; PIR ``y``)."""
    data = x(ctx)
    factor = arg(ctx, 1) or const_like(ctx, ctx.attrs.float("factor", ctx.attrs.float("y", 1.0)), data, "factor")
    return [ctx.op(Power(), data, factor)]


PD_POW = aliases("paddle", ["pd_op.pow"], extract_pow, produces=[Power])


def extract_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """softmax (log_softmax) along ``axis``."""
    log = plain_type(ctx) == "log_softmax"
    return [softmax(ctx, x(ctx), ctx.attrs.int("axis", -1), log=log)]


SOFTMAX = aliases("paddle", [*both("softmax"), *both("log_softmax")], extract_softmax, produces=SOFTMAX_OPS)


@extractor("paddle", "prelu", produces=[PReLU, Reshape])
def extract_prelu(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``mode`` all (one slope), channel (one per channel, NCHW or channels-last) or element
    (slopes shaped like an item of the batch, which broadcast as they are)."""
    data, alpha = x(ctx), arg(ctx, 1)
    assert alpha is not None
    mode = ctx.attrs.choice("mode", ["all", "channel", "element"], "all")
    if mode == "channel":
        rank = require_rank(ctx)
        last = ctx.attrs.str("data_format", "NCHW") in ("NHWC", "NLC", "NDHWC")
        flat = ctx.op(Reshape(special_zero=False), alpha, i64(ctx, [-1], "flat"), suffix="flat")
        alpha = along_axis(ctx, flat, rank - 1 if last else 1, rank, "alpha")
    return [ctx.op(PReLU(), data, alpha)]


PD_PRELU = aliases("paddle", ["pd_op.prelu"], extract_prelu, produces=[PReLU, Reshape])


@extractor("paddle", "clip", produces=[Clamp])
def extract_clip(node: Node, ctx: ExtractContext) -> list[OutPort]:
    low, high = known_float(ctx, "min", 1, -3.4e38), known_float(ctx, "max", 2, 3.4e38)
    return [ctx.op(Clamp(min=low, max=high), x(ctx))]


PD_CLIP = aliases("paddle", ["pd_op.clip"], extract_clip, produces=[Clamp])
