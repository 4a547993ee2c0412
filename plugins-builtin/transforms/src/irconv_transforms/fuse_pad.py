"""A Pad of zeros before a convolution or pooling -> the window op's own pads."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from irconv import Match, Node, Op, Rewriter, any_, narrow_float, op
from irconv_opset import AvgPool_v1, Clamp, Convolution, GroupConvolution, MaxPool_v1, MaxPool_v8, Pad, ReLU

from irconv_transforms._fusion import Fusion

#: Every version of the window ops (later AvgPools derive from AvgPool-1).
_WINDOWED = (Convolution, GroupConvolution, AvgPool_v1, MaxPool_v1, MaxPool_v8)


class FusePad(Fusion):
    """``W(Pad(x, begin, end, 0))`` -> W(x) with the spatial pads added to W's pads.

    The Pad is constant mode with value 0 (or none), pads nothing on batch and channels and
    nothing negative, and feeds only W, whose padding is explicit (or ``valid``).
    A convolution pads with zeros itself. AvgPool must count padded cells (``exclude-pad``
    false, or no pads of its own, which then counts them) and round down. MaxPool pads with
    the lowest value, so only an input known not to be negative (ReLU, Clamp from 0) folds,
    with pads smaller than the kernel (every window keeps a real cell) and its indices unused.
    """

    id = "fuse.pad"
    pattern = op(_WINDOWED, op(Pad, any_("x"), bind="pad", single_use=True), bind="window")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        pad, window = match["pad"], match["window"]
        pads = _spatial_pads(pad)
        if pads is None:
            return False
        begin, end = pads
        new = _padded(window, begin, end, match.port("x").node)
        if new is None:
            return False
        rw.set_input(window.in_port(0), match.port("x"))
        rw.replace_op(window, new)
        return True


def _spatial_pads(pad: Node) -> tuple[list[int], list[int]] | None:
    if not isinstance(pad.op, Pad) or pad.op.pad_mode != "constant":
        return None
    begin, end, fill = (pad.in_port(i).constant(shape_derived=False) for i in (1, 2, 3))
    if begin is None or end is None or (pad.has_input(3) and (fill is None or np.any(narrow_float.widen(fill) != 0))):
        return None
    b, e = [int(v) for v in begin.reshape(-1)], [int(v) for v in end.reshape(-1)]
    if len(b) < 3 or len(b) != len(e) or any(v < 0 for v in b + e) or any(b[:2]) or any(e[:2]):
        return None
    return b[2:], e[2:]


def _padded(window: Node, begin: list[int], end: list[int], producer: Node) -> Op | None:
    """The window op with ``begin``/``end`` added to its own pads, or None if that changes its result."""
    op_ = window.op
    if not isinstance(op_, _WINDOWED):
        return None
    rank = len(begin)
    if op_.auto_pad == "valid":
        own_begin, own_end = [0] * rank, [0] * rank
    elif op_.auto_pad == "explicit":
        own_begin = list(op_.pads_begin) or [0] * rank
        own_end = list(op_.pads_end) or [0] * rank
    else:
        return None
    if len(own_begin) != rank or len(own_end) != rank:
        return None
    pads_begin = tuple(a + b for a, b in zip(own_begin, begin, strict=True))
    pads_end = tuple(a + b for a, b in zip(own_end, end, strict=True))
    changes: dict[str, Any] = {"pads_begin": pads_begin, "pads_end": pads_end, "auto_pad": "explicit"}
    if isinstance(op_, AvgPool_v1):
        if op_.rounding_type != "floor":
            return None
        if op_.exclude_pad:
            if any(own_begin) or any(own_end):
                return None
            changes["exclude_pad"] = False
    if isinstance(op_, (MaxPool_v1, MaxPool_v8)):
        if op_.rounding_type != "floor" or not _non_negative(producer):
            return None
        if window.num_outputs() > 1 and window.out_port(1).get_destinations():
            return None
        kernel = list(op_.kernel)
        total = zip(pads_begin, pads_end, strict=True)
        if len(kernel) != rank or any(b >= k or e >= k for (b, e), k in zip(total, kernel, strict=True)):
            return None
    padded: Op = dataclasses.replace(op_, **changes)
    return padded


def _non_negative(node: Node) -> bool:
    return isinstance(node.op, ReLU) or (isinstance(node.op, Clamp) and node.op.min >= 0.0)
