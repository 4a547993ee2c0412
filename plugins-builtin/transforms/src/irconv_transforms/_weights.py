"""Where the channels of a weighted op sit in its weights, and rewriting those weights.

Weighted ops: Convolution [Co, Ci, k...], GroupConvolution [G, Co/G, Ci/G, k...],
ConvolutionBackpropData [Ci, Co, k...], GroupConvolutionBackpropData [G, Ci/G, Co/G, k...],
and MatMul with constant 2-D weights as its second input ([K, N], or [N, K] with
``transpose_b``). Weights may be stored in another floating type behind a Convert
(f16 + decompression): new weights keep that storage.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from irconv import Node, OutPort, Rewriter
from irconv.ops import DeferredConst, DeferredProduct
from irconv.ops.deferred import DEFER_MIN_BYTES
from irconv_opset import (
    Convert,
    Convolution,
    ConvolutionBackpropData,
    GroupConvolution,
    GroupConvolutionBackpropData,
    MatMul,
)

#: The weights as stored, or a rescaling of them not computed yet.
_Weights = TypeVar("_Weights", np.ndarray, DeferredProduct)

WEIGHTED = (Convolution, GroupConvolution, ConvolutionBackpropData, GroupConvolutionBackpropData, MatMul)


def weights(node: Node) -> np.ndarray | None:
    """The constant floating weights (input 1) of a weighted op, else None."""
    if not node.has_input(1):
        return None
    return _as_weights(node, node.in_port(1).constant(shape_derived=False))


def stored_weights(node: Node) -> np.ndarray | DeferredProduct | None:
    """``weights``, except that a rescaling not computed yet (a ``DeferredConst``) is
    returned as its recipe, for rewrites that only move the weights around."""
    source = node.in_port(1).get_source() if node.has_input(1) else None
    op = None if source is None else source.node.op
    if isinstance(op, DeferredConst) and op.pending is not None:
        return _as_weights(node, op.pending)
    return weights(node)


def shared(node: Node) -> bool:
    """Whether the weights ``node`` reads (input 1, through a decompression Convert) are
    also read by another op: rewriting them for ``node`` would store them twice (a tied
    embedding and language-model head)."""
    source = node.in_port(1).get_source() if node.has_input(1) else None
    while source is not None:
        if len(source.get_destinations()) > 1:
            return True
        if not isinstance(source.node.op, Convert):
            return False
        source = source.node.in_port(0).get_source()
    return False


def _as_weights(node: Node, value: _Weights | None) -> _Weights | None:
    """``value`` if it can be the op's weights: floating, and 2-D for a MatMul."""
    if value is None or value.dtype.kind != "f":
        return None
    if isinstance(node.op, MatMul) and value.ndim != 2:
        return None
    return value


def output_axis(node: Node) -> int | None:
    """The channel axis of the op's output: 1 for convolutions, the last for MatMul."""
    if isinstance(node.op, MatMul):
        shape = node.out_port(0).data.shape
        return None if shape is None or len(shape) < 1 else len(shape) - 1
    return 1


def _view(node: Node, w: np.ndarray | DeferredProduct, side: str) -> tuple[int, ...] | None:
    """The shape a per-channel vector takes to scale the weights' ``side`` ("out"/"in") channels."""
    op, rank = node.op, w.ndim
    ones = (1,) * (rank - 2)
    if isinstance(op, Convolution):
        return (w.shape[0], 1, *ones) if side == "out" else (1, w.shape[1], *ones)
    if isinstance(op, ConvolutionBackpropData):
        return (1, w.shape[1], *ones) if side == "out" else (w.shape[0], 1, *ones)
    ones = (1,) * (rank - 3)
    if isinstance(op, GroupConvolution):
        return (w.shape[0], w.shape[1], 1, *ones) if side == "out" else (w.shape[0], 1, w.shape[2], *ones)
    if isinstance(op, GroupConvolutionBackpropData):
        return (w.shape[0], 1, w.shape[2], *ones) if side == "out" else (w.shape[0], w.shape[1], 1, *ones)
    if isinstance(op, MatMul):
        rows_are_out = op.transpose_b if side == "out" else not op.transpose_b
        return (w.shape[0], 1) if rows_are_out else (1, w.shape[1])
    return None


def scaled(
    node: Node, w: np.ndarray | DeferredProduct | None, vector: np.ndarray, side: str
) -> np.ndarray | DeferredProduct | None:
    """Weights with their ``side`` channels multiplied by ``vector`` (one value per channel,
    or a single value), rounded once to the weights' type.

    The exact product of two floats of p bits has at most 2p bits, so when the factors are
    exactly representable in the weights' type a product computed in that type (f32 for
    f32 weights) is already the once-rounded exact result: no float64 copies of large
    weights. Otherwise the product is taken in float64 (exact for f32) and rounded.
    Large weights get a ``DeferredProduct``: the emitter computes it while writing. Weights
    read as a wider type (``DeferredProduct.widened``: a bf16 checkpoint's, memory-mapped)
    stay a product over the stored values: the wider copy is never made. None when another
    op reads ``node``'s weights too (``shared``): the scaled copy would be stored beside them."""
    if shared(node):
        return None
    if isinstance(w, DeferredProduct) and not w.is_widening:
        w = w.materialize()  # a product of a product would round twice
    view = None if w is None else _view(node, w, side)
    if w is None or view is None:
        return None
    if vector.size == 1:
        factor = np.asarray(vector).reshape(())
    elif vector.size == int(np.prod(view)):
        factor = np.asarray(vector).reshape(view)
    else:
        return None
    narrow = factor.astype(w.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        exact = np.array_equal(narrow.astype(factor.dtype), factor, equal_nan=True) and w.dtype.itemsize <= 4
    base = w.base if isinstance(w, DeferredProduct) else w
    product = DeferredProduct.of(base, narrow, w.dtype, w.dtype) if exact else DeferredProduct.of(base, factor, np.float64, w.dtype)
    return product if w.nbytes >= DEFER_MIN_BYTES else product.materialize()


def set_weights(rw: Rewriter, node: Node, value: np.ndarray | DeferredProduct) -> None:
    """Feed ``node``'s input 1 with new weights, in the storage type of the old ones; a
    strided view (transposed weights) stays uncopied, see ``Rewriter.const``."""
    source = node.in_port(1).get_source()
    assert source is not None
    stored = source.node
    if isinstance(stored.op, Convert):
        inner_value = stored.in_port(0).constant(shape_derived=False)
        if inner_value is not None and inner_value.dtype.kind == "f":
            packed = rw.const(np.asarray(value).astype(inner_value.dtype), like=node)
            port: OutPort = rw.op(Convert(destination_type=stored.op.destination_type), packed, like=node)
            rw.set_input(node.in_port(1), port)
            return
    rw.set_input(node.in_port(1), rw.const(value, like=node, contiguous=False))


def zero_padding(node: Node) -> bool:
    """A convolution that reads no padding (explicit zero pads, or ``valid``)."""
    op = node.op
    if not isinstance(op, (Convolution, GroupConvolution)) or op.auto_pad in ("same_upper", "same_lower"):
        return False
    return op.auto_pad == "valid" or not (any(op.pads_begin) or any(op.pads_end))
