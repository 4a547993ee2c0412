"""TensorFlow complex tensors and Fourier transforms.

A complex tensor (complex64/complex128) is carried as a real tensor (f32/f64) with a trailing
dimension of 2 holding the real and imaginary parts, the form OpenVINO's DFT/IDFT (opset 7)
and RDFT/IRDFT (opset 9) read and write. TensorFlow's FFT ops transform the innermost 1, 2 or
3 dims of their input; its RFFT/IRFFT ops take the transform lengths as ``fft_length``, which
crops or zero-pads each transformed dim as the ``signal_size`` input of RDFT/IRDFT does.

Model inputs, outputs and constants cannot be complex: the IR has no complex element type.
"""

from __future__ import annotations

from collections.abc import Callable

from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import aliases, extractor, i64, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Result, SourceOp
from irconv.types import ElementType
from irconv_opset import (
    DFT,
    IDFT,
    IRDFT,
    RDFT,
    Broadcast,
    Concat,
    Convert,
    Gather,
    ReduceL2,
    ShapeOf,
    Unsqueeze,
)

Extract = Callable[[Node, ExtractContext], list[OutPort]]


#: Ops that hand their input on unchanged: a complex value reaches a model output through them.
_PASS_THROUGH = {"Identity", "IdentityN", "Snapshot", "StopGradient", "PreventGradient"}
#: The ops that read a complex input as the [..., 2] pair this module makes.
_COMPLEX_READERS = {
    "IRFFT", "IRFFT2D", "IRFFT3D", "FFT", "FFT2D", "FFT3D", "IFFT", "IFFT2D", "IFFT3D", "Real", "Imag", "ComplexAbs",
}  # fmt: skip


def _check_complex_consumers(ctx: ExtractContext) -> None:
    """Output 0 is complex: only the ops above may read it (through pass-through ops).
    Any other op (Mul, Reshape, a model output) would treat the trailing pair as data and give
    wrong values silently, so it is refused here, where the complex value is made.
    """
    ports, seen = [ctx.node.out_port(0)], set[tuple[str, int]]()
    while ports:
        port = ports.pop()
        for dest in port.get_destinations():
            reader, op = dest.node, dest.node.op
            if isinstance(op, Result):
                raise ConversionError(
                    f"{ctx.where()}: its complex output is a model output, which the IR cannot hold "
                    "(complex values are carried as [..., 2] real pairs inside the model); "
                    "take tf.math.real/imag/abs of it in the model, or cut the model after them"
                )
            op_type = op.op_type if isinstance(op, SourceOp) else op.type
            if op_type in _PASS_THROUGH:
                out = dest.idx if op_type == "IdentityN" else 0  # IdentityN: input i is output i
                if (reader.name, out) not in seen and out < reader.num_outputs():
                    seen.add((reader.name, out))
                    ports.append(reader.out_port(out))
            elif op_type not in _COMPLEX_READERS:
                raise ConversionError(
                    f"{ctx.where()}: its complex output is read by {_reader(reader, op_type)}, which irconv "
                    "cannot run on complex values (only " + ", ".join(sorted(_COMPLEX_READERS)) + " can)"
                )


def _reader(node: Node, op_type: str) -> str:
    """How a message names a node reading the complex output (another node than ctx.where()'s)."""
    return f"node {quoted(node.name)} ({op_type})"


def _complex_input(ctx: ExtractContext, idx: int, dims: int) -> int:
    """The rank (trailing 2 included) of complex input ``idx``, which transforms ``dims`` dims."""
    rank = require_rank(ctx, idx)
    shape = ctx.input_shape(idx)
    assert shape is not None
    if rank < dims + 1 or shape[-1] not in (2, None):
        raise ConversionError(
            f"{ctx.where()}: input {idx} is not a complex tensor of rank >= {dims} "
            f"(expected a [..., 2] real/imaginary pair, got shape {list(shape)})"
        )
    return rank


def _transformed_dims(ctx: ExtractContext) -> int:
    """How many inner dims an (I)(R)FFT op transforms: FFT 1, FFT2D 2, FFT3D 3."""
    op_type = ctx.source_op.op_type
    return int(op_type[-2]) if op_type.endswith("D") else 1


