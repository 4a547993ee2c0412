"""Window arithmetic shared by convolutions and poolings (private to the opB families).

Every function keeps unknown things unknown: a ``None`` input dimension gives a ``None``
output dimension.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from irconv.graph import Node
from irconv.types import Dim, ElementType, MaybeShape


class AutoPad(str, enum.Enum):
    """How the spatial padding is chosen (``auto_pad``)."""

    explicit = "explicit"
    same_upper = "same_upper"
    same_lower = "same_lower"
    valid = "valid"
    # The IR reader also accepts "notset" as a synonym of "explicit"; we always write "explicit".


class RoundingType(str, enum.Enum):
    """How a fractional pooling output size is rounded (``rounding_type``)."""

    floor = "floor"
    ceil = "ceil"
    ceil_torch = "ceil_torch"


def window_dim(
    size: Dim,
    kernel: int,
    stride: int,
    dilation: int,
    pad_begin: int,
    pad_end: int,
    auto_pad: AutoPad,
    rounding: RoundingType = RoundingType.floor,
) -> Dim:
    """Output length of one spatial axis swept by a (dilated) window."""
    if stride < 1 or dilation < 1:  # the runtime refuses them when it reads the IR
        raise ValueError(f"strides and dilations must be at least 1, got stride {stride} and dilation {dilation}")
    if size is None:
        return None
    if auto_pad in (AutoPad.same_upper, AutoPad.same_lower):
        # The runtime derives the "same" pads, then rounds like explicit pads: with ceil
        # rounding a window may start past them.
        pad_begin, pad_end = same_pads(size, kernel, stride, dilation, auto_pad is AutoPad.same_upper)
    elif auto_pad is AutoPad.valid:
        pad_begin = pad_end = 0
    extent = (kernel - 1) * dilation + 1
    span = size + pad_begin + pad_end - extent
    if span < 0:  # the runtime refuses such a window when it reads the IR
        raise ValueError(
            f"the window after dilation ({extent}) is larger than the padded input ({size} + pads {pad_begin}, {pad_end})"
        )
    if rounding is RoundingType.floor:
        return max(span // stride + 1, 0)
    out = -(-span // stride) + 1
    # ceil_torch drops a last window that would start inside the end padding only.
    if rounding is RoundingType.ceil_torch and (out - 1) * stride >= size + pad_begin:
        out -= 1
    return max(out, 0)


def window_dims(
    spatial: Sequence[Dim],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int] | None,
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    auto_pad: AutoPad,
    rounding: RoundingType = RoundingType.floor,
) -> tuple[Dim, ...]:
    """``window_dim`` over every spatial axis; short pad/stride lists are an error."""
    rank = len(spatial)
    dilations = dilations if dilations else (1,) * rank
    pads_begin = _fill(pads_begin, rank)
    pads_end = _fill(pads_end, rank)
    for name, values in (("kernel", kernel), ("strides", strides), ("dilations", dilations)):
        if len(values) != rank:
            raise ValueError(f"{name} {list(values)} does not match {rank} spatial dimensions")
    return tuple(
        window_dim(spatial[i], kernel[i], strides[i], dilations[i], pads_begin[i], pads_end[i], auto_pad, rounding)
        for i in range(rank)
    )


def _fill(pads: Sequence[int], rank: int) -> Sequence[int]:
    # With auto_pad set, front ends may leave the pads empty: they are ignored then.
    return pads if len(pads) == rank else (0,) * rank


def same_pads(size: int, kernel: int, stride: int, dilation: int, upper: bool) -> tuple[int, int]:
    """(begin, end) padding of one axis under ``same_upper``/``same_lower``."""
    extent = (kernel - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + extent - size, 0)
    small = total // 2
    return (small, total - small) if upper else (total - small, small)


def input_shape(node: Node, idx: int) -> MaybeShape:
    """The shape arriving at input ``idx`` (``None`` when the rank is unknown)."""
    return node.in_port(idx).data.get_shape()


def input_type(node: Node, idx: int) -> ElementType:
    return node.in_port(idx).data.get_type()


def set_output(node: Node, idx: int, shape: MaybeShape, element_type: ElementType) -> None:
    data = node.out_port(idx).data
    data.set_shape(shape)
    data.set_type(element_type)


def merge_dim(a: Dim, b: Dim) -> Dim:
    """Two views of the same dimension: the known one wins."""
    return a if a is not None else b


def broadcast_shapes(*shapes: MaybeShape) -> MaybeShape:
    """NumPy broadcasting of possibly dynamic shapes; a dynamic rank wins."""
    known_shapes = [s for s in shapes if s is not None]
    if len(known_shapes) < len(shapes):
        return None
    rank = max((len(s) for s in known_shapes), default=0)
    result: list[Dim] = []
    for axis in range(rank):
        dims = [s[axis - rank + len(s)] for s in known_shapes if axis - rank + len(s) >= 0]
        known = [d for d in dims if d is not None and d != 1]
        if known:
            if len(set(known)) > 1:
                raise ValueError(f"shapes {list(shapes)} do not broadcast")
            result.append(known[0])
        elif any(d is None for d in dims):
            result.append(None)
        else:
            result.append(1)
    return tuple(result)
