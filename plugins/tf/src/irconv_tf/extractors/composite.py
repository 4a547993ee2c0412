"""TensorFlow element-wise compositions and small shape ops."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    BitwiseLeftShift,
    BitwiseRightShift,
    Broadcast,
    Bucketize,
    Concat,
    Convert,
    Divide,
    Equal,
    Gather,
    GreaterEqual,
    Less,
    LessEqual,
    Log,
    LogicalAnd,
    Maximum,
    Minimum,
    Multiply,
    Range,
    ReduceMean,
    Reshape,
    Reverse,
    ScatterElementsUpdate,
    Select,
    ShapeOf,
    Slice,
    Squeeze,
    Subtract,
    Unsqueeze,
)
from irconv_opset.lowering.elementwise import ATAN2_OPS, atan2

from irconv_tf.dtypes import element_type, numpy_dtype
from irconv_tf.extractors._base import on_inputs

# TF DataType enum values used below.
_DT_FLOAT, _DT_INT32 = 1, 3


def _typed(ctx: ExtractContext, value: float, attr: str = "T", suffix: str = "const") -> OutPort:
    """A scalar constant of the element type named by the node's ``attr`` (e.g. ``T``)."""
    dtype = numpy_dtype(ctx.attrs.int(attr, _DT_FLOAT), ctx.where())
    return ctx.const(np.array(value, dtype=dtype), suffix=suffix)


# ---------------------------------------------------------------- x * f(y), 0 where x == 0
def _zero_where_x_is_zero(node: Node, ctx: ExtractContext, combine: Callable[[ExtractContext, OutPort, OutPort], OutPort]) -> list[OutPort]:
    """``combine(x, y)`` element-wise, but exactly 0 wherever x == 0 (whatever y is: 0, inf, NaN)."""
    x, y = ctx.input(0), ctx.input(1)
    zero = _typed(ctx, 0.0, suffix="zero")
    x_is_zero = ctx.op(Equal(), x, zero, suffix="x_is_zero")
    value = combine(ctx, x, y)
    return [ctx.op(Select(auto_broadcast="numpy"), x_is_zero, zero, value)]


def _x_log_y(ctx: ExtractContext, x: OutPort, y: OutPort) -> OutPort:
    return ctx.op(Multiply(), x, ctx.op(Log(), y, suffix="log_y"), suffix="product")


def _x_log1p_y(ctx: ExtractContext, x: OutPort, y: OutPort) -> OutPort:
    one_plus_y = ctx.op(Add(), y, _typed(ctx, 1.0, suffix="one"), suffix="one_plus_y")
    return ctx.op(Multiply(), x, ctx.op(Log(), one_plus_y, suffix="log1p_y"), suffix="product")


def _x_div_y(ctx: ExtractContext, x: OutPort, y: OutPort) -> OutPort:
    return ctx.op(Divide(m_pythondiv=False), x, y, suffix="quotient")


# ---------------------------------------------------------------- sequences and shapes
def _scalar(ctx: ExtractContext, port: OutPort, suffix: str) -> OutPort:
    """A one-element tensor (or a scalar) as a scalar."""
    return ctx.op(Reshape(special_zero=False), port, i64(ctx, np.zeros(0, np.int64), "scalar"), suffix=suffix)


