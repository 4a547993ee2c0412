"""Linear algebra: MatMul, Einsum, scaled dot-product attention, and FakeQuantize."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import quoted
from irconv.ops import Op, attr
from irconv.types import Dim, MaybeShape

from irconv_opset import symbol_rules
from irconv_opset.ops._spatial import broadcast_shapes, input_shape, input_type, merge_dim, set_output
from irconv_opset.rules import require_at_most, require_same_type
from irconv_opset.shapes import auto_broadcast

if TYPE_CHECKING:
    from irconv.graph import Node


@dataclass(eq=False)
class MatMul(Op):
    """MatMul-1: NumPy ``matmul`` after optional transposes of the two innermost axes.

    A 1-D operand is a row (first input) or a column (second input) vector and its
    unit axis is removed from the output; transposes do not apply to 1-D operands.
    """

    type = "MatMul"
    version = 1
    arity = (2, 2)

    transpose_a: bool = attr(False)
    transpose_b: bool = attr(False)

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        require_same_type(node, 0, 1, "second operand")
        set_output(node, 0, self._shape(input_shape(node, 0), input_shape(node, 1)), input_type(node, 0))

    def _shape(self, a: MaybeShape, b: MaybeShape) -> MaybeShape:
        if a is None or b is None:
            return None
        for name, shape in (("a", a), ("b", b)):
            if not shape:  # as OpenVINO's MatMul: "Scalars are not supported as MatMul inputs"
                raise ValueError(
                    f"MatMul: operand {name} is a scalar (rank 0); MatMul needs operands of rank 1 or more"
                )
        a_vector, b_vector = len(a) == 1, len(b) == 1
        a = (1, *a) if a_vector else _swap_last(a, self.transpose_a)
        b = (*b, 1) if b_vector else _swap_last(b, self.transpose_b)
        if a[-1] is not None and b[-2] is not None and a[-1] != b[-2]:
            raise ValueError(f"MatMul: inner dimensions differ ({a[-1]} vs {b[-2]})")
        batch = broadcast_shapes(a[:-2], b[:-2])
        assert batch is not None
        rows: tuple[Dim, ...] = () if a_vector else (a[-2],)
        cols: tuple[Dim, ...] = () if b_vector else (b[-1],)
        return (*batch, *rows, *cols)

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.matmul(node, self.transpose_a, self.transpose_b)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
        if self.transpose_a and a.ndim > 1:
            a = np.swapaxes(a, -1, -2)
        if self.transpose_b and b.ndim > 1:
            b = np.swapaxes(b, -1, -2)
        return [np.matmul(a, b).astype(inputs[0].dtype, copy=False)]


def _broadcast_dim(dims: list[Dim]) -> Dim:
    shape = broadcast_shapes(*((d,) for d in dims))
    return None if shape is None else shape[0]


def _swap_last(shape: tuple[Dim, ...], swap: bool) -> tuple[Dim, ...]:
    return (*shape[:-2], shape[-1], shape[-2]) if swap else shape


@dataclass(eq=False)
class Einsum(Op):
    """Einsum-7: Einstein summation over any number of inputs (``equation`` as in NumPy)."""

    type = "Einsum"
    version = 7
    arity = (1, None)

    equation: str = attr("")

    def __post_init__(self) -> None:
        # Always write the explicit form: the runtime reads an implicit output differently
        # from NumPy (and from ONNX/TensorFlow) when a label repeats inside one operand.
        text = self.equation.replace(" ", "")
        if text and "->" not in text:
            letters = text.replace("...", "").replace(",", "")
            once = sorted(c for c in set(letters) if letters.count(c) == 1)
            text += "->" + ("..." if "..." in text else "") + "".join(once)
        self.equation = text

    def _parse(self, count: int) -> tuple[list[str], str]:
        """Input subscripts and output subscript, ``...`` kept."""
        inputs_text, _, output = self.equation.partition("->")
        subscripts = inputs_text.split(",")
        if len(subscripts) != count:
            raise ValueError(f"Einsum equation {quoted(self.equation)} names {len(subscripts)} inputs, got {count}")
        return subscripts, output

    def infer(self, node: Node) -> None:
        shapes = [input_shape(node, i) for i in range(node.num_inputs())]
        subscripts, output = self._parse(len(shapes))
        labels: dict[str, list[Dim]] = {}
        ellipses: list[MaybeShape] = []
        for sub, shape in zip(subscripts, shapes, strict=True):
            if shape is None:
                if "..." in sub:
                    ellipses.append(None)
                continue
            head, dots, tail = sub.partition("...")
            if dots:
                ellipsis_rank = len(shape) - len(head) - len(tail)
                ellipses.append(tuple(shape[len(head) : len(head) + ellipsis_rank]))
                dims = list(zip(head, shape[: len(head)], strict=True))
                dims += list(zip(tail, shape[len(shape) - len(tail) :], strict=True))
            else:
                if len(sub) != len(shape):
                    raise ValueError(f"Einsum subscript {quoted(sub)} does not match an input of rank {len(shape)}")
                dims = list(zip(sub, shape, strict=True))
            # A label repeated inside one operand (a diagonal) names one size: no broadcasting.
            own: dict[str, Dim] = {}
            for label, dim in dims:
                own[label] = merge_dim(own.get(label), dim)
            for label, dim in own.items():
                labels.setdefault(label, []).append(dim)
        # Across operands a label's size 1 broadcasts against the others, as the runtime allows.
        size = {label: _broadcast_dim(dims) for label, dims in labels.items()}
        head, dots, tail = output.partition("...")
        if dots:
            broadcast = broadcast_shapes(*ellipses) if ellipses else ()
            if broadcast is None:
                set_output(node, 0, None, input_type(node, 0))
                return
            result = [size.get(c) for c in head] + list(broadcast) + [size.get(c) for c in tail]
        else:
            result = [size.get(c) for c in output]
        set_output(node, 0, tuple(result), input_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        self._parse(len(inputs))
        return [np.einsum(self.equation, *inputs).astype(inputs[0].dtype, copy=False)]


@dataclass(eq=False)
class ScaledDotProductAttention(Op):
    """ScaledDotProductAttention-13: softmax(Q·Kᵀ·scale + mask)·V.

    Inputs: query [..., L, E], key [..., S, E], value [..., S, Ev], optional
    attention_mask (boolean: True attends; or additive float), optional scalar scale
    (default 1/sqrt(E)). ``causal`` masks keys after the query position and ignores
    attention_mask.
    """

    type = "ScaledDotProductAttention"
    version = 13
    arity = (3, 5)

    causal: bool = attr(False)

    def infer(self, node: Node) -> None:
        query, key, value = (input_shape(node, i) for i in range(3))
        if query is None or value is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        batch = broadcast_shapes(query[:-2], value[:-2], key[:-2] if key is not None else query[:-2])
        length = query[-2]
        mask = input_shape(node, 3) if node.num_inputs() > 3 and node.has_input(3) else None
        if mask is not None and len(mask) >= 2 and mask[-2] != 1:  # a 1 may broadcast
            length = merge_dim(length, mask[-2])
        shape = None if batch is None else (*batch, length, value[-1])
        set_output(node, 0, shape, input_type(node, 0))

    def infer_symbols(self, node: Node) -> symbol_rules.Answer:
        return symbol_rules.attention(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        query, key, value = (np.asarray(x, np.float64) for x in inputs[:3])
        scale = float(np.asarray(inputs[4]).reshape(-1)[0]) if len(inputs) > 4 else 1.0 / np.sqrt(query.shape[-1])
        scores = np.matmul(query, np.swapaxes(key, -1, -2)) * scale
        length, source = query.shape[-2], key.shape[-2]
        if self.causal:
            allowed = np.tril(np.ones((length, source), bool))
            scores = np.where(allowed, scores, -np.inf)
        elif len(inputs) > 3:
            mask = np.asarray(inputs[3])
            scores = np.where(mask, scores, -np.inf) if mask.dtype == np.bool_ else scores + mask
        scores = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        return [np.matmul(weights, value).astype(inputs[0].dtype)]


@dataclass(eq=False)
class FakeQuantize(Op):
    """FakeQuantize-1: clamp to [input_low, input_high], quantize to ``levels`` steps,
    map onto [output_low, output_high]."""

    type = "FakeQuantize"
    version = 1
    arity = (5, 5)

    levels: int = attr(256)
    auto_broadcast: str = attr("numpy", choices=("none", "numpy", "pdpd"))

    def infer(self, node: Node) -> None:
        # The ranges broadcast onto the data; the output keeps the data's shape.
        if self.auto_broadcast == "none":
            for idx in range(1, 5):
                if node.has_input(idx):
                    auto_broadcast("none", input_shape(node, 0), input_shape(node, idx))
        set_output(node, 0, input_shape(node, 0), input_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        x, in_low, in_high, out_low, out_high = (np.asarray(v, np.float64) for v in inputs[:5])
        steps = self.levels - 1
        with np.errstate(all="ignore"):
            scaled = np.round((x - in_low) / (in_high - in_low) * steps) / steps * (out_high - out_low) + out_low
        result = np.where(
            x <= np.minimum(in_low, in_high), out_low, np.where(x > np.maximum(in_low, in_high), out_high, scaled)
        )
        return [result.astype(inputs[0].dtype)]


OPS: tuple[type[Op], ...] = (MatMul, Einsum, ScaledDotProductAttention, FakeQuantize)
