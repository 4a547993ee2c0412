"""Integer ``x - c`` with a constant ``c`` written as ``x + (-c)``."""

from __future__ import annotations

import numpy as np
from irconv import Match, Node, PatternRewrite, Rewriter, any_, const, op
from irconv_opset import Add, Subtract


def _signed_integer(node: Node) -> bool:
    value = node.out_port(0).constant(shape_derived=False)
    return value is not None and value.dtype.kind == "i"


class SubtractConstantAsAdd(PatternRewrite):
    """``Subtract(x, c) -> Add(x, -c)`` for a signed integer constant ``c``: the same values
    (two's complement arithmetic wraps alike; ``-c`` of the most negative ``c`` is itself, and
    adding it subtracts it modulo 2^n).

    transformers' sliding-window mask compares key positions with ``query position -
    window``; OpenVINO's SDPA-to-PagedAttention rewrite reads the window from that offset
    written as an Add of a constant (what OpenVINO's own PyTorch front end gives), and without
    it runs PagedAttention over the whole context. Floats are fuse.merge_linear_chains' (which
    does the same)."""

    id = "llm.subtract_constant_as_add"
    pattern = op(Subtract, any_("x"), const("c", where=_signed_integer), bind="root")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        root = match["root"]
        c = match.constant("c")
        assert c is not None  # the pattern's condition
        with np.errstate(over="ignore"):
            negated = np.negative(c)
        auto_broadcast = match.op("root", Subtract).auto_broadcast
        rw.replace(root, rw.op(Add(auto_broadcast=auto_broadcast), match.port("x"), rw.const(negated, like=root),
                               like=root))
        return True
