"""A per-channel Multiply or Add before a convolution or MatMul -> its weights (and a bias)."""

from __future__ import annotations

import numpy as np
from irconv import Const, Match, Node, Pat, Rewriter, any_, narrow_float, op
from irconv.ops import DeferredProduct
from irconv_opset import Add, Convolution, GroupConvolution, MatMul, Multiply

from irconv_transforms import _weights
from irconv_transforms._fusion import Fusion, channel_vector, float_const, numpy_broadcast

#: Weight values widened to float64 at a time to sum a bias (512 KiB).
_BLOCK_VALUES = 1 << 16


def _linear(kind: type[Add | Multiply]) -> Pat:
    return op(
        kind, any_("x"), float_const("c"), bind="linear", commutative=True, single_use=True, where=numpy_broadcast
    )


class FuseLinearForward(Fusion):
    """Into the consumer's weights, over its input channels i:

    - ``C(x * c, W) -> C(x, W')``, W' = W scaled by c[i] (padding reads zeros either way);
    - ``C(x + b, W) -> C(x, W) + C(b, W)`` when C reads no padding, the constant term being
      the weights summed against b: a bias per output channel. A padded convolution would
      see zeros, not b, at the borders, so there it must not fire.

    C is Convolution, GroupConvolution or MatMul (x as its first input, no ``transpose_a``);
    the Multiply also fuses into ConvolutionBackpropData. The Multiply/Add must feed only C,
    and the Multiply's C must be the only reader of W (a tied embedding and head share it).
    """

    id = "fuse.linear_forward"
    run_after = (*Fusion.run_after, "fuse.linear_backward")
    pattern = (
        op(_weights.WEIGHTED, _linear(Multiply), bind="consumer"),
        op((Convolution, GroupConvolution, MatMul), _linear(Add), bind="consumer"),
    )

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        consumer, linear = match["consumer"], match["linear"]
        w, c = _weights.stored_weights(consumer), match.constant("c")  # read only to sum a bias
        shape = match.port("x").data.shape
        if w is None or c is None or shape is None or len(shape) < 2 or linear.out_port(0).data.shape != shape:
            return False
        matmul = consumer.op if isinstance(consumer.op, MatMul) else None
        if matmul is not None and matmul.transpose_a:
            return False
        axis = len(shape) - 1 if matmul is not None else 1
        vector = channel_vector(c, shape, axis)
        if vector is None:
            return False
        if isinstance(linear.op, Multiply):
            new = _weights.scaled(consumer, w, vector, "in")
            if new is None:
                return False
            _weights.set_weights(rw, consumer, new)  # laid out like the old weights
            rw.set_input(consumer.in_port(0), match.port("x"))
            return True
        if matmul is None and not _weights.zero_padding(consumer):
            return False
        if isinstance(match.port("x").node.op, _weights.WEIGHTED):
            return False  # already the bias of its producer: moving it gains nothing
        bias = _bias_of(consumer, w, vector)  # read a block at a time, w itself left as it is
        if bias is None:
            return False
        rw.set_input(consumer.in_port(0), match.port("x"))
        if _add_to_following_bias(rw, consumer, bias):
            return True
        users = consumer.out_port(0).get_destinations()
        names = list(consumer.out_port(0).data.names)
        added = rw.op(Add(), consumer.out_port(0), rw.const(bias.astype(w.dtype), like=consumer), like=consumer)
        for user in users:
            rw.set_input(user, added)
        consumer.out_port(0).data.names.clear()
        for name in names:
            added.data.add_name(name)
        return True


def _bias_of(consumer: Node, w: np.ndarray | DeferredProduct, b: np.ndarray) -> np.ndarray | None:
    """C(b) for a per-input-channel constant b, shaped to add onto C's output."""
    rank = len(consumer.out_port(0).data.shape or ())
    if isinstance(consumer.op, MatMul):
        transpose_b = consumer.op.transpose_b
        k = w.shape[1] if transpose_b else w.shape[0]
        return _times_vector(w, np.broadcast_to(b.astype(np.float64), (k,)), transpose_b)
    if isinstance(w, DeferredProduct):
        w = w.materialize()  # convolution weights: small
    w64 = w.astype(np.float64)
    spatial = (1,) * (w.ndim - 2)
    if isinstance(consumer.op, Convolution):
        b = np.broadcast_to(b.astype(np.float64), (w.shape[1],)).reshape(1, -1, *spatial)
        per_out = (w64 * b).reshape(w.shape[0], -1).sum(axis=1)
    else:  # GroupConvolution [G, O, I, k...]
        groups, per_group = w.shape[0], w.shape[2]
        b = np.broadcast_to(b.astype(np.float64), (groups * per_group,)).reshape(groups, 1, per_group, *spatial[1:])
        per_out = (w64 * b).reshape(groups * w.shape[1], -1).sum(axis=1)
    return np.asarray(per_out).reshape((1, -1) + (1,) * (rank - 2))


def _times_vector(w: np.ndarray | DeferredProduct, b: np.ndarray, transpose_b: bool) -> np.ndarray:
    """``b @ w`` for weights ``w`` ``[K, N]`` (``w.T`` with ``transpose_b``: ``w`` is
    ``[N, K]``), accumulated in float64 a block of stored rows at a time: the weights of a
    large model, memory-mapped or a rescaling not computed yet, are never held whole, nor
    copied whole into float64."""
    rows = max(1, _BLOCK_VALUES // max(1, w.shape[1]))
    total = np.zeros(w.shape[0] if transpose_b else w.shape[1], np.float64)
    for start in range(0, w.shape[0], rows):
        part = w.part(slice(start, start + rows)) if isinstance(w, DeferredProduct) else w[start : start + rows]
        block = narrow_float.widen(part.materialize() if isinstance(part, DeferredProduct) else part)
        block = np.asarray(block, np.float64)
        if transpose_b:
            total[start : start + len(block)] = block @ b
        else:
            total += b[start : start + len(block)] @ block
    return total


def _add_to_following_bias(rw: Rewriter, consumer: Node, bias: np.ndarray) -> bool:
    """Add ``bias`` into the constant of an Add that is the consumer's only user, if any."""
    users = consumer.out_port(0).get_destinations()
    if len(users) != 1 or not isinstance(users[0].node.op, Add):
        return False
    add = users[0].node
    other = add.in_port(1 - users[0].idx).get_source()
    value = None if other is None or not isinstance(other.node.op, Const) else other.constant(shape_derived=False)
    shape = consumer.out_port(0).data.shape
    if value is None or value.dtype.kind != "f" or shape is None or not numpy_broadcast(add):
        return False
    axis = len(shape) - 1 if isinstance(consumer.op, MatMul) else 1
    if channel_vector(value, shape, axis) is None:
        return False
    merged = (value.astype(np.float64) + bias).astype(value.dtype)
    if merged.shape != np.broadcast_shapes(value.shape, bias.shape):
        return False
    rw.set_input(add.in_port(1 - users[0].idx), rw.const(merged, like=add))
    consumer.out_port(0).data.names.clear()  # it no longer holds the source model's tensor
    return True
