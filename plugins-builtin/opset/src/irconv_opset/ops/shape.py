"""Shape ops: Reshape, Transpose, Concat, Split, Squeeze, ShapeOf, Broadcast, Tile, Convert,
Select, Range, Identity. Slicing, padding and block rearrangement live in ``rearrange``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import InitVar, dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv import narrow_float
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, Trait, attr
from irconv.types import Dim, ElementType, MaybeShape, format_shape

from irconv_opset import symbol_rules
from irconv_opset.ops._attrs import CONVERT_TYPES, INDEX_TYPES, NUMERIC_TYPES
from irconv_opset.partial import DimOf, partial_elements
from irconv_opset.rules import (
    refuse_run_time_rank,
    require_at_most,
    require_inputs,
    require_integer,
    require_length,
    require_rank,
)
from irconv_opset.shapes import (
    broadcast_shapes,
    dynamic_shape,
    in_shape,
    in_type,
    in_value,
    merge_dim,
    normalize_axes,
    normalize_axis,
    product,
    rank_of,
    set_output,
    shape_of_value,
)

if TYPE_CHECKING:
    from irconv.graph import Node


def _len_of_1d(shape: MaybeShape) -> int | None:
    """The static length of a 1-D (or scalar) tensor shape, else None."""
    if shape is None or len(shape) > 1:
        return None
    return 1 if len(shape) == 0 else shape[0]


# ------------------------------------------------------------------------- Reshape
@dataclass(eq=False)
class Reshape(Op):
    """Inputs data and target shape; ``special_zero`` copies a 0 from the input dim."""

    type = "Reshape"
    version = 1
    arity = (2, 2)

    special_zero: bool = attr(False)

    def target(
        self, data_shape: MaybeShape, pattern: Sequence[Dim | DimOf], data_key: tuple[int, int] | None = None
    ) -> tuple[Dim, ...]:
        """The output dims for ``pattern``; a ``DimOf`` entry naming a dim of the data itself
        (``data_key``) is that dim, and cancels it when a -1 is computed."""
        dims: list[Dim] = []
        copied: set[int] = set()
        cancelled_data: set[int] = set()  # data axes an output entry repeats
        cancelled_out: set[int] = set()
        for i, p in enumerate(pattern):
            if isinstance(p, DimOf):
                if (p.node, p.port) == data_key and p.axis not in cancelled_data:
                    cancelled_data.add(p.axis)
                    cancelled_out.add(i)
                dims.append(None)
            elif p == 0 and self.special_zero:
                if data_shape is not None and i >= len(data_shape):
                    raise ValueError(
                        f"the target's 0 at position {i} copies an input dim, but the input has rank {len(data_shape)}"
                    )
                copied.add(i)
                dims.append(None if data_shape is None else data_shape[i])
            else:
                dims.append(p)
        if -1 in dims:
            pos = dims.index(-1)
            # copied dims appear on both sides and cancel, even when dynamic
            skip_data, skip_out = copied | cancelled_data, copied | cancelled_out
            total = None if data_shape is None else product([d for i, d in enumerate(data_shape) if i not in skip_data])
            known = product([d for i, d in enumerate(dims) if i != pos and i not in skip_out])
            dims[pos] = total // known if total is not None and known not in (None, 0) else None
        return tuple(dims)

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        require_integer(node, 1, "target shape")
        require_rank(node, 1, "target shape", 1)
        pattern = shape_of_value(in_value(node, 1))
        partial = partial_elements(node.in_port(1).get_source()) if pattern is None else None
        source = node.in_port(0).get_source()
        if pattern is not None:
            shape: MaybeShape = self.target(in_shape(node, 0), pattern)
        elif partial is not None:  # a computed pattern: as much as the runtime knows of it
            shape = self.target(in_shape(node, 0), partial, None if source is None else DimOf.key(source))
        else:
            shape = dynamic_shape(symbol_rules.proven_length(node, 1))
        if not self.special_zero:
            _check_zero_beside_minus_one(node, in_shape(node, 0), pattern if pattern is not None else partial)
        _check_element_count(node, in_shape(node, 0), shape)
        set_output(node, 0, shape, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.reshape(node, self.special_zero)

    def check(self, node: Node) -> None:
        refuse_run_time_rank(node, "target shape")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        dims = self.target(x.shape, shape_of_value(inputs[1]) or ())
        return [x.reshape(tuple(-1 if d is None else d for d in dims))]


def _check_zero_beside_minus_one(node: Node, data: MaybeShape, pattern: Sequence[Dim | DimOf] | None) -> None:
    """The runtime's Reshape rule for a target with a literal 0 (special_zero false) and a -1:
    it is 0 only when one of the input's static dims is 0 (dynamic dims, bounded or not,
    do not count); otherwise it refuses the IR."""
    if pattern is None or -1 not in pattern or 0 not in pattern:
        return
    if data is not None and 0 in data:
        return
    target = ["?" if isinstance(p, DimOf) else p for p in pattern]
    raise ConversionError(
        f"node {quoted(node.name)} ({node.op.describe()}): the target shape {target} has a 0 and a -1, but the "
        f"input {format_shape(data)} has no dimension of size 0, so the -1 cannot be resolved; "
        "check the model's reshape target"
    )


def _check_element_count(node: Node, data: MaybeShape, out: MaybeShape) -> None:
    """The runtime's Reshape rule: the output holds as many elements as the input. Checked
    as far as both are known (static dims on both sides, the rest left to run time)."""
    dims = [d for d in data if d is not None] if data is not None else []
    if data is None or out is None or len(dims) < len(data):
        return
    total = math.prod(dims)
    known = [int(d) for d in out if d is not None]
    if any(d < 0 for d in known):
        return  # an unresolved -1: the runtime resolves it
    product = math.prod(known)
    fits = product == total if len(known) == len(out) else (product == 0 or total % product == 0)
    if not fits:
        raise ConversionError(
            f"node {quoted(node.name)} ({node.op.describe()}): cannot reshape {total} element(s) of shape "
            f"{list(data)} to {['?' if d is None else d for d in out]}"
        )


# ----------------------------------------------------------------------- Transpose
@dataclass(eq=False)
class Transpose(Op):
    """Inputs data and order; an empty order reverses the dims."""

    type = "Transpose"
    version = 1
    arity = (2, 2)

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        require_inputs(node, 2)  # an empty order reverses the dims, but the input is there
        require_integer(node, 1, "order")
        require_rank(node, 1, "order", 1)
        require_length(node, 1, "order", rank_of(in_shape(node, 0)), allow_empty=True)
        shape = in_shape(node, 0)
        order = in_value(node, 1)
        if shape is None:
            out: MaybeShape = dynamic_shape(_len_of_1d(in_shape(node, 1)) or None)
        elif order is None:
            out = dynamic_shape(len(shape))
        else:
            perm = normalize_axes(order.reshape(-1), len(shape)) if order.size else list(range(len(shape)))[::-1]
            if sorted(perm) != list(range(len(shape))):
                raise ConversionError(
                    f"node {quoted(node.name)} ({node.op.describe()}): order {order.reshape(-1).tolist()} is not a "
                    f"permutation of the input's {len(shape)} axes"
                )
            out = tuple(shape[p] for p in perm)
        set_output(node, 0, out, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.transpose(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, order = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
        # a view, not a copy: weights transposed into the IR's layout are usually rescaled
        # by a fusion next (a new array anyway) or gathered by the emitter as it writes
        return [np.transpose(x, order if order.size else None)]


# -------------------------------------------------------------------------- Concat
@dataclass(eq=False)
class Concat(Op):
    type = "Concat"
    version = 1
    arity = (1, None)

    axis: int = attr(0)

    def infer(self, node: Node) -> None:
        shapes = [in_shape(node, i) for i in range(node.num_inputs())]
        types = [in_type(node, i) for i in range(node.num_inputs())]
        out_type = next((t for t in types if t is not ElementType.dynamic), ElementType.dynamic)
        known = [s for s in shapes if s is not None]
        if len({t for t in types if t is not ElementType.dynamic}) > 1:
            raise ConversionError(f"node {quoted(node.name)} ({self.describe()}): inputs of different element types "
                                  f"({', '.join(t.value for t in types)})")
        if not known:
            set_output(node, 0, None, out_type)
            return
        rank = len(known[0])
        if any(len(s) != rank for s in known):
            raise ConversionError(f"node {quoted(node.name)} ({self.describe()}): inputs of different ranks "
                                  f"({', '.join(str(len(s)) for s in known)})")
        axis = normalize_axis(self.axis, rank)
        dims: list[Dim] = list(known[0])
        total: int | None = 0
        for shape in shapes:
            if shape is None:
                total = None
                continue
            for i, d in enumerate(shape):
                if i != axis:
                    dims[i] = merge_dim(dims[i], d)
            size = shape[axis]
            total = None if total is None or size is None else total + size
        dims[axis] = total
        set_output(node, 0, tuple(dims), out_type)

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.concat(node, self.axis)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        arrays = [np.asarray(v) for v in inputs]
        return [np.concatenate(arrays, axis=normalize_axis(self.axis, arrays[0].ndim))]


# --------------------------------------------------------------------------- Split
@dataclass(eq=False)
class Split(Op):
    """Inputs data and a scalar axis; ``num_splits`` equal parts."""

    type = "Split"
    version = 1
    arity = (2, 2)

    num_splits: int = attr(1)

    def num_outputs(self) -> int:
        return self.num_splits

    def infer(self, node: Node) -> None:
        require_integer(node, 1, "axis")
        require_rank(node, 1, "axis", 0)
        if self.num_splits < 1:
            raise ValueError(f"num_splits is {self.num_splits}: it must be at least 1")
        shape = in_shape(node, 0)
        axis_value = in_value(node, 1)
        out: MaybeShape
        if shape is None:
            out = None
        elif axis_value is None:
            out = dynamic_shape(len(shape))
        else:
            axis = normalize_axis(int(axis_value), len(shape))
            d = shape[axis]
            if d is not None and d % self.num_splits:  # the runtime refuses it as well
                raise ValueError(f"num_splits {self.num_splits} does not divide axis {axis}, of {d} elements")
            out = tuple((None if d is None else d // self.num_splits) if i == axis else x for i, x in enumerate(shape))
        for i in range(self.num_splits):
            set_output(node, i, out, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.split(node, self.num_splits)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        return list(np.split(x, self.num_splits, axis=normalize_axis(int(inputs[1]), x.ndim)))


@dataclass(eq=False)
class VariadicSplit(Op):
    """Inputs data, scalar axis and split lengths (one may be -1); one output per length."""

    type = "VariadicSplit"
    version = 1
    arity = (3, 3)

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        count = _len_of_1d(in_shape(node, 2))
        lengths = in_value(node, 2)
        axis_value = in_value(node, 1)
        if count is None:
            raise ConversionError("VariadicSplit needs split_lengths of a static length")
        for i in range(count):
            out: MaybeShape = None
            if shape is not None:
                out = dynamic_shape(len(shape))
                if axis_value is not None and lengths is not None:
                    axis = normalize_axis(int(axis_value), len(shape))
                    sizes = self.sizes(shape[axis], lengths)
                    out = tuple(sizes[i] if j == axis else d for j, d in enumerate(shape))
                elif axis_value is not None:
                    axis = normalize_axis(int(axis_value), len(shape))
                    out = tuple(None if j == axis else d for j, d in enumerate(shape))
            set_output(node, i, out, in_type(node, 0))

    @staticmethod
    def sizes(dim: Dim, lengths: np.ndarray) -> list[Dim]:
        sizes: list[Dim] = [int(v) for v in lengths.reshape(-1)]
        if -1 in sizes:
            pos = sizes.index(-1)
            rest = sum(s for i, s in enumerate(sizes) if i != pos and s is not None)
            sizes[pos] = None if dim is None else dim - rest
        return sizes

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.variadic_split(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axis = normalize_axis(int(inputs[1]), x.ndim)
        sizes = self.sizes(x.shape[axis], np.asarray(inputs[2]))
        bounds = np.cumsum([0] + [int(s or 0) for s in sizes])
        return [np.take(x, np.arange(bounds[i], bounds[i + 1]), axis=axis) for i in range(len(sizes))]


# ------------------------------------------------------------- Squeeze / Unsqueeze
def _squeezed(shape: MaybeShape, axes: np.ndarray | None, has_axes: bool, skip_dynamic: bool) -> MaybeShape:
    if shape is None:
        return None
    if not has_axes:
        if any(d is None for d in shape):
            return None
        return tuple(d for d in shape if d != 1)
    if axes is None:
        return None
    drop = set(normalize_axes(axes.reshape(-1), len(shape)))
    out: list[Dim] = []
    for i, d in enumerate(shape):
        if i not in drop:
            out.append(d)
        elif d is None and skip_dynamic:
            return None  # may or may not be squeezed at run time
        elif d not in (1, None) and not skip_dynamic:
            raise ConversionError(f"cannot squeeze axis {i} of size {d}")
        elif d not in (1, None):
            out.append(d)
    return tuple(out)


def _with_rank_of_run_time_axes(node: Node, shape: MaybeShape) -> MaybeShape:
    """Axes computed at run time, of a known count k, squeeze k dims (each must be 1): the
    output has k dims fewer, as the runtime infers it."""
    data, count = in_shape(node, 0), _len_of_1d(in_shape(node, 1)) if node.has_input(1) else None
    if shape is None and data is not None and in_value(node, 1) is None and count is not None:
        return dynamic_shape(len(data) - count)
    return shape


def _squeeze_value(x: np.ndarray, inputs: Sequence[np.ndarray], skip: bool) -> np.ndarray:
    if len(inputs) < 2:
        return np.squeeze(x)
    axes = [a for a in normalize_axes(np.asarray(inputs[1]).reshape(-1), x.ndim) if not skip or x.shape[a] == 1]
    return np.squeeze(x, axis=tuple(set(axes)))


@dataclass(eq=False)
class Squeeze_v1(Op):
    """Inputs data and optional axes; without axes every dim of size 1 goes."""

    type = "Squeeze"
    version = 1
    arity = (1, 2)

    def infer(self, node: Node) -> None:
        shape = _squeezed(in_shape(node, 0), in_value(node, 1), node.has_input(1), False)
        set_output(node, 0, _with_rank_of_run_time_axes(node, shape), in_type(node, 0))

    def check(self, node: Node) -> None:
        refuse_run_time_rank(node, "list of the dims of size 1 it squeezes")

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.squeeze(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [_squeeze_value(np.asarray(inputs[0]), inputs, False)]


@dataclass(eq=False)
class Squeeze(Op):
    """Squeeze-15: ``allow_axis_skip`` leaves listed axes that are not 1."""

    type = "Squeeze"
    version = 15
    arity = (1, 2)

    allow_axis_skip: bool = attr(False)

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        shape = _squeezed(in_shape(node, 0), in_value(node, 1), node.has_input(1), self.allow_axis_skip)
        if not self.allow_axis_skip:
            shape = _with_rank_of_run_time_axes(node, shape)
        set_output(node, 0, shape, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.squeeze(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [_squeeze_value(np.asarray(inputs[0]), inputs, self.allow_axis_skip)]

    def check(self, node: Node) -> None:
        """The CPU plugin implements ``allow_axis_skip`` only for fully static shapes (the back
        transform ``opset.squeeze_known_axes`` rewrites every case whose listed sizes are known);
        a listed axis of run-time size makes the output's rank depend on that size."""
        shape = in_shape(node, 0)
        if not self.allow_axis_skip:
            refuse_run_time_rank(node, "list of the dims of size 1 it squeezes")
            return
        if shape is not None and None not in shape and in_value(node, 1) is not None:
            return
        axes = in_value(node, 1)
        if shape is None or axes is None:
            what = "its input's rank is unknown" if shape is None else "its axes are computed at run time"
        else:
            dynamic = [a for a in normalize_axes(axes.reshape(-1), len(shape)) if shape[a] is None]
            what = f"axis {dynamic[0]} of its input {format_shape(shape)} has a run-time size"
        raise ConversionError(
            f"node {quoted(node.name)} ({node.op.describe()}) squeezes an axis only when its size is 1, and {what}: "
            "the output's rank would depend on it, which OpenVINO's CPU plugin cannot compile; "
            "give that dimension a static size (--input)"
        )


