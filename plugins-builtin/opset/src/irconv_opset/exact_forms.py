"""Back-phase rewrites into the op forms the OpenVINO CPU plugin compiles.

Some op versions are valid IR that the runtime reads but its CPU plugin does not implement for
every shape. Where the graph's facts decide what such an op does, these rewrites spell it in a
form every version of the runtime compiles.
"""

from __future__ import annotations

import numpy as np
from irconv import Match, PatternRewrite, Rewriter, any_, const, op

from irconv_opset.ops.shape import Squeeze, Squeeze_v1
from irconv_opset.shapes import normalize_axes


class SqueezeKnownAxes(PatternRewrite):
    """``Squeeze-15(x, axes, allow_axis_skip)`` -> ``Squeeze-1(x, the axes of size 1)``, or ``x``
    when none is, once the size of every listed axis is known: the CPU plugin does not implement
    ``allow_axis_skip`` when any dimension of the model is dynamic."""

    id = "opset.squeeze_known_axes"
    pattern = op(Squeeze, any_("x"), const("axes"), bind="squeeze")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        node = match["squeeze"]
        if not isinstance(node.op, Squeeze) or not node.op.allow_axis_skip:
            return False
        shape, axes = match.port("x").data.get_shape(), match.constant("axes")
        if shape is None or axes is None:
            return False
        listed = sorted(set(normalize_axes(axes.reshape(-1).tolist(), len(shape))))
        if any(shape[a] is None for a in listed):
            return False  # whether it goes depends on the run-time size: Squeeze.check says so
        ones = [a for a in listed if shape[a] == 1]
        if not ones:
            rw.replace(node, match.port("x"))
            return True
        squeezed = rw.op(Squeeze_v1(), match.port("x"), rw.const(np.array(ones, np.int64), like=node), like=node)
        rw.replace(node, squeezed)
        return True
