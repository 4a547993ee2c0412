"""TF fake quantisation (quantisation-aware training graphs) as opset FakeQuantize."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.plugins import Extractor
from irconv_opset import FakeQuantize

from irconv_tf.extractors._base import const_input, table


def nudged_range(low: float, high: float, num_bits: int, narrow_range: bool) -> tuple[np.float32, np.float32, int]:
    """TF's nudged [min, max] (zero exactly representable) and the number of levels.

    scale = (max - min) / (qmax - qmin); the zero point qmin - min / scale is rounded (half
    away from zero) and clamped to [qmin, qmax]; the range is rebuilt around it.
    """
    f32 = np.float32
    q_min = 1 if narrow_range else 0
    q_max = (1 << num_bits) - 1
    scale = (f32(high) - f32(low)) / f32(q_max - q_min)
    zero_point = f32(q_min) - f32(low) / scale
    if zero_point < q_min:
        nudged = f32(q_min)
    elif zero_point > q_max:
        nudged = f32(q_max)
    else:
        nudged = f32(np.sign(zero_point) * np.floor(np.abs(zero_point) + f32(0.5)))
    return f32((q_min - nudged) * scale), f32((q_max - nudged) * scale), q_max - q_min + 1


def _fake_quant(from_inputs: bool):  # type: ignore[no-untyped-def]
    """FakeQuantWithMinMaxArgs (attributes) and ...Vars (constant min/max inputs)."""

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        if from_inputs:
            low = float(const_input(ctx, 1, "min"))
            high = float(const_input(ctx, 2, "max"))
        else:
            low, high = float(ctx.attr("min", -6.0)), float(ctx.attr("max", 6.0))
        lo, hi, levels = nudged_range(low, high, int(ctx.attr("num_bits", 8)), bool(ctx.attr("narrow_range", False)))
        lo_port, hi_port = ctx.const(lo, suffix="nudged_min"), ctx.const(hi, suffix="nudged_max")
        op = FakeQuantize(levels=levels)
        return [ctx.op(op, ctx.input(0), lo_port, hi_port, lo_port, hi_port)]

    return extract


def extractors() -> list[Extractor]:
    return table(
        {
            "FakeQuantWithMinMaxArgs": (_fake_quant(False), "FakeQuantize"),
            "FakeQuantWithMinMaxVars": (_fake_quant(True), "FakeQuantize"),
        }
    )
