"""Full-integer operators computed as LiteRT's int8 kernels compute them.

A quantized activation tensor is carried in the IR as its real values, each on its grid
(the loader's FakeQuantize). Computing an operator in f32 on those real values and
rounding at the next FakeQuantize agrees with LiteRT's integer result except where the
exact value lies within float error of a half step; over a deep network those few
differences travel and grow (measured in ``docs/tflite.md``). So the operators below take
the integers behind their inputs (``q - zero_point``: the real value times ``1/scale``,
rounded) and compute what LiteRT's default CPU kernels (XNNPACK, its default delegate)
compute, in float arithmetic that is exact:

- weighted operators (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED): the int32 accumulator
  ``sum (q_in - zp_in) * q_w + bias`` (exact in f32 while below 2^24), times the f32
  multiplier ``s_in * s_w / s_out``, rounded half to even;
- MUL: ``(q_a - zp_a) * (q_b - zp_b)`` times ``s_a * s_b / s_out``, rounded half to even;
- ADD: XNNPACK's fixed-point sum ``(m_a * (q_a - zp_a) + m_b * (q_b - zp_b) + 2^(k-1)) >> k``
  with 21-bit multipliers, split so that every f32 step is exact;
- MEAN: the integer sum times ``s_in / (s_out * n)``, rounded half to even;
- LOGISTIC, HARD_SWISH: a table of LiteRT's kernel over the input's integers
  (``integer_tables``), read with Gather.

Each then clamps to the output's integer range narrowed by the fused activation and
returns real values (``(q - zp_out) * s_out``), already on the output's grid: the loader's
FakeQuantize on that tensor is left out (``ON_GRID``).
OpenVINO cannot run these in its int8 kernels: they compute in f32 (``docs/tflite.md``
says what that costs; ``--tflite-int8-kernels`` keeps the FakeQuantize form those kernels
run). Operators whose tensors are not all per-tensor int8/uint8 keep the float form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from irconv import ExtractContext, MetaKey
from irconv.frontend import i32, i64
from irconv.graph import OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Clamp,
    Concat,
    Convert,
    DepthToSpace,
    Floor,
    Gather,
    MaxPool,
    Multiply,
    Pad,
    ReduceSum,
    Reshape,
    Round,
    Slice,
    SpaceToDepth,
    Squeeze,
    StridedSlice,
    Transpose,
    Unsqueeze,
)

from irconv_tflite.extractors._common import input_tensor, source
from irconv_tflite.extractors.integer_tables import GridLike
from irconv_tflite.loader import quantized
from irconv_tflite.model import Tensor
from irconv_tflite.options import INT8_KERNELS
from irconv_tflite.schema.tflite_generated import TensorType

#: Nodes whose output is exactly on a grid, by id -> (scale, zero point): an integer form's
#: real values, or values an operator moved without computing (see ``MOVES_VALUES``). The
#: FakeQuantize the loader puts on such a tensor's grid would change nothing, and is left out.
ON_GRID: MetaKey[dict[int, tuple[float, int]]] = MetaKey(
    "tflite.on_grid", dict, default=dict, doc="node id -> the grid (scale, zero point) its output lies on exactly"
)

#: Ops whose outputs are some of their data inputs' elements (input 0; Concat: every input),
#: so values on a grid stay on it. Pad adds zeros: on every grid that holds zero.
MOVES_VALUES = (
    Reshape,
    Transpose,
    Squeeze,
    Unsqueeze,
    StridedSlice,
    Slice,
    MaxPool,
    Pad,
    Gather,
    DepthToSpace,
    Floor,
    SpaceToDepth,
    Concat,
)

#: the ops the integer forms add
INTEGER_OPS = [Add, Clamp, Convert, Floor, Gather, Multiply, ReduceSum, Round]

_RANGES = {TensorType.INT8: (-128, 127), TensorType.UINT8: (0, 255)}
#: an accumulator or bias beyond this is not exact in f32
_EXACT_F32 = float(1 << 24)


@dataclass(frozen=True, slots=True)
class Grid:
    """A per-tensor int8/uint8 grid: ``real = scale * (q - zero)``, ``low <= q <= high``."""

    scale: np.float32
    zero: int
    low: int
    high: int

    def quantize(self, real: float) -> int:
        """``real`` on this grid as XNNPACK rounds a bound (half to even, clamped)."""
        return int(np.clip(np.rint(np.float32(real) / self.scale + np.float32(self.zero)), self.low, self.high))


def _grid(tensor: Tensor | None) -> Grid | None:
    if tensor is None or tensor.type not in _RANGES:
        return None
    grid = quantized(tensor)
    if grid is None or np.size(grid.scale) != 1:
        return None
    low, high = _RANGES[tensor.type]
    return Grid(np.float32(np.asarray(grid.scale).reshape(())), int(np.asarray(grid.zero_point).reshape(())), low, high)


def grids(ctx: ExtractContext, inputs: int) -> tuple[list[Grid], Grid] | None:
    """The grids of the first ``inputs`` inputs and of the output, when every one is a
    per-tensor int8/uint8 grid (a full-integer operator); None otherwise, and None for
    every operator when ``--tflite-int8-kernels`` asks for the FakeQuantize form."""
    if ctx.options.get(INT8_KERNELS):
        return None
    found = [_grid(input_tensor(ctx, i)) for i in range(inputs)]
    outputs = source(ctx).outputs
    out = _grid(outputs[0]) if outputs else None
    if out is None or any(g is None for g in found):
        return None
    return [g for g in found if g is not None], out


def integers(ctx: ExtractContext, idx: int, grid: Grid) -> OutPort:
    """Input ``idx``'s integers less their zero point (f32): its real values times 1/scale, rounded."""
    scaled = ctx.op(
        Multiply(),
        ctx.input(idx),
        ctx.const(np.float32(1) / grid.scale, suffix=f"inv_scale{idx}"),
        suffix=f"unscaled{idx}",
    )
    return ctx.op(Round(mode="half_to_even"), scaled, suffix=f"integers{idx}")