@extractor("tf", "LinSpace", produces=[Range, Convert, Subtract, Divide, Multiply, Add, Select, Equal, Maximum, Reshape])
def _lin_space(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """LinSpace(start, stop, num): start + i * (stop - start) / (num - 1) for i < num - 1, then
    exactly ``stop`` last (TF's kernel); a single value is ``start``. ``num`` may be computed."""
    dtype_attr = ctx.attrs.int("T", _DT_FLOAT)
    out = element_type(dtype_attr, ctx.where())
    start = _scalar(ctx, ctx.input(0), "start")
    stop = _scalar(ctx, ctx.input(1), "stop")
    num = ctx.op(Convert(destination_type=ElementType.i64), _scalar(ctx, ctx.input(2), "num_scalar"), suffix="num")
    positions = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0, "zero"), num, i64(ctx, 1, "one"), suffix="i")
    # the divisor num - 1, at least 1 (num == 1 gives [start])
    last = ctx.op(Maximum(), ctx.op(Subtract(), num, i64(ctx, 1, "one_less")), i64(ctx, 1, "at_least"))
    is_last = ctx.op(Equal(), positions, last, suffix="is_last")
    index = ctx.op(Convert(destination_type=out), positions, suffix="index")
    divisor = ctx.op(Convert(destination_type=out), last, suffix="divisor")
    step = ctx.op(Divide(m_pythondiv=False), ctx.op(Subtract(), stop, start, suffix="span"), divisor, suffix="step")
    values = ctx.op(Add(), start, ctx.op(Multiply(), index, step, suffix="offsets"), suffix="values")
    return [ctx.op(Select(auto_broadcast="numpy"), is_last, stop, values)]


