"""A per-channel Multiply after a convolution or MatMul -> scaled weights."""

from __future__ import annotations

from irconv import Match, Rewriter, op
from irconv_opset import Multiply

from irconv_transforms import _weights
from irconv_transforms._fusion import Fusion, channel_vector, float_const, numpy_broadcast


class FuseLinearBackward(Fusion):
    """``P(x, W) * c -> P(x, W')``, ``W'`` = W with each output channel o scaled by c[o]:
    P is Convolution, GroupConvolution, (Group)ConvolutionBackpropData or MatMul with
    constant weights that no other op reads, P's output read only by this Multiply; c is a
    scalar or varies only along the output's channel axis (1, or the last for MatMul)."""

    id = "fuse.linear_backward"
    run_after = (*Fusion.run_after, "fuse.merge_linear_chains")
    pattern = op(
        Multiply,
        op(_weights.WEIGHTED, bind="producer", single_use=True),
        float_const("c"),
        bind="mul",
        commutative=True,
        where=numpy_broadcast,
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        producer, mul = match["producer"], match["mul"]
        w, c = _weights.stored_weights(producer), match.constant("c")  # scaled, not read
        shape = producer.out_port(0).data.shape
        axis = _weights.output_axis(producer)
        if w is None or c is None or shape is None or axis is None:
            return False
        vector = channel_vector(c, shape, axis)
        if vector is None:
            return False
        new = _weights.scaled(producer, w, vector, "out")
        if new is None:
            return False
        _weights.set_weights(rw, producer, new)  # laid out like the old weights
        # The producer now computes the Multiply's tensor: its own tensor names would mislabel it.
        producer.out_port(0).data.names.clear()
        rw.replace(mul, producer.out_port(0))
        return True