def activation_bounds(ctx: ExtractContext, out: Grid) -> tuple[int, int] | None:
    """The output's integer range narrowed by the fused activation (None: TANH, not a range)."""
    kind = ctx.attrs.choice("fused_activation_function", ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH"], "NONE")
    ranges = {"NONE": (None, None), "RELU": (0.0, None), "RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0)}
    if kind not in ranges:
        return None
    low, high = ranges[kind]
    return (
        out.low if low is None else max(out.low, out.quantize(low)),
        out.high if high is None else min(out.high, out.quantize(high)),
    )


def to_real(ctx: ExtractContext, rounded: OutPort, out: Grid, bounds: tuple[int, int]) -> OutPort:
    """Integers less the output zero point, clamped to ``bounds``, as real values."""
    clamped = ctx.op(
        Clamp(min=float(bounds[0] - out.zero), max=float(bounds[1] - out.zero)), rounded, suffix="saturated"
    )
    return on_grid(ctx, ctx.op(Multiply(), clamped, ctx.const(out.scale, suffix="out_scale"), suffix="real"), out)


def on_grid(ctx: ExtractContext, port: OutPort, grid: Grid) -> OutPort:
    """Mark ``port``'s values as exactly on ``grid`` (see ``ON_GRID``)."""
    ctx.graph.meta.setdefault(ON_GRID)[port.node.id] = (float(grid.scale), grid.zero)
    return port


def already_on_grid(ctx: ExtractContext, port: OutPort, scale: float, zero: int) -> bool:
    """Whether ``port``'s values lie exactly on the grid (``scale``, ``zero``): marked so,
    or moved by an op of ``MOVES_VALUES`` from values marked so (then marked too)."""
    marks = ctx.graph.meta.setdefault(ON_GRID)
    key = (float(np.float32(scale)), int(zero))
    node = port.node
    if marks.get(node.id) == key:
        return True
    if not isinstance(node.op, MOVES_VALUES):
        return False
    data = range(node.num_inputs()) if isinstance(node.op, Concat) else range(1)
    sources = [node.in_port(i).get_source() for i in data]
    if any(source is None or marks.get(source.node.id) != key for source in sources):
        return False
    if isinstance(node.op, Pad) and node.has_input(3):
        pad_value = node.in_port(3).constant(shape_derived=False)
        if pad_value is None or np.any(pad_value != 0):
            return False
    marks[node.id] = key
    return True


def requantized(
    ctx: ExtractContext, accumulator: OutPort, multiplier: np.ndarray, out: Grid, bounds: tuple[int, int]
) -> OutPort:
    """``rint(accumulator * multiplier)`` on the output grid. The accumulator is rounded
    first (an identity on its integers) so that no graph transformation folds the
    multiplier into the weights, which would round every product."""
    exact = ctx.op(Round(mode="half_to_even"), accumulator, suffix="accumulator")
    scaled = ctx.op(Multiply(), exact, ctx.const(multiplier.astype(np.float32), suffix="multiplier"), suffix="scaled")
    return to_real(ctx, ctx.op(Round(mode="half_to_even"), scaled, suffix="rounded"), out, bounds)


@dataclass(frozen=True, slots=True)
class WeightedInteger:
    """A full-integer CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED: its integer weights
    (``q_w - zp_w``, f32, in the file's layout), multiplier per output channel (the last
    axis of the weights' first dimension for convolutions: see ``output_axis``), bias."""

    data: Grid
    out: Grid
    bounds: tuple[int, int]
    weights: np.ndarray
    multiplier: np.ndarray
    bias: np.ndarray | None

    @staticmethod
    def of(ctx: ExtractContext, output_axis: int, bias_index: int) -> WeightedInteger | None:
        found = grids(ctx, 1)
        tensor = input_tensor(ctx, 1)
        if found is None or tensor is None or tensor.data is None or tensor.type not in _RANGES:
            return None
        weight_grid = quantized(tensor)
        if weight_grid is None:
            return None
        (data,), out = found
        bounds = activation_bounds(ctx, out)
        if bounds is None:
            return None
        if tensor.shape is None:
            return None
        channels = tensor.shape[output_axis]
        scale = np.asarray(weight_grid.scale, np.float32).reshape(-1)
        zero = np.asarray(weight_grid.zero_point, np.float32).reshape(-1)
        if channels is None or scale.size not in (1, channels):
            return None
        shape = [1] * len(tensor.shape)
        shape[output_axis] = scale.size
        weights = np.array(tensor.data, np.float32)  # a copy, made the integers in place
        weights -= zero.reshape(shape)
        bias = None
        if ctx.has_input(bias_index):
            bias_tensor = input_tensor(ctx, bias_index)
            if bias_tensor is None or bias_tensor.data is None or bias_tensor.type != TensorType.INT32:
                return None
            bias = np.asarray(bias_tensor.data, np.int64)
        # as XNNPACK computes it: (input_scale * kernel_scale) / output_scale in f32
        multiplier = (data.scale * scale) / out.scale
        return WeightedInteger(data, out, bounds, weights, np.broadcast_to(multiplier, (channels,)), bias)

    def finish(self, ctx: ExtractContext, accumulated: OutPort) -> OutPort:
        """The weighted sum (of ``integers`` and ``weights``) plus bias, requantized.

        XNNPACK converts the int32 sum to f32 once. A bias of 2^24 or more is not exact in
        f32, so it is added in two parts: its low 16 bits (exact), then the rest (a
        multiple of 2^16, exact), which rounds the exact sum once, as XNNPACK does. A
        Round after each keeps graph transformations from merging the two."""
        if self.bias is not None:
            low = (self.bias + (1 << 15)) % (1 << 16) - (1 << 15)
            high = self.bias - low
            if np.any(high != 0) and np.abs(self.bias).max() >= _EXACT_F32:
                accumulated = ctx.op(
                    Add(), accumulated, ctx.const(low.astype(np.float32), suffix="bias_low"), suffix="bias_low"
                )
                accumulated = ctx.op(Round(mode="half_to_even"), accumulated, suffix="bias_low_exact")
                accumulated = ctx.op(
                    Add(), accumulated, ctx.const(high.astype(np.float32), suffix="bias_high"), suffix="bias"
                )
            else:
                accumulated = ctx.op(
                    Add(), accumulated, ctx.const(self.bias.astype(np.float32), suffix="integer_bias"), suffix="bias"
                )
        return requantized(ctx, accumulated, self.multiplier, self.out, self.bounds)


def multiply(ctx: ExtractContext) -> OutPort | None:
    """MUL: ``rint((q_a - zp_a) * (q_b - zp_b) * (s_a * s_b / s_out))``."""
    found = grids(ctx, 2)
    bounds = None if found is None else activation_bounds(ctx, found[1])
    if found is None or bounds is None:
        return None
    (a, b), out = found
    product = ctx.op(Multiply(), integers(ctx, 0, a), integers(ctx, 1, b), suffix="product")
    multiplier = np.asarray((a.scale * b.scale) / out.scale, np.float32)
    return requantized(ctx, product, multiplier, out, bounds)


def _add_multiplier(scale: np.float32, shift: int) -> int:
    """scale * 2^shift rounded half to even (XNNPACK's qs8 add; scale > 0)."""
    return int(np.rint(np.float32(scale) * np.float32(2.0**shift)))


def add(ctx: ExtractContext) -> OutPort | None:
    """ADD: XNNPACK's ``floor((m_a (q_a - zp_a) + m_b (q_b - zp_b) + 2^(k-1)) / 2^k)``, its
    multipliers ``m = s / s_out`` in 21 bits (the larger in [2^20, 2^21)).

    The sum needs 30 bits; f32 holds 24. Each multiplier is split as ``h 2^10 + l``
    (``0 <= l < 2^10``): with ``T = h_a d_a + h_b d_b`` and ``U = l_a d_a + l_b d_b`` (exact),
    the result is ``floor((T + floor(U / 2^10) + 2^(k-11)) / 2^(k-10))``, every step exact
    (powers of two scale exactly; floor(x / n) = floor(floor(x) / n))."""
    found = grids(ctx, 2)
    bounds = None if found is None else activation_bounds(ctx, found[1])
    if found is None or bounds is None:
        return None
    (a, b), out = found
    a_scale, b_scale = a.scale / out.scale, b.scale / out.scale
    largest = max(float(a_scale), float(b_scale))
    if not 2.0**-10 <= largest < 2.0**8 or min(float(a_scale), float(b_scale)) < 2.0**-10:
        return None  # outside the range XNNPACK's fixed point covers
    shift = 20 - (int(np.frexp(np.float32(largest))[1]) - 1)
    high: OutPort | None = None
    low: OutPort | None = None
    for idx, (grid, scale) in enumerate(((a, a_scale), (b, b_scale))):
        multiplier = _add_multiplier(scale, shift)
        d = integers(ctx, idx, grid)
        h = ctx.op(Multiply(), d, ctx.const(np.float32(multiplier >> 10), suffix=f"high{idx}"), suffix=f"high{idx}")
        lo = ctx.op(Multiply(), d, ctx.const(np.float32(multiplier & 1023), suffix=f"low{idx}"), suffix=f"low{idx}")
        high = h if high is None else ctx.op(Add(), high, h, suffix="high_sum")
        low = lo if low is None else ctx.op(Add(), low, lo, suffix="low_sum")
    assert high is not None and low is not None
    carried = ctx.op(
        Floor(),
        ctx.op(Multiply(), low, ctx.const(np.float32(2.0**-10), suffix="low_shift"), suffix="low_scaled"),
        suffix="low_carry",
    )
    total = ctx.op(Add(), high, carried, suffix="sum")
    total = ctx.op(Add(), total, ctx.const(np.float32(2.0 ** (shift - 11)), suffix="half"), suffix="rounding")
    scaled = ctx.op(Multiply(), total, ctx.const(np.float32(2.0 ** (10 - shift)), suffix="shift"), suffix="shifted")
    return to_real(ctx, ctx.op(Floor(), scaled, suffix="rounded"), out, bounds)


def mean(ctx: ExtractContext, axes: np.ndarray, keep_dims: bool) -> OutPort | None:
    """MEAN: the integer sum times ``s_in / (s_out * n)``, rounded half to even."""
    found = grids(ctx, 1)
    tensor = input_tensor(ctx, 0)
    shape = None if tensor is None else tensor.shape
    if found is None or shape is None:
        return None
    (data,), out = found
    if any(axis >= len(shape) for axis in axes):  # the declared rank is not the inferred one
        return None
    count = 1
    for axis in np.asarray(axes).reshape(-1):
        size = shape[int(axis)]
        if size is None:
            return None
        count *= int(size)
    if count * 255 >= _EXACT_F32:
        return None
    total = ctx.op(
        ReduceSum(keep_dims=keep_dims),
        integers(ctx, 0, data),
        i64(ctx, [int(a) for a in np.asarray(axes).reshape(-1)], suffix="axes"),
        suffix="sum",
    )
    multiplier = np.asarray(data.scale / (out.scale * np.float32(count)), np.float32)
    scaled = ctx.op(Multiply(), total, ctx.const(multiplier, suffix="multiplier"), suffix="scaled")
    rounded = ctx.op(Round(mode="half_to_even"), scaled, suffix="rounded")
    return to_real(ctx, rounded, out, (out.low, out.high))


def table(ctx: ExtractContext, kernel: Callable[[np.ndarray, GridLike, GridLike], np.ndarray]) -> OutPort | None:
    """A unary function as LiteRT's int8 kernel computes it (``integer_tables``): the
    kernel's output for every input integer, as real values, read at the input's integers
    with Gather."""
    found = grids(ctx, 1)
    if found is None:
        return None
    (data,), out = found
    q_out = kernel(np.arange(data.low, data.high + 1), data, out)
    values = ((q_out - out.zero) * out.scale).astype(np.float32)
    index = ctx.op(Convert(destination_type=ElementType.i32), integers(ctx, 0, data), suffix="to_index")
    index = ctx.op(Add(), index, i32(ctx, data.zero - data.low, suffix="offset"), suffix="index")
    return on_grid(
        ctx,
        ctx.op(
            Gather(batch_dims=0), ctx.const(values, suffix="table"), index, i64(ctx, 0, suffix="axis"), suffix="lookup"
        ),
        out,
    )