@extractor("tf", "InvertPermutation", produces=[ShapeOf, Range, ScatterElementsUpdate, Reshape])
def _invert_permutation(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """y[x[i]] = i: scatter the positions 0..n-1 to the indices x (every slot is written once)."""
    out = element_type(ctx.attrs.int("T", _DT_INT32), ctx.where())
    x = ctx.input(0)
    size = _scalar(ctx, ctx.op(ShapeOf(output_type=out), x, suffix="length"), "size")
    positions = ctx.op(
        Range(output_type=out), _typed(ctx, 0, suffix="zero"), size, _typed(ctx, 1, suffix="one"), suffix="positions"
    )
    return [ctx.op(ScatterElementsUpdate(reduction="none"), x, x, positions, i64(ctx, 0, "axis"))]


@extractor("tf", "BroadcastArgs", produces=[ShapeOf, Broadcast, Concat, Equal, Select, Convert, Maximum, Subtract])
def _broadcast_args(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The broadcast of two shape vectors: both left-padded with 1s to the longer length, then
    per position the other dim where one is 1 (so a 0 against a 1 gives 0, as in TF)."""
    out = element_type(ctx.attrs.int("T", _DT_INT32), ctx.where())
    s0, s1 = ctx.input(0), ctx.input(1)
    one = _typed(ctx, 1, suffix="one")
    len0 = ctx.op(ShapeOf(output_type=ElementType.i64), s0, suffix="len0")
    len1 = ctx.op(ShapeOf(output_type=ElementType.i64), s1, suffix="len1")
    zero = i64(ctx, 0, "zero")

    def padded(shape: OutPort, own: OutPort, other: OutPort, tag: str) -> OutPort:
        missing = ctx.op(Maximum(), ctx.op(Subtract(), other, own, suffix=f"diff{tag}"), zero, suffix=f"missing{tag}")
        ones = ctx.op(Broadcast(mode="numpy"), one, missing, suffix=f"ones{tag}")
        converted = ctx.op(Convert(destination_type=out), shape, suffix=f"shape{tag}")
        return ctx.op(Concat(axis=0), ones, converted, suffix=f"padded{tag}")

    a, b = padded(s0, len0, len1, "0"), padded(s1, len1, len0, "1")
    a_is_one = ctx.op(Equal(), a, one, suffix="s0_is_one")
    return [ctx.op(Select(auto_broadcast="numpy"), a_is_one, b, a)]


@extractor("tf", "ShapeN", produces=[ShapeOf])
def _shape_n(node: Node, ctx: ExtractContext) -> list[OutPort]:
    out = element_type(ctx.attrs.int("out_type", _DT_INT32), ctx.where())
    return [ctx.op(ShapeOf(output_type=out), ctx.input(i), suffix=f"shape{i}") for i in range(len(ctx.inputs))]


@extractor("tf", "CheckNumericsV2")
def _identity_first(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.input(0)]


# ---------------------------------------------------------------- bucketing and reversal
@extractor("tf", "Bucketize", produces=[Bucketize, Broadcast, Convert, ShapeOf])
def _bucketize(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """TF's bucket is the count of boundaries <= x (intervals [b[i-1], b[i])), as int32.
    TF compares x with the float32 boundaries: integers are compared as floats, doubles with
    the boundaries widened, which is what converting does here.
    """
    dtype = numpy_dtype(ctx.attrs.int("T", _DT_FLOAT), ctx.where())
    boundaries = np.asarray(ctx.attrs.floats("boundaries", []), dtype=np.float32)
    x = ctx.input(0)
    if boundaries.size == 0:
        shape = ctx.op(ShapeOf(output_type=ElementType.i64), x, suffix="shape")
        return [ctx.op(Broadcast(mode="numpy"), ctx.const(np.array(0, np.int32), suffix="zero"), shape)]
    if np.issubdtype(dtype, np.floating):
        bounds = ctx.const(boundaries.astype(dtype), suffix="boundaries")
    else:
        x = ctx.op(Convert(destination_type=ElementType.f32), x, suffix="as_float")
        bounds = ctx.const(boundaries, suffix="boundaries")
    return [ctx.op(Bucketize(output_type=ElementType.i32, with_right_bound=False), x, bounds)]


@extractor("tf", "Reverse", produces=[Reverse])
def _reverse(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Reverse (v1): a bool per dimension; a constant mask becomes the axis list."""
    mask = ctx.input_value(1)
    if mask is None:
        return [ctx.op(Reverse(mode="mask"), ctx.input(0), ctx.input(1))]
    axes = np.flatnonzero(np.reshape(mask, [-1]).astype(bool))
    if axes.size == 0:
        return [ctx.input(0)]
    return [ctx.op(Reverse(mode="index"), ctx.input(0), i64(ctx, axes, "axes"))]


@extractor("tf", "MatrixDiag", produces=[ShapeOf, Range, Equal, Unsqueeze, Select, Gather])
def _matrix_diag(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """[..., N] -> [..., N, N]: the diagonal where row == column, 0 elsewhere (Select, so an
    inf or NaN on the diagonal does not leak into the rest of its row)."""
    x = ctx.input(0)
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), x, suffix="dims")
    n = ctx.op(Gather(batch_dims=0), dims, i64(ctx, -1, "last"), i64(ctx, 0, "axis"), suffix="n")
    positions = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0, "zero"), n, i64(ctx, 1, "one"), suffix="pos")
    rows = ctx.op(Unsqueeze(), positions, i64(ctx, [1], "column_axis"), suffix="rows")
    on_diagonal = ctx.op(Equal(), rows, positions, suffix="on_diagonal")
    column = ctx.op(Unsqueeze(), x, i64(ctx, [-1], "last_axis"), suffix="column")
    return [ctx.op(Select(auto_broadcast="numpy"), on_diagonal, column, _typed(ctx, 0, suffix="zero_value"))]


# ---------------------------------------------------------------- diagonal bands (V2/V3)
# TF's ``align`` for a band of diagonals: (superdiagonals right-aligned, subdiagonals
# right-aligned). The V2 ops always align left; V3 defaults to RIGHT_LEFT.
_ALIGNMENTS = {
    "LEFT_LEFT": (False, False),
    "LEFT_RIGHT": (False, True),
    "RIGHT_LEFT": (True, False),
    "RIGHT_RIGHT": (True, True),
}


