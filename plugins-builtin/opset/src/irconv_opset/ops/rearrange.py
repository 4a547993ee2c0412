"""Shape ops that slice, pad or rearrange data: StridedSlice, Slice, SliceScatter, Pad, DepthToSpace,
SpaceToDepth, ShuffleChannels, BatchToSpace, SpaceToBatch, ReverseSequence, Roll.

Slicing ops are described as a NumPy index tuple; the same tuple gives the output shape
(symbolically, dynamic dims kept) and the folded value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType, MaybeShape

from irconv_opset import symbol_rules
from irconv_opset.rules import require_equal_lengths, require_integer, require_rank
from irconv_opset.shapes import (
    dynamic_shape,
    in_shape,
    in_type,
    in_value,
    normalize_axes,
    normalize_axis,
    set_output,
)

if TYPE_CHECKING:
    from irconv.graph import Node

Index = tuple[Any, ...]

#: A slice whose bounds are not known at conversion time (a real slice never has step 0).
UNKNOWN_SLICE = slice(None, None, 0)


def _is_full(item: slice) -> bool:
    return item.start is None and item.stop is None and item.step in (None, 1, -1)


def index_shape(shape: MaybeShape, index: Index) -> MaybeShape:
    """The shape of ``x[index]`` for a shape with dynamic dims."""
    if shape is None:
        return None
    consumed = sum(1 for item in index if isinstance(item, (slice, int)))
    if consumed > len(shape):
        raise ConversionError(f"slice of {consumed} dims does not fit shape {shape}")
    out: list[Dim] = []
    i = 0
    for item in index:
        if item is Ellipsis:
            n = len(shape) - consumed
            out.extend(shape[i : i + n])
            i += n
        elif item is None:
            out.append(1)
        elif isinstance(item, int):
            i += 1
        elif item is UNKNOWN_SLICE:
            out.append(None)
            i += 1
        else:
            d = shape[i]
            i += 1
            if d is None:
                out.append(None)
            else:
                out.append(len(range(*item.indices(d))))
            if d is None and _is_full(item):
                out[-1] = None
    out.extend(shape[i:])
    return tuple(out)


def _shrunk_dims(shape: tuple[Dim, ...], index: Index) -> list[tuple[int, Dim]]:
    """``(index, dim)`` of each integer item of ``index`` (an axis it removes) with the
    length of the data axis that item reads."""
    consumed = sum(1 for item in index if isinstance(item, (slice, int)))
    out: list[tuple[int, Dim]] = []
    i = 0
    for item in index:
        if item is Ellipsis:
            i += len(shape) - consumed
        elif isinstance(item, int):
            out.append((item, shape[i] if i < len(shape) else None))
        if isinstance(item, (slice, int)):
            i += 1
    return out


def _check_shrink_bounds(node: Node, shape: MaybeShape, index: Index) -> None:
    """OpenVINO's slice plan takes a shrunk axis's begin as an index, unclipped: one outside
    [-dim, dim) of a known dim makes the runtime refuse the IR (an out-of-range TFLite or TF
    ``shrink_axis`` begin)."""
    if shape is None:
        return
    for begin, dim in _shrunk_dims(shape, index):
        if dim is not None and not -dim <= begin < dim:
            raise ConversionError(
                f"node {quoted(node.name)} ({node.op.describe()}): input 1 (begin) is {begin} on an axis the slice "
                f"removes (shrink_axis_mask), whose length is {dim}: it must be in [{-dim}, {dim}); fix the model"
            )


def _static_length(shape: MaybeShape) -> int | None:
    """The length of a 1-D tensor when its shape says it."""
    return shape[0] if shape is not None and len(shape) == 1 else None


def _bits(mask: Sequence[int], i: int) -> bool:
    return i < len(mask) and bool(mask[i])


@dataclass(eq=False)
class StridedSlice(Op):
    """Inputs data, begin, end, optional strides; a mask bit of 1 means "ignore this"."""

    type = "StridedSlice"
    version = 1
    arity = (3, 4)

    begin_mask: list[int] = attr(factory=list)
    end_mask: list[int] = attr(factory=list)
    new_axis_mask: list[int] = attr(factory=list)
    shrink_axis_mask: list[int] = attr(factory=list)
    ellipsis_mask: list[int] = attr(factory=list)

    def index(
        self, length: int, begin: np.ndarray | None, end: np.ndarray | None, strides: np.ndarray | None, unit: bool
    ) -> Index:
        """The index tuple; unknown (None) begin/end/strides give ``UNKNOWN_SLICE`` items
        where they matter. ``unit``: strides are absent, hence all 1."""
        b = None if begin is None else begin.reshape(-1)
        e = None if end is None else end.reshape(-1)
        st = np.ones(length, np.int64) if unit else (None if strides is None else strides.reshape(-1))
        items: list[Any] = []
        for i in range(length):
            if _bits(self.ellipsis_mask, i):
                items.append(Ellipsis)
            elif _bits(self.new_axis_mask, i):
                items.append(None)
            elif _bits(self.shrink_axis_mask, i):
                items.append(0 if b is None else int(b[i]))  # only the dim's removal matters for shapes
            else:
                start_known = _bits(self.begin_mask, i) or b is not None
                stop_known = _bits(self.end_mask, i) or e is not None
                if not (start_known and stop_known and st is not None):
                    items.append(UNKNOWN_SLICE)
                    continue
                start = None if _bits(self.begin_mask, i) or b is None else int(b[i])
                stop = None if _bits(self.end_mask, i) or e is None else int(e[i])
                items.append(slice(start, stop, int(st[i])))
        return tuple(items)

    def infer(self, node: Node) -> None:
        for idx, role in ((1, "begin"), (2, "end"), (3, "strides")):
            require_integer(node, idx, role)
            require_rank(node, idx, role, 1)
        require_equal_lengths(node, "begin, end and strides", 1, 2, 3)
        begin, end = in_value(node, 1), in_value(node, 2)
        strides = in_value(node, 3)
        length = begin.size if begin is not None else _static_length(in_shape(node, 1))
        shape: MaybeShape = None
        if length is not None:
            index = self.index(length, begin, end, strides, unit=not node.has_input(3))
            shape = index_shape(in_shape(node, 0), index)
            if begin is not None:  # unknown begins stand in as 0 in the index
                _check_shrink_bounds(node, in_shape(node, 0), index)
        set_output(node, 0, shape, in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        begin = np.asarray(inputs[1])
        strides = np.asarray(inputs[3]) if len(inputs) > 3 else None
        index = self.index(begin.size, begin, np.asarray(inputs[2]), strides, unit=strides is None)
        return [np.array(np.asarray(inputs[0])[index])]


@dataclass(eq=False)
class Slice(Op):
    """Slice-8: inputs data, start, stop, step, optional axes."""

    type = "Slice"
    version = 8
    arity = (4, 5)

    @staticmethod
    def index(
        rank: int, start: np.ndarray | None, stop: np.ndarray | None, step: np.ndarray | None, axes: np.ndarray | None
    ) -> Index:
        """The index tuple; with any of start/stop/step unknown, the sliced axes get
        ``UNKNOWN_SLICE`` (``start`` then only gives the count of axes)."""
        count = len(axes.reshape(-1)) if axes is not None else (0 if start is None else start.size)
        axis_list = range(count) if axes is None else normalize_axes(axes.reshape(-1), rank)
        items: list[Any] = [slice(None)] * rank
        for i, axis in enumerate(axis_list):
            if start is None or stop is None or step is None:
                items[axis] = UNKNOWN_SLICE
            else:
                items[axis] = slice(int(start.reshape(-1)[i]), int(stop.reshape(-1)[i]), int(step.reshape(-1)[i]))
        return tuple(items)

    def infer(self, node: Node) -> None:
        for idx, role in ((1, "start"), (2, "stop"), (3, "step"), (4, "axes")):
            require_integer(node, idx, role)
        shape = in_shape(node, 0)
        start, stop, step = (in_value(node, i) for i in (1, 2, 3))
        axes = in_value(node, 4)
        out: MaybeShape = dynamic_shape(None if shape is None else len(shape))
        if shape is not None and (axes is not None or (not node.has_input(4) and start is not None)):
            out = index_shape(shape, self.index(len(shape), start, stop, step, axes))
        set_output(node, 0, out, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.slice_(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axes = np.asarray(inputs[4]) if len(inputs) > 4 else None
        start, stop, step = (np.asarray(v) for v in inputs[1:4])
        index = self.index(x.ndim, start, stop, step, axes)
        return [np.array(x[index])]


@dataclass(eq=False)
class SliceScatter(Op):
    """SliceScatter-15: inputs data, updates, start, stop, step, optional axes; the slice of
    data that Slice-8 would read is replaced by updates."""

    type = "SliceScatter"
    version = 15
    arity = (5, 6)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        out = np.array(inputs[0], copy=True)
        axes = np.asarray(inputs[5]) if len(inputs) > 5 else None
        start, stop, step = (np.asarray(v) for v in inputs[2:5])
        index = Slice.index(out.ndim, start, stop, step, axes)
        out[index] = np.asarray(inputs[1])
        return [out]


# ----------------------------------------------------------------------------- Pad
_NUMPY_PAD_MODES: dict[str, Literal["edge", "reflect", "symmetric"]] = {
    "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"
}


@dataclass(eq=False)
class Pad(Op):
    """Pad-12: inputs data, pads_begin, pads_end, optional pad_value; negative pads crop."""

    type = "Pad"
    version = 12
    arity = (3, 4)

    pad_mode: str = attr("constant", choices=("constant", "edge", "reflect", "symmetric"))

    def infer(self, node: Node) -> None:
        require_integer(node, 1, "pads begin")
        require_integer(node, 2, "pads end")
        require_rank(node, 1, "pads begin", 1)
        require_rank(node, 2, "pads end", 1)
        shape = in_shape(node, 0)
        begin, end = in_value(node, 1), in_value(node, 2)
        out: MaybeShape = dynamic_shape(None if shape is None else len(shape))
        if shape is not None and begin is not None and end is not None:
            b, e = begin.reshape(-1), end.reshape(-1)
            if len(b) != len(shape) or len(e) != len(shape):  # the specification: one entry per data axis
                raise ValueError(f"pads begin {b.tolist()} and end {e.tolist()} need one entry per data axis ({len(shape)})")
            out = tuple(None if d is None else d + int(b[i]) + int(e[i]) for i, d in enumerate(shape))
        set_output(node, 0, out, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.pad(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        begin, end = (np.asarray(v).reshape(-1).astype(int) for v in inputs[1:3])
        widths = [(max(int(b), 0), max(int(e), 0)) for b, e in zip(begin, end, strict=False)]
        if self.pad_mode == "constant":
            value = np.asarray(inputs[3]).reshape(-1)[0] if len(inputs) > 3 else 0
            out = np.pad(x, widths, mode="constant", constant_values=value)
        else:
            out = np.pad(x, widths, mode=_NUMPY_PAD_MODES[self.pad_mode])
        crop = tuple(
            slice(max(-int(b), 0), out.shape[i] - max(-int(e), 0))
            for i, (b, e) in enumerate(zip(begin, end, strict=False))
        )
        return [np.array(out[crop])]


@dataclass(eq=False)
class Pad_v1(Pad):
    """Pad-1: pads must not be negative."""

    type = "Pad"
    version = 1


# --------------------------------------------------------------- block rearrangement
def _block_dims(shape: MaybeShape, block: int, inverse: bool) -> MaybeShape:
    """DepthToSpace (``inverse=False``) or SpaceToDepth output shape."""
    if shape is None:
        return None
    k = len(shape) - 2
    factor = block**k
    n, c = shape[0], shape[1]
    if not inverse:
        channels = None if c is None else c // factor
        return (n, channels) + tuple(None if d is None else d * block for d in shape[2:])
    channels = None if c is None else c * factor
    return (n, channels) + tuple(None if d is None else d // block for d in shape[2:])


@dataclass(eq=False)
class DepthToSpace(Op):
    type = "DepthToSpace"
    version = 1
    arity = (1, 1)

    block_size: int = attr(1)
    mode: str = attr("blocks_first", choices=("blocks_first", "depth_first"))

    def infer(self, node: Node) -> None:
        set_output(node, 0, _block_dims(in_shape(node, 0), self.block_size, False), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        bs, k = self.block_size, x.ndim - 2
        n, c, spatial = x.shape[0], x.shape[1] // bs**k, list(x.shape[2:])
        if self.mode == "blocks_first":
            split = x.reshape([n] + [bs] * k + [c] + spatial)
            order = [0, k + 1] + [j for i in range(k) for j in (k + 2 + i, 1 + i)]
        else:
            split = x.reshape([n, c] + [bs] * k + spatial)
            order = [0, 1] + [j for i in range(k) for j in (k + 2 + i, 2 + i)]
        return [split.transpose(order).reshape([n, c] + [d * bs for d in spatial])]


@dataclass(eq=False)
class SpaceToDepth(Op):
    type = "SpaceToDepth"
    version = 1
    arity = (1, 1)

    block_size: int = attr(1)
    mode: str = attr("blocks_first", choices=("blocks_first", "depth_first"))

    def infer(self, node: Node) -> None:
        set_output(node, 0, _block_dims(in_shape(node, 0), self.block_size, True), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        bs, k = self.block_size, x.ndim - 2
        n, c, spatial = x.shape[0], x.shape[1], [d // bs for d in x.shape[2:]]
        split = x.reshape([n, c] + [v for d in spatial for v in (d, bs)])
        blocks = [3 + 2 * i for i in range(k)]
        dims = [2 + 2 * i for i in range(k)]
        order = [0] + (blocks + [1] if self.mode == "blocks_first" else [1] + blocks) + dims
        return [split.transpose(order).reshape([n, c * bs**k] + spatial)]


@dataclass(eq=False)
class ShuffleChannels(Op):
    type = "ShuffleChannels"
    version = 1
    arity = (1, 1)

    axis: int = attr(1)
    group: int = attr(1)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axis = normalize_axis(self.axis, x.ndim)
        shape = x.shape
        split = x.reshape(shape[:axis] + (self.group, shape[axis] // self.group) + shape[axis + 1 :])
        return [np.swapaxes(split, axis, axis + 1).reshape(shape)]


# ------------------------------------------------------------ batch <-> space blocks
def _ints(value: np.ndarray | None) -> list[int] | None:
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


@dataclass(eq=False)
class SpaceToBatch(Op):
    """Inputs data, block_shape, pads_begin, pads_end (block_shape[0] is 1)."""

    type = "SpaceToBatch"
    version = 2
    arity = (4, 4)

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        block, begin, end = (_ints(in_value(node, i)) for i in (1, 2, 3))
        out: MaybeShape = dynamic_shape(None if shape is None else len(shape))
        if shape is not None and block is not None and begin is not None and end is not None:
            dims: list[Dim] = []
            for i, d in enumerate(shape):
                dims.append(None if d is None else (d + begin[i] + end[i]) // block[i])
            batch = 1
            for b in block:
                batch *= b
            dims[0] = None if shape[0] is None else (shape[0] + begin[0] + end[0]) * batch
            out = tuple(dims)
        set_output(node, 0, out, in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        block, begin, end = (_ints(v) or [] for v in inputs[1:4])
        padded = np.pad(x, list(zip(begin, end, strict=False)))
        b, rest, blocks = padded.shape[0], padded.shape[1:], block[1:]
        split = padded.reshape([b] + [v for d, s in zip(rest, blocks, strict=False) for v in (d // s, s)])
        m = len(blocks)
        order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
        total = int(np.prod(blocks))
        return [split.transpose(order).reshape([b * total] + [d // s for d, s in zip(rest, blocks, strict=False)])]


@dataclass(eq=False)
class BatchToSpace(Op):
    """Inputs data, block_shape, crops_begin, crops_end (block_shape[0] is 1)."""

    type = "BatchToSpace"
    version = 2
    arity = (4, 4)

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        block, begin, end = (_ints(in_value(node, i)) for i in (1, 2, 3))
        out: MaybeShape = dynamic_shape(None if shape is None else len(shape))
        if shape is not None and block is not None and begin is not None and end is not None:
            total = int(np.prod(block))
            dims: list[Dim] = [None if shape[0] is None else shape[0] // total]
            for i in range(1, len(shape)):
                d = shape[i]
                dims.append(None if d is None else d * block[i] - begin[i] - end[i])
            out = tuple(dims)
        set_output(node, 0, out, in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        block, begin, end = (_ints(v) or [] for v in inputs[1:4])
        blocks, m = block[1:], x.ndim - 1
        b = x.shape[0] // int(np.prod(blocks))
        split = x.reshape(blocks + [b] + list(x.shape[1:]))
        order = [m] + [j for i in range(m) for j in (m + 1 + i, i)]
        merged = split.transpose(order).reshape([b] + [d * s for d, s in zip(x.shape[1:], blocks, strict=False)])
        crop = tuple(slice(begin[i], merged.shape[i] - end[i]) for i in range(x.ndim))
        return [np.array(merged[crop])]


# ---------------------------------------------------------------- reverse and roll
@dataclass(eq=False)
class ReverseSequence(Op):
    """Inputs data and seq_lengths: reverse the first ``len`` items along ``seq_axis``."""

    type = "ReverseSequence"
    version = 1
    arity = (2, 2)

    batch_axis: int = attr(0)
    seq_axis: int = attr(1)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        lengths = np.asarray(inputs[1]).reshape(-1)
        batch_axis, seq_axis = normalize_axis(self.batch_axis, x.ndim), normalize_axis(self.seq_axis, x.ndim)
        out = np.moveaxis(x.copy(), (batch_axis, seq_axis), (0, 1))
        source = np.moveaxis(x, (batch_axis, seq_axis), (0, 1))
        for b, n in enumerate(lengths):
            n = int(n)
            out[b, :n] = source[b, :n][::-1]
        return [np.moveaxis(out, (0, 1), (batch_axis, seq_axis))]


@dataclass(eq=False)
class Reverse(Op):
    """Inputs data and axes: axis indices (``mode=index``) or a boolean per dim (``mask``)."""

    type = "Reverse"
    version = 1
    arity = (2, 2)

    mode: str = attr("index", choices=("index", "mask"))

    def infer(self, node: Node) -> None:
        if self.mode == "mask" and in_type(node, 1) not in (ElementType.boolean, ElementType.dynamic):
            raise ConversionError(
                f"node {quoted(node.name)} ({self.describe()}): in mode 'mask' input 1 (axes) must be "
                f"boolean, got {in_type(node, 1).value}"
            )
        if self.mode == "index":
            require_integer(node, 1, "axes")
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, axes = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
        chosen = [i for i, flag in enumerate(axes) if flag] if self.mode == "mask" else normalize_axes(axes, x.ndim)
        return [np.flip(x, axis=tuple(chosen)).copy() if chosen else x.copy()]


@dataclass(eq=False)
class Roll(Op):
    """Inputs data, shift, axes."""

    type = "Roll"
    version = 7
    arity = (3, 3)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        shift = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
        axes = normalize_axes(np.asarray(inputs[2]).reshape(-1), x.ndim)
        if len(shift) == 1 and len(axes) > 1:
            shift = shift * len(axes)
        return [np.roll(x, shift, axis=axes)]


OPS: tuple[type[Op], ...] = (
    StridedSlice,
    Slice,
    SliceScatter,
    Pad_v1,
    Pad,
    DepthToSpace,
    SpaceToDepth,
    ShuffleChannels,
    SpaceToBatch,
    BatchToSpace,
    ReverseSequence,
    Reverse,
    Roll,
)
