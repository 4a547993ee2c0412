"""RFFT2D and the operators that read its complex result (COMPLEX_ABS, REAL, IMAG).

A complex tensor is carried as OpenVINO's DFT ops give it: real and imaginary parts in a
trailing axis of size 2, which the readers of the result reduce or pick.
"""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import RDFT, Convert, Gather, ReduceL2


@extractor("tflite", "RFFT2D", produces=[RDFT, Convert])
def rfft2d(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: real x [..., H, W], fft_length [2]: the 2-D transform of the last two axes,
    [..., L0, L1 // 2 + 1] complex (each axis cropped or zero-padded to its length)."""
    lengths = ctx.op(Convert(destination_type=ElementType.i64), ctx.input(1), suffix="fft_length")
    return [ctx.op(RDFT(), ctx.input(0), i64(ctx, [-2, -1], "axes"), lengths, suffix="rfft2d")]


@extractor("tflite", "COMPLEX_ABS", produces=[ReduceL2])
def complex_abs(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(ReduceL2(keep_dims=False), ctx.input(0), i64(ctx, -1, "pair_axis"), suffix="abs")]


def part(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """REAL / IMAG: the real or imaginary part of the trailing pair."""
    index = 0 if ctx.source_op.op_type == "REAL" else 1
    return [ctx.op(Gather(), ctx.input(0), i64(ctx, index, "part"), i64(ctx, -1, "pair_axis"), suffix="part")]


PARTS = aliases("tflite", ["REAL", "IMAG"], part, produces=[Gather])