def _diag_band(ctx: ExtractContext, idx: int) -> tuple[int, int]:
    """The diagonal offsets ``k`` (input ``idx``): a constant scalar or ``[lo, hi]``."""
    value = ctx.input_value(idx)
    if value is None:
        raise ConversionError(
            f"{ctx.where()}: the diagonal offset k (input {idx}) must be a constant; a computed k is not supported"
        )
    k = np.asarray(value).reshape(-1).astype(np.int64)
    if k.size not in (1, 2):
        raise ConversionError(f"{ctx.where()}: k must be a scalar or [lo, hi], got {k.tolist()}")
    lo, hi = int(k[0]), int(k[-1])
    if lo > hi:
        raise ConversionError(f"{ctx.where()}: k = [{lo}, {hi}] is not a band (lo > hi)")
    return lo, hi


def _alignment(ctx: ExtractContext, v3: bool) -> tuple[bool, bool]:
    if not v3:
        return _ALIGNMENTS["LEFT_LEFT"]
    align = ctx.attrs.str("align", "RIGHT_LEFT")
    if align not in _ALIGNMENTS:
        raise ConversionError(f"{ctx.where()}: align {quoted(align)} is not supported")
    return _ALIGNMENTS[align]


def _i64_scalar(ctx: ExtractContext, port: OutPort, suffix: str) -> OutPort:
    scalar = ctx.op(Reshape(special_zero=False), port, i64(ctx, np.zeros(0, np.int64), "scalar"))
    return ctx.op(Convert(destination_type=ElementType.i64), scalar, suffix=suffix)


def _dims(ctx: ExtractContext, x: OutPort, suffix: str) -> tuple[OutPort, OutPort, OutPort, OutPort]:
    """``shape(x)`` split as (all dims, the batch dims before the last two, dim -2, dim -1),
    the last two as i64 scalars."""
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), x, suffix=f"{suffix}_dims")
    batch = ctx.op(
        Slice(), dims, i64(ctx, [0], "begin"), i64(ctx, [-2], "batch_end"), i64(ctx, [1], "step"),
        suffix=f"{suffix}_batch",
    )  # fmt: skip
    axis = i64(ctx, 0, "axis0")
    second = ctx.op(Gather(batch_dims=0), dims, i64(ctx, -2, "second_last"), axis, suffix=f"{suffix}_rows")
    last = ctx.op(Gather(batch_dims=0), dims, i64(ctx, -1, "last"), axis, suffix=f"{suffix}_cols")
    return dims, batch, second, last


