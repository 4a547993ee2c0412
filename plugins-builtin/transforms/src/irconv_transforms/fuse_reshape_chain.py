"""Reshape of a Reshape -> one Reshape."""

from __future__ import annotations

import dataclasses

from irconv import Match, Rewriter, any_, const, op
from irconv_opset import Reshape

from irconv_transforms._fusion import Fusion


class FuseReshapeChain(Fusion):
    """``Reshape(Reshape(x, a), b) -> Reshape(x, b)`` when b is a constant that does not
    refer to the intermediate shape (no 0 under ``special_zero``; -1 only counts elements,
    which both Reshapes keep) and the inner Reshape has no other reader."""

    id = "fuse.reshape_chain"
    # after the linear fusions, which may remove an Add of zeros standing between two Reshapes
    run_after = (*Fusion.run_after, "fuse.merge_linear_chains", "fuse.linear_backward", "fuse.linear_forward")
    pattern = op(Reshape, op(Reshape, any_("x"), single_use=True), const("b"), bind="outer")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        outer, reshape = match["outer"], match.op("outer", Reshape)
        target = match.constant("b")
        if target is None or target.dtype.kind not in "iu" or (reshape.special_zero and (target == 0).any()):
            return False
        new = rw.op(dataclasses.replace(reshape), match.port("x"), match.port("b"), like=outer)
        if new.data.shape != outer.out_port(0).data.shape:
            rw.erase(new.node)
            return False
        rw.replace(outer, new)
        return True