@dataclass(eq=False)
class Unsqueeze(Op):
    type = "Unsqueeze"
    version = 1
    arity = (2, 2)

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        shape, axes = in_shape(node, 0), in_value(node, 1)
        out: MaybeShape = None
        if shape is not None and axes is not None:
            rank = len(shape) + axes.size
            new = set(normalize_axes(axes.reshape(-1), rank))
            rest = iter(shape)
            out = tuple(1 if i in new else next(rest) for i in range(rank))
        elif shape is not None and _len_of_1d(in_shape(node, 1)) is not None:
            out = dynamic_shape(len(shape) + (_len_of_1d(in_shape(node, 1)) or 0))
        set_output(node, 0, out, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.unsqueeze(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        axes = np.asarray(inputs[1]).reshape(-1)
        rank = x.ndim + axes.size
        return [np.expand_dims(x, tuple(sorted(normalize_axes(axes, rank))))]


# ------------------------------------------------------------------------- ShapeOf
@dataclass(eq=False)
class ShapeOf_v1(Op):
    """ShapeOf-1: always i64. The value is set when the input shape is static."""

    type = "ShapeOf"
    version = 1
    arity = (1, 1)
    traits = frozenset({Trait.SHAPE_ONLY})

    def _out_type(self) -> ElementType:
        return ElementType.i64

    def infer(self, node: Node) -> None:
        require_at_most(node, 1)
        shape = in_shape(node, 0)
        et = self._out_type()
        if shape is not None and all(d is not None for d in shape):
            node.out_port(0).data.set_value(np.array(shape, dtype=et.numpy), shape_derived=True)
        else:
            set_output(node, 0, None if shape is None else (len(shape),), et)

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.shape_of(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(np.asarray(inputs[0]).shape, dtype=self._out_type().numpy)]


@dataclass(eq=False)
class ShapeOf(ShapeOf_v1):
    type = "ShapeOf"
    version = 3

    output_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)
    #: Earlier spelling of ``output_type``, still accepted.
    output_type_: InitVar[ElementType | None] = None

    def __post_init__(self, output_type_: ElementType | None) -> None:
        if output_type_ is not None:
            self.output_type = output_type_

    def _out_type(self) -> ElementType:
        return self.output_type


# ----------------------------------------------------------------------- Broadcast
@dataclass(eq=False)
class Broadcast(Op):
    """Broadcast-3: inputs data, target shape, axes mapping (``explicit`` mode only).

    ``numpy``: data broadcast to the target; ``bidirectional``: both broadcast together;
    ``explicit``: data dim ``i`` goes to output axis ``axes_mapping[i]``.
    """

    type = "Broadcast"
    version = 3
    arity = (2, 3)

    mode: str = attr("numpy", choices=("numpy", "explicit", "bidirectional", "pdpd"))

    def infer(self, node: Node) -> None:
        require_at_most(node, 3)
        if self.mode == "explicit":
            require_inputs(node, 3)  # the axes mapping
        require_integer(node, 1, "target shape")
        require_rank(node, 1, "target shape", 1)
        require_integer(node, 2, "axes mapping")
        data, target = in_shape(node, 0), shape_of_value(in_value(node, 1))
        if target is None and self.mode in ("numpy", "explicit"):  # a computed target: what is known of it
            partial = partial_elements(node.in_port(1).get_source())
            target = None if partial is None else tuple(t if isinstance(t, int) else None for t in partial)
        out: MaybeShape
        if target is None:
            rank = symbol_rules.proven_length(node, 1)
            if self.mode == "bidirectional" and rank is not None and data is not None:
                rank = max(rank, len(data))
            out = dynamic_shape(rank) if self.mode != "bidirectional" or data is not None else None
        elif self.mode == "bidirectional":
            out = broadcast_shapes(data, target)
        elif self.mode == "explicit":
            out = target
        else:
            out = target
            if data is not None:
                # a dim of 1 in the target takes the data's dim
                padded = (1,) * (len(target) - len(data)) + tuple(data)
                out = tuple(p if t == 1 else t for t, p in zip(target, padded, strict=False))
        set_output(node, 0, out, in_type(node, 0))

    def check(self, node: Node) -> None:
        refuse_run_time_rank(node, "target shape")

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.broadcast(node, self.mode)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        target = tuple(int(v) for v in np.asarray(inputs[1]).reshape(-1))
        if self.mode == "bidirectional":
            return [x * np.ones(target, dtype=x.dtype)]
        if self.mode == "explicit":
            mapping = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
            view = [1] * len(target)
            for i, axis in enumerate(mapping):
                view[axis] = x.shape[i]
            return [np.broadcast_to(x.reshape(view), target).copy()]
        padded = (1,) * (len(target) - x.ndim) + x.shape
        target = tuple(p if t == 1 else t for t, p in zip(target, padded, strict=False))
        return [np.broadcast_to(x, target).copy()]


@dataclass(eq=False)
class Broadcast_v1(Broadcast):
    """Broadcast-1: modes ``numpy``, ``explicit``, ``pdpd``."""

    type = "Broadcast"
    version = 1

    mode: str = attr("numpy", choices=("numpy", "explicit", "pdpd"))


# ---------------------------------------------------------------------------- Tile
@dataclass(eq=False)
class Tile(Op):
    type = "Tile"
    version = 1
    arity = (2, 2)

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        require_integer(node, 1, "repeats")
        require_rank(node, 1, "repeats", 1)
        shape, repeats = in_shape(node, 0), in_value(node, 1)
        partial = partial_elements(node.in_port(1).get_source()) if repeats is None else None
        out: MaybeShape = None
        if shape is not None and partial is not None:  # computed repeats: multiply what is known
            count = max(len(shape), len(partial))
            dims = (1,) * (count - len(shape)) + tuple(shape)
            known = [1] * (count - len(partial)) + [r if isinstance(r, int) else None for r in partial]
            out = tuple(None if d is None or r is None else d * r for d, r in zip(dims, known, strict=True))
        elif shape is not None and repeats is not None:
            reps = [int(r) for r in repeats.reshape(-1)]
            rank = max(len(shape), len(reps))
            dims = (1,) * (rank - len(shape)) + tuple(shape)
            reps = [1] * (rank - len(reps)) + reps
            out = tuple(None if d is None else d * r for d, r in zip(dims, reps, strict=False))
        elif shape is not None:
            n = _len_of_1d(in_shape(node, 1))
            out = None if n is None else dynamic_shape(max(n, len(shape)))
        set_output(node, 0, out, in_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.tile(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.tile(np.asarray(inputs[0]), [int(r) for r in np.asarray(inputs[1]).reshape(-1)])]


# ------------------------------------------------------------- Convert / ConvertLike
@dataclass(eq=False)
class Convert(Op):
    traits = frozenset({Trait.ELEMENTWISE, Trait.LAYOUT_AGNOSTIC})
    type = "Convert"
    version = 1
    arity = (1, 1)

    destination_type: ElementType = attr(ElementType.f32, choices=CONVERT_TYPES)

    def infer(self, node: Node) -> None:
        require_at_most(node, 1)
        set_output(node, 0, in_shape(node, 0), self.destination_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [_convert(np.asarray(inputs[0]), self.destination_type)]


def _convert(x: np.ndarray, target: ElementType) -> np.ndarray:
    """Convert as OpenVINO's CPU plugin does.

    Float to integer truncates toward zero through a 32-bit integer: values outside its
    range (and NaN, inf) become -2**31, and narrower or unsigned targets wrap. Float to
    boolean: non-zero and not NaN. Narrow floats (bf16, f8: irconv.narrow_float arrays) go
    through f32; to them, rounding is to nearest even and overflow gives inf (bf16, f8e5m2)
    or NaN (f8e4m3).
    """
    x = narrow_float.widen(x)
    if target.is_narrow_float:
        return narrow_float.cast(x if x.dtype.kind == "f" else x.astype(np.float64), target)
    dtype = np.dtype(target.numpy)
    if x.dtype.kind == "f" and dtype.kind in "iu":
        t = np.trunc(x.astype(np.float64))
        with np.errstate(invalid="ignore"):
            in_range = np.isfinite(t) & (t >= -(2**31)) & (t < 2**31)
        return np.where(in_range, t, -(2**31)).astype(np.int64).astype(dtype)
    if x.dtype.kind == "f" and dtype == np.bool_:
        return (x != 0) & ~np.isnan(x)
    return x.astype(dtype)


@dataclass(eq=False)
class ConvertLike(Op):
    """Inputs data and like: data converted to like's element type."""

    type = "ConvertLike"
    version = 1
    arity = (2, 2)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 1))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [_convert(np.asarray(inputs[0]), ElementType.from_numpy(np.asarray(inputs[1]).dtype))]


# -------------------------------------------------------------------------- Select
@dataclass(eq=False)
class Select(Op):
    """Inputs condition, then, else."""

    traits = frozenset({Trait.ELEMENTWISE})

    def has(self, trait: Trait) -> bool:
        if trait is Trait.ELEMENTWISE and self.auto_broadcast == "pdpd":
            return False
        return super().has(trait)

    type = "Select"
    version = 1
    arity = (3, 3)

    auto_broadcast: str = attr("numpy", choices=("none", "numpy", "pdpd"))

    def infer(self, node: Node) -> None:
        shapes = [in_shape(node, i) for i in range(3)]
        if self.auto_broadcast == "none":
            out = next((s for s in shapes if s is not None), None)
        else:
            out = broadcast_shapes(*shapes)
        out_type = in_type(node, 1)
        if out_type is ElementType.dynamic:
            out_type = in_type(node, 2)
        set_output(node, 0, out, out_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        cond, a, b = (np.asarray(v) for v in inputs[:3])
        return [np.where(cond.astype(bool), a, b).astype(a.dtype)]


# --------------------------------------------------------------------------- Range
def _range_length(start: float, stop: float, step: float) -> int:
    if step == 0:
        raise ConversionError("Range step must not be zero")
    return max(int(math.ceil((stop - start) / step)), 0)


@dataclass(eq=False)
class Range(Op):
    """Range-4: scalar inputs start, stop, step; output of ``output_type``."""

    type = "Range"
    version = 4
    arity = (3, 3)

    output_type: ElementType = attr(ElementType.i64, choices=NUMERIC_TYPES)

    def element_type(self, node: Node) -> ElementType:
        return self.output_type

    def infer(self, node: Node) -> None:
        require_inputs(node, 3)
        values = [in_value(node, i) for i in range(3)]
        length: Dim = None
        if all(v is not None for v in values):
            length = _range_length(*(float(np.asarray(v).reshape(-1)[0]) for v in values))
        set_output(node, 0, (length,), self.element_type(node))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.range_(node)

    def check(self, node: Node) -> None:
        """The runtime takes scalars only; a front end's one-element list is fine while the
        Range folds into a constant, not once it reaches the IR."""
        for idx, role in enumerate(("start", "stop", "step")):
            require_rank(node, idx, role, 0)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        start, stop, step = (np.asarray(v).reshape(-1)[0] for v in inputs[:3])
        dtype = self.output_type.numpy
        if np.issubdtype(dtype, np.integer):
            # the spec casts the inputs to the output type first
            start, stop, step = (np.trunc(v) for v in (start, stop, step))
        n = _range_length(float(start), float(stop), float(step))
        return [(start + step * np.arange(n)).astype(dtype)]


@dataclass(eq=False)
class Range_v1(Range):
    """Range-1: the output type follows the inputs."""

    type = "Range"
    version = 1

    def element_type(self, node: Node) -> ElementType:
        return in_type(node, 0)

    def ir_attributes(self) -> dict[str, str]:
        return {}

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        start, stop, step = (np.asarray(v).reshape(-1)[0] for v in inputs[:3])
        n = _range_length(float(start), float(stop), float(step))
        return [(start + step * np.arange(n)).astype(np.asarray(inputs[0]).dtype)]


# ------------------------------------------------------------------------ Identity
@dataclass(eq=False)
class Identity(Op):
    type = "Identity"
    version = 16
    arity = (1, 1)

    def infer(self, node: Node) -> None:
        set_output(node, 0, in_shape(node, 0), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(inputs[0], copy=True)]


OPS: tuple[type[Op], ...] = (
    Reshape,
    Transpose,
    Concat,
    Split,
    VariadicSplit,
    Squeeze_v1,
    Squeeze,
    Unsqueeze,
    ShapeOf_v1,
    ShapeOf,
    Broadcast_v1,
    Broadcast,
    Tile,
    Convert,
    ConvertLike,
    Select,
    Range_v1,
    Range,
    Identity,
)
