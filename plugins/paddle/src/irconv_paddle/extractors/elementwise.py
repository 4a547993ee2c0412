"""Two-input element-wise operators: arithmetic, comparisons, logic."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import Divide, Floor, Reshape
from irconv_opset.lowering.elementwise import BINARY_OPS, Binary, binary

from irconv_paddle.extractors._common import arg, x
from irconv_paddle.names import PIR_DIALECT, both, plain_type

#: Legacy names (``elementwise_*`` with an ``axis``) and PIR names -> what they compute.
_BINARY = {
    "elementwise_add": Binary.ADD, "add": Binary.ADD, "elementwise_sub": Binary.SUBTRACT,
    "subtract": Binary.SUBTRACT, "elementwise_mul": Binary.MULTIPLY, "multiply": Binary.MULTIPLY,
    "elementwise_max": Binary.MAXIMUM, "maximum": Binary.MAXIMUM, "elementwise_min": Binary.MINIMUM,
    "minimum": Binary.MINIMUM, "elementwise_pow": Binary.POWER, "elementwise_mod": Binary.FLOOR_MOD,
    "remainder": Binary.FLOOR_MOD, "equal": Binary.EQUAL, "not_equal": Binary.NOT_EQUAL, "less_than": Binary.LESS,
    "less_equal": Binary.LESS_EQUAL, "greater_than": Binary.GREATER, "greater_equal": Binary.GREATER_EQUAL,
    "logical_and": Binary.LOGICAL_AND, "logical_or": Binary.LOGICAL_OR, "logical_xor": Binary.LOGICAL_XOR,
    "bitwise_and": Binary.BITWISE_AND, "bitwise_or": Binary.BITWISE_OR, "bitwise_xor": Binary.BITWISE_XOR,
}
_PIR_ONLY = {"add", "subtract", "multiply", "maximum", "minimum", "remainder"}
_NAMES = [*(n for n in _BINARY if n.startswith("elementwise_")), *(PIR_DIALECT + n for n in sorted(_PIR_ONLY)),
          *(m for n in _BINARY if not n.startswith("elementwise_") and n not in _PIR_ONLY for m in both(n))]


def aligned_y(ctx: ExtractContext) -> OutPort:
    """Argument 1 broadcast as a legacy ``elementwise_*`` op's ``axis`` asks: Y's dims
    matched against X's from ``axis`` on (trailing ones appended), NumPy's rule for -1."""
    y = arg(ctx, 1)
    assert y is not None
    axis = ctx.attrs.int("axis", -1)
    if axis == -1:
        return y
    x_rank, y_rank = require_rank(ctx, 0), require_rank(ctx, 1)
    trailing = x_rank - axis - y_rank
    if trailing <= 0:
        return y
    return ctx.op(Reshape(special_zero=True), y, i64(ctx, [0] * y_rank + [1] * trailing, "y_shape"), suffix="y")


def extract_binary(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [binary(ctx, _BINARY[plain_type(ctx)], x(ctx), aligned_y(ctx))]


BINARY = aliases("paddle", _NAMES, extract_binary, produces=[*BINARY_OPS, Reshape])


def extract_divide(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Python's division for floats; integers truncate toward zero as Paddle's do."""
    return [ctx.op(Divide(m_pythondiv=False), x(ctx), aligned_y(ctx))]


DIVIDE = aliases("paddle", ["elementwise_div", "pd_op.divide"], extract_divide, produces=[Divide, Reshape])


def extract_floor_divide(node: Node, ctx: ExtractContext) -> list[OutPort]:
    data = x(ctx)
    if data.data.element_type is not None and data.data.element_type.is_float:
        return [ctx.op(Floor(), ctx.op(Divide(m_pythondiv=False), data, aligned_y(ctx), suffix="div"))]
    return [ctx.op(Divide(m_pythondiv=True), data, aligned_y(ctx))]


FLOOR_DIVIDE = aliases("paddle", ["elementwise_floordiv", "pd_op.floor_divide"], extract_floor_divide,
                       produces=[Divide, Floor, Reshape])