def _last_dim(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    dims = ctx.op(ShapeOf(output_type=ElementType.i64), x, suffix=f"{suffix}_dims")
    return ctx.op(Gather(batch_dims=0), dims, i64(ctx, -1, "last"), i64(ctx, 0, "axis0"), suffix=suffix)


def _diag_length(ctx: ExtractContext, d: OutPort, rows: OutPort, cols: OutPort, tag: str) -> OutPort:
    """The length of diagonal ``d`` in a rows x cols matrix: min(rows + min(d, 0), cols - max(d, 0))."""
    zero = i64(ctx, 0, "zero")
    below = ctx.op(Add(), rows, ctx.op(Minimum(), d, zero, suffix=f"{tag}_neg_part"), suffix=f"{tag}_row_room")
    above = ctx.op(Subtract(), cols, ctx.op(Maximum(), d, zero, suffix=f"{tag}_pos_part"), suffix=f"{tag}_col_room")
    return ctx.op(Minimum(), below, above, suffix=f"{tag}_diag_len")


def _alignment_offset(
    ctx: ExtractContext, d: OutPort, length: OutPort, max_len: OutPort, align: tuple[bool, bool]
) -> OutPort | None:
    """How far diagonal ``d``'s values start into its row of ``max_len``: ``max_len - length``
    for a right-aligned diagonal, 0 for a left-aligned one (None: all left-aligned)."""
    super_right, sub_right = align
    if not super_right and not sub_right:
        return None
    shift = ctx.op(Subtract(), max_len, length, suffix="right_shift")
    if super_right and sub_right:
        return shift
    zero = i64(ctx, 0, "zero")
    right = ctx.op(GreaterEqual() if super_right else Less(), d, zero, suffix="right_aligned")
    return ctx.op(Select(auto_broadcast="numpy"), right, shift, zero, suffix="offset")


def _clamped(ctx: ExtractContext, index: OutPort, size: OutPort, suffix: str) -> OutPort:
    """``index`` within [0, size - 1] (positions outside the band, later replaced)."""
    top = ctx.op(Subtract(), size, i64(ctx, 1, "one"), suffix=f"{suffix}_top")
    low = ctx.op(Minimum(), index, top, suffix=f"{suffix}_below_top")
    return ctx.op(Maximum(), low, i64(ctx, 0, "zero"), suffix=suffix)


def _band_from_diagonals(
    ctx: ExtractContext,
    diagonal: OutPort,
    rows: OutPort,
    cols: OutPort,
    lo: int,
    hi: int,
    align: tuple[bool, bool],
) -> tuple[OutPort, OutPort]:
    """A rows x cols matrix (per batch) with the diagonals lo..hi read from ``diagonal``
    ([..., L] for one diagonal, [..., hi - lo + 1, L] for a band, row 0 the diagonal hi).

    Returns (in_band [rows, cols] bool, the gathered values [..., rows, cols]); values
    outside the band are arbitrary.
    """
    zero, one = i64(ctx, 0, "zero"), i64(ctx, 1, "one")
    i = ctx.op(Range(output_type=ElementType.i64), zero, rows, one, suffix="row_positions")
    j = ctx.op(Range(output_type=ElementType.i64), zero, cols, one, suffix="col_positions")
    i = ctx.op(Unsqueeze(), i, i64(ctx, [1], "column_axis"), suffix="row_column")
    d = ctx.op(Subtract(), j, i, suffix="diag_of_element")  # [rows, cols]
    position = ctx.op(Minimum(), i, j, suffix="position")  # along its diagonal
    if lo == hi:
        in_band = ctx.op(Equal(), d, i64(ctx, lo, "k"), suffix="in_band")
        max_len = _last_dim(ctx, diagonal, "max_len")
        index = _clamped(ctx, position, max_len, "index")
        values = ctx.op(Gather(batch_dims=0), diagonal, index, i64(ctx, -1, "last_axis"), suffix="values")
        return in_band, values
    at_least = ctx.op(GreaterEqual(), d, i64(ctx, lo, "lo"), suffix="above_lo")
    at_most = ctx.op(LessEqual(), d, i64(ctx, hi, "hi"), suffix="below_hi")
    in_band = ctx.op(LogicalAnd(), at_least, at_most, suffix="in_band")
    _, batch, _, max_len = _dims(ctx, diagonal, "diagonal")
    max_len_vec = ctx.op(Unsqueeze(), max_len, i64(ctx, [0], "axis0_vec"), suffix="max_len_vec")
    total = ctx.op(Multiply(), max_len_vec, i64(ctx, [hi - lo + 1], "num_diags"), suffix="total")
    flat_shape = ctx.op(Concat(axis=0), batch, total, suffix="flat_shape")
    flat = ctx.op(Reshape(special_zero=False), diagonal, flat_shape, suffix="flat_diagonals")
    column = position
    offset = _alignment_offset(ctx, d, _diag_length(ctx, d, rows, cols, "element"), max_len, align)
    if offset is not None:
        column = ctx.op(Add(), position, offset, suffix="column")
    row = ctx.op(Subtract(), i64(ctx, hi, "hi"), d, suffix="diag_row")
    index = ctx.op(Add(), ctx.op(Multiply(), row, max_len, suffix="row_start"), column, suffix="flat_index")
    index = _clamped(ctx, index, ctx.op(Squeeze(), total, i64(ctx, [0], "axis0")), "index")
    values = ctx.op(Gather(batch_dims=0), flat, index, i64(ctx, -1, "last_axis"), suffix="values")
    return in_band, values


def _output_dims(ctx: ExtractContext, max_len: OutPort, lo: int, hi: int) -> tuple[OutPort, OutPort]:
    """MatrixDiagV2/V3's (num_rows, num_cols): -1 means the smallest that fits; both -1 a square."""
    min_rows = ctx.op(Add(), max_len, i64(ctx, -min(hi, 0), "extra_rows"), suffix="min_rows")
    min_cols = ctx.op(Add(), max_len, i64(ctx, max(lo, 0), "extra_cols"), suffix="min_cols")
    rows_value, cols_value = ctx.input_value(2), ctx.input_value(3)
    if rows_value is not None and cols_value is not None:
        given_rows = int(np.asarray(rows_value).reshape(-1)[0])
        given_cols = int(np.asarray(cols_value).reshape(-1)[0])
        if given_rows == -1 and given_cols == -1:
            square = ctx.op(Maximum(), min_rows, min_cols, suffix="square")
            return square, square
        rows = min_rows if given_rows == -1 else i64(ctx, given_rows, "num_rows")
        cols = min_cols if given_cols == -1 else i64(ctx, given_cols, "num_cols")
        return rows, cols
    num_rows = _i64_scalar(ctx, ctx.input(2), "num_rows")
    num_cols = _i64_scalar(ctx, ctx.input(3), "num_cols")
    minus_one = i64(ctx, -1, "minus_one")
    rows_missing = ctx.op(Equal(), num_rows, minus_one, suffix="rows_missing")
    cols_missing = ctx.op(Equal(), num_cols, minus_one, suffix="cols_missing")
    square = ctx.op(Maximum(), min_rows, min_cols, suffix="square")
    select = Select(auto_broadcast="numpy")
    inferred_rows = ctx.op(select, cols_missing, square, min_rows, suffix="inferred_rows")
    inferred_cols = ctx.op(select, rows_missing, square, min_cols, suffix="inferred_cols")
    rows = ctx.op(select, rows_missing, inferred_rows, num_rows, suffix="rows")
    cols = ctx.op(select, cols_missing, inferred_cols, num_cols, suffix="cols")
    return rows, cols


def _matrix_diag_v2(node: Node, ctx: ExtractContext, v3: bool) -> list[OutPort]:
    """MatrixDiagV2/V3(diagonal, k, num_rows, num_cols, padding_value): the diagonals k of a
    num_rows x num_cols matrix (per batch) from ``diagonal``, padding_value elsewhere."""
    lo, hi = _diag_band(ctx, 1)
    align = _alignment(ctx, v3)
    diagonal = ctx.input(0)
    rows, cols = _output_dims(ctx, _last_dim(ctx, diagonal, "max_len"), lo, hi)
    in_band, values = _band_from_diagonals(ctx, diagonal, rows, cols, lo, hi, align)
    return [ctx.op(Select(auto_broadcast="numpy"), in_band, values, ctx.input(4))]


def _matrix_set_diag(node: Node, ctx: ExtractContext, version: int) -> list[OutPort]:
    """MatrixSetDiag(input, diagonal) and V2/V3(input, diagonal, k): ``input`` with its
    diagonals k replaced by ``diagonal``."""
    lo, hi = (0, 0) if version == 1 else _diag_band(ctx, 2)
    align = _alignment(ctx, version == 3)
    x = ctx.input(0)
    _, _, rows, cols = _dims(ctx, x, "input")
    in_band, values = _band_from_diagonals(ctx, ctx.input(1), rows, cols, lo, hi, align)
    return [ctx.op(Select(auto_broadcast="numpy"), in_band, values, x)]


def _matrix_diag_part(node: Node, ctx: ExtractContext, version: int) -> list[OutPort]:
    """MatrixDiagPart(input) and V2/V3(input, k, padding_value): the diagonals k of the
    innermost matrices, [..., L] for one, [..., hi - lo + 1, L] for a band (row 0 the
    diagonal hi, shorter diagonals padded as ``align`` says)."""
    lo, hi = (0, 0) if version == 1 else _diag_band(ctx, 1)
    align = _alignment(ctx, version == 3)
    x = ctx.input(0)
    _, batch, rows, cols = _dims(ctx, x, "input")
    zero, one = i64(ctx, 0, "zero"), i64(ctx, 1, "one")
    max_len = ctx.op(
        Minimum(),
        ctx.op(Add(), rows, i64(ctx, min(hi, 0), "hi_neg_part"), suffix="row_room"),
        ctx.op(Subtract(), cols, i64(ctx, max(lo, 0), "lo_pos_part"), suffix="col_room"),
        suffix="max_len_signed",
    )
    max_len = ctx.op(Maximum(), max_len, zero, suffix="max_len")
    # d per output row (a column [num_diags, 1]), n the position in the row
    d = i64(ctx, np.arange(hi, lo - 1, -1, dtype=np.int64).reshape(-1, 1), "diags")
    n = ctx.op(Range(output_type=ElementType.i64), zero, max_len, one, suffix="slots")
    position = n
    offset = _alignment_offset(ctx, d, _diag_length(ctx, d, rows, cols, "diag"), max_len, align)
    if offset is not None:
        position = ctx.op(Subtract(), n, offset, suffix="position")
    i = ctx.op(Add(), position, ctx.op(Maximum(), ctx.op(Subtract(), zero, d), zero), suffix="row")
    j = ctx.op(Add(), position, ctx.op(Maximum(), d, zero), suffix="col")
    index = ctx.op(Add(), ctx.op(Multiply(), i, cols, suffix="row_start"), j, suffix="flat_index")
    size = ctx.op(Multiply(), rows, cols, suffix="size")
    index = _clamped(ctx, index, size, "index")
    size_vec = ctx.op(Unsqueeze(), size, i64(ctx, [0], "axis0_vec"), suffix="size_vec")
    flat_shape = ctx.op(Concat(axis=0), batch, size_vec, suffix="flat_shape")
    flat = ctx.op(Reshape(special_zero=False), x, flat_shape, suffix="flat_input")
    values = ctx.op(Gather(batch_dims=0), flat, index, i64(ctx, -1, "last_axis"), suffix="values")
    if lo == hi:  # every slot is on the diagonal: no padding
        return [ctx.op(Squeeze(), values, i64(ctx, [-2], "diag_axis"))]
    length = _diag_length(ctx, d, rows, cols, "diag")
    valid = ctx.op(
        LogicalAnd(),
        ctx.op(GreaterEqual(), position, zero, suffix="after_start"),
        ctx.op(Less(), position, length, suffix="before_end"),
        suffix="valid",
    )
    return [ctx.op(Select(auto_broadcast="numpy"), valid, values, ctx.input(2))]


@extractor("tf", "AdjustContrastv2", produces=[ReduceMean, Subtract, Multiply, Add, Convert])
def _adjust_contrast_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """(x - mean) * factor + mean, the mean over the H and W axes of [..., H, W, C] per channel;
    computed in float32 (TF converts half images first) and converted back."""
    out = element_type(ctx.attrs.int("T", _DT_FLOAT), ctx.where())
    f32 = ElementType.f32
    x = ctx.input(0)
    if out != f32:
        x = ctx.op(Convert(destination_type=f32), x, suffix="as_float")
    factor = ctx.input(1)
    if ctx.input_type(1) != f32:
        factor = ctx.op(Convert(destination_type=f32), factor, suffix="factor")
    mean = ctx.op(ReduceMean(keep_dims=True), x, i64(ctx, [-3, -2], "spatial_axes"), suffix="mean")
    centred = ctx.op(Subtract(), x, mean, suffix="centred")
    result = ctx.op(Add(), ctx.op(Multiply(), centred, factor, suffix="scaled"), mean, suffix="adjusted")
    if out != f32:
        result = ctx.op(Convert(destination_type=out), result, suffix="result")
    return [result]


# ----------------------------------------------------------------- atan2, shifts
@extractor("tf", "Atan2", produces=ATAN2_OPS)
def _atan2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [atan2(ctx, ctx.input(0), ctx.input(1))]


@extractor("tf", "Xlogy", produces=[Equal, Log, Multiply, Select])
def _xlogy(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _zero_where_x_is_zero(node, ctx, _x_log_y)


@extractor("tf", "Xlog1py", produces=[Equal, Add, Log, Multiply, Select])
def _xlog1py(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _zero_where_x_is_zero(node, ctx, _x_log1p_y)


@extractor("tf", "Xdivy", produces=[Equal, Divide, Select])
def _xdivy(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _zero_where_x_is_zero(node, ctx, _x_div_y)


@extractor("tf", "MatrixDiagV2", produces=[Range, Gather, Convert, Equal, Select, Add, Concat, GreaterEqual, LessEqual, LogicalAnd, Maximum, Minimum, Multiply, Reshape, ShapeOf, Slice, Squeeze, Subtract, Unsqueeze])
def _matrix_diag_v2_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_diag_v2(node, ctx, False)


@extractor("tf", "MatrixDiagV3", produces=[Range, Gather, Convert, Equal, Select, Add, Concat, GreaterEqual, Less, LessEqual, LogicalAnd, Maximum, Minimum, Multiply, Reshape, ShapeOf, Slice, Squeeze, Subtract, Unsqueeze])
def _matrix_diag_v3(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_diag_v2(node, ctx, True)


@extractor("tf", "MatrixDiagPart", produces=[Reshape, Range, Gather, Squeeze, Add, Concat, Maximum, Minimum, Multiply, ShapeOf, Slice, Subtract, Unsqueeze])
def _matrix_diag_part_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_diag_part(node, ctx, 1)


@extractor("tf", "MatrixDiagPartV2", produces=[Reshape, Range, Gather, Select, Add, Concat, GreaterEqual, Less, LogicalAnd, Maximum, Minimum, Multiply, ShapeOf, Slice, Squeeze, Subtract, Unsqueeze])
def _matrix_diag_part_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_diag_part(node, ctx, 2)


@extractor("tf", "MatrixDiagPartV3", produces=[Reshape, Range, Gather, Select, Add, Concat, GreaterEqual, Less, LogicalAnd, Maximum, Minimum, Multiply, ShapeOf, Slice, Squeeze, Subtract, Unsqueeze])
def _matrix_diag_part_v3(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_diag_part(node, ctx, 3)


@extractor("tf", "MatrixSetDiag", produces=[Range, Gather, Equal, Select, Maximum, Minimum, ShapeOf, Slice, Subtract, Unsqueeze])
def _matrix_set_diag_op(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_set_diag(node, ctx, 1)


@extractor("tf", "MatrixSetDiagV2", produces=[Range, Gather, Equal, Select, Add, Concat, GreaterEqual, LessEqual, LogicalAnd, Maximum, Minimum, Multiply, Reshape, ShapeOf, Slice, Squeeze, Subtract, Unsqueeze])
def _matrix_set_diag_v2(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_set_diag(node, ctx, 2)


@extractor("tf", "MatrixSetDiagV3", produces=[Range, Gather, Equal, Select, Add, Concat, GreaterEqual, Less, LessEqual, LogicalAnd, Maximum, Minimum, Multiply, Reshape, ShapeOf, Slice, Squeeze, Subtract, Unsqueeze])
def _matrix_set_diag_v3(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _matrix_set_diag(node, ctx, 3)


@extractor("tf", "LeftShift", produces=[BitwiseLeftShift])
def _left_shift(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, BitwiseLeftShift())


@extractor("tf", "RightShift", produces=[BitwiseRightShift])
def _right_shift(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return on_inputs(ctx, BitwiseRightShift())
