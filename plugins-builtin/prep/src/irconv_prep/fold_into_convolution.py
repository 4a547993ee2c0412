"""Folding an input's preprocessing into the convolution that reads it.

For ``Convolution(m, W)`` with ``m[c] = (r[rev(c)] - mean[c]) / scale[c]`` along the
convolution's input channels:

- the reversal and the scales go into the weights: ``W'[:, rev(c)] = W[:, c] / scale[c]``;
- the means go into the bias: ``b' = b - sum over c and the kernel of W[:, c] * mean[c] / scale[c]``,
  exact only when the convolution pads nothing (padding feeds zeros of ``r``, not of ``m``);
  otherwise they stay a Subtract on the input, in the input's channel order.

The convolution may read the input directly or through one Transpose that moves the
channel dim to dim 1 (channels-last models).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import Node, OutPort, Rewriter
from irconv_opset import Add, Convolution, Transpose

from irconv_prep.preprocess import InputPrep


@dataclass
class FoldSite:
    """The convolution an input feeds, and its weights."""

    conv: Node
    weights: np.ndarray


def find_site(prep: InputPrep) -> FoldSite | None:
    """The convolution reading only this input (maybe through a channel-moving Transpose)."""
    port = prep.node.out_port(0)
    consumer = _only_consumer(port)
    if consumer is None:
        return None
    node, index = consumer
    axis = prep.axis
    if isinstance(node.op, Transpose) and index == 0:
        order_value = node.in_port(1).constant(shape_derived=False)
        # A scalar scale (no axis) passes any transpose; per-channel values need it to move
        # their axis to the convolution's channel dim.
        if order_value is None or (axis is not None and (len(order_value) < 2 or int(order_value[1]) != axis)):
            return None
        consumer = _only_consumer(node.out_port(0))
        if consumer is None:
            return None
        node, index = consumer
        axis = None if axis is None else 1
    if not isinstance(node.op, Convolution) or index != 0 or (axis not in (None, 1)):
        return None
    weights = node.in_port(1).constant(shape_derived=False)  # a Const, or folded later
    if weights is None:
        return None
    channels = prep.channels
    if weights.ndim < 3 or (channels is not None and weights.shape[1] != channels):
        return None
    return FoldSite(node, weights)


def _only_consumer(port: OutPort) -> tuple[Node, int] | None:
    destinations = port.get_destinations()
    if len(destinations) != 1:
        return None
    destination = destinations[0]
    return destination.node, destination.idx


def pads_nothing(conv: Node) -> bool:
    op = conv.op
    assert isinstance(op, Convolution)
    if op.auto_pad == "valid":
        return True
    if op.auto_pad in ("same_upper", "same_lower"):
        return False
    return not any(op.pads_begin) and not any(op.pads_end)


def fold(rw: Rewriter, prep: InputPrep, site: FoldSite) -> bool:
    """Fold what is exact into the convolution; returns whether the means were folded too.

    When they were not, the caller keeps a Subtract of ``input_order_mean(prep)`` on the input.
    """
    weights = site.weights.astype(np.float64)
    channel_shape = (1, weights.shape[1]) + (1,) * (weights.ndim - 2)
    if prep.divisor is not None:
        weights = weights / (prep.divisor.reshape(channel_shape) if prep.divisor.ndim else prep.divisor)
    fold_mean = prep.mean is not None and (pads_nothing(site.conv) or not np.any(prep.mean))
    delta = None
    if fold_mean:
        assert prep.mean is not None
        delta = (
            -(weights * np.broadcast_to(prep.mean, (weights.shape[1],)).reshape(channel_shape))
            .reshape(weights.shape[0], -1)
            .sum(axis=1)
        )
    if prep.reverse:
        weights = np.take(weights, prep.order(), axis=1)
    conv = site.conv
    rw.set_input(conv.in_port(1), rw.const(weights.astype(site.weights.dtype), name=f"{conv.name}/weights_prep"))
    if delta is not None:
        _add_to_bias(rw, conv, delta.astype(site.weights.dtype))
    return fold_mean or prep.mean is None


def input_order_mean(prep: InputPrep) -> np.ndarray:
    """The means in the input's channel order (for a Subtract before the reversal)."""
    assert prep.mean is not None
    return np.take(prep.mean, prep.order()) if prep.reverse and prep.mean.ndim else prep.mean


def _add_to_bias(rw: Rewriter, conv: Node, delta: np.ndarray) -> None:
    rank = conv.out_port(0).data.shape
    out_rank = len(rank) if rank is not None else 4
    shaped = delta.reshape((1, delta.size) + (1,) * (out_rank - 2))
    bias = _bias_add(conv, delta.size, out_rank)
    if bias is not None:
        add, index, value = bias
        rw.set_input(add.in_port(index), rw.const(value + delta.reshape(value.shape), name=f"{add.name}/bias_prep"))
        return
    rw.insert_after(conv.out_port(0), Add(), [rw.const(shaped, name=f"{conv.name}/bias_prep")])


def _bias_add(conv: Node, count: int, out_rank: int) -> tuple[Node, int, np.ndarray] | None:
    """The Add of a per-output-channel constant that alone reads the convolution."""
    destinations = conv.out_port(0).get_destinations()
    if len(destinations) != 1 or conv.out_port(0).data.names or not isinstance(destinations[0].node.op, Add):
        return None
    add = destinations[0].node
    value = add.in_port(1 - destinations[0].idx).constant(shape_derived=False)
    if value is None:
        return None
    offset = out_rank - value.ndim
    if offset < 0 or value.size != count or offset > 1 or value.shape[1 - offset] != count:
        return None
    return add, 1 - destinations[0].idx, value