def _fft_length(ctx: ExtractContext, dims: int) -> OutPort:
    """``fft_length`` (input 1, int32 [dims]) as the i64 ``signal_size`` of RDFT/IRDFT."""
    value = ctx.input_value(1)
    if value is not None:
        lengths = [int(v) for v in value.reshape(-1)]
        if len(lengths) != dims or min(lengths, default=0) < 0:
            raise ConversionError(f"{ctx.where()}: fft_length {lengths} must be {dims} non-negative length(s)")
        return i64(ctx, lengths, "fft_length")
    return ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="fft_length")


def _rfft(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """RFFT/RFFT2D/RFFT3D: real [..., n1..nk] -> complex [..., f1..f(k-1), fk // 2 + 1]."""
    dims = _transformed_dims(ctx)
    rank = require_rank(ctx, 0)
    if rank < dims:
        raise ConversionError(f"{ctx.where()}: input 0 has rank {rank}, below the {dims} transformed dims")
    _check_complex_consumers(ctx)
    axes = i64(ctx, list(range(rank - dims, rank)), "axes")
    return [ctx.op(RDFT(), ctx.input(0), axes, _fft_length(ctx, dims))]


def _irfft(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """IRFFT/IRFFT2D/IRFFT3D: complex -> real [..., f1..fk] for the fk = fft_length values."""
    dims = _transformed_dims(ctx)
    rank = _complex_input(ctx, 0, dims)
    axes = i64(ctx, list(range(rank - 1 - dims, rank - 1)), "axes")
    return [ctx.op(IRDFT(), ctx.input(0), axes, _fft_length(ctx, dims))]


def _fft(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """FFT/IFFT (2D, 3D): complex -> complex over the innermost ``dims`` dims; IDFT scales by 1/n."""
    dims, inverse = _transformed_dims(ctx), ctx.source_op.op_type.startswith("I")
    rank = _complex_input(ctx, 0, dims)
    _check_complex_consumers(ctx)
    axes = i64(ctx, list(range(rank - 1 - dims, rank - 1)), "axes")
    return [ctx.op((IDFT if inverse else DFT)(), ctx.input(0), axes)]


@extractor("tf", "Complex", produces=[Unsqueeze, Concat, Broadcast, ShapeOf])
def _complex(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Complex(real, imag): both broadcast to their common shape, stacked on a new last dim."""
    _check_complex_consumers(ctx)
    real, imag = ctx.input(0), ctx.input(1)
    shape = ctx.input_shape(0)
    if shape is None or shape != ctx.input_shape(1) or None in shape:  # not known to be equal
        real, imag = (
            ctx.op(Broadcast(mode="bidirectional"), real, ctx.op(ShapeOf(), imag, suffix="imag_shape"), suffix="real"),
            ctx.op(Broadcast(mode="bidirectional"), imag, ctx.op(ShapeOf(), real, suffix="real_shape"), suffix="imag"),
        )
    last = i64(ctx, [-1], "pair_axis")
    parts = [ctx.op(Unsqueeze(), p, last, suffix=f"{name}_pair") for p, name in ((real, "real"), (imag, "imag"))]
    return [ctx.op(Concat(axis=-1), *parts)]


def _part(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Real (0) / Imag (1): that entry of the trailing pair."""
    index = 1 if ctx.source_op.op_type == "Imag" else 0
    _complex_input(ctx, 0, 0)
    return [ctx.op(Gather(), ctx.input(0), i64(ctx, index, "part"), i64(ctx, -1, "pair_axis"))]


@extractor("tf", "ComplexAbs", produces=[ReduceL2])
def _complex_abs(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """ComplexAbs: the L2 norm of the trailing pair."""
    _complex_input(ctx, 0, 0)
    return [ctx.op(ReduceL2(keep_dims=False), ctx.input(0), i64(ctx, [-1], "pair_axis"))]


RFFT = aliases("tf", ["RFFT", "RFFT2D", "RFFT3D"], _rfft, produces=[RDFT, Convert])
IRFFT = aliases("tf", ["IRFFT", "IRFFT2D", "IRFFT3D"], _irfft, produces=[IRDFT, Convert])
FFT = aliases("tf", ["FFT", "FFT2D", "FFT3D"], _fft, produces=[DFT])
IFFT = aliases("tf", ["IFFT", "IFFT2D", "IFFT3D"], _fft, produces=[IDFT])
PARTS = aliases("tf", ["Real", "Imag"], _part, produces=[Gather])
