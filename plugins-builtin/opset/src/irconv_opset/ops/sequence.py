"""Recurrent ops: LSTM/GRU/RNN cells and whole-sequence layers.

Gate orders follow the OpenVINO specification: LSTM ``f, i, c, o``; GRU ``z, r, h``.
Sequence inputs are batch-first: X [batch, seq_len, input_size], states
[batch, num_directions, hidden_size].
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType, format_shape

from irconv_opset.ops._attrs import INDEX_TYPES, CoercedAttrs
from irconv_opset.ops._spatial import input_shape, input_type, merge_dim, set_output
from irconv_opset.rules import require_integer, require_rank, require_same_type

if TYPE_CHECKING:
    from irconv.graph import Node


class RecurrentDirection(str, enum.Enum):
    forward = "forward"
    reverse = "reverse"
    bidirectional = "bidirectional"


def _activation(name: str) -> Callable[[np.ndarray], np.ndarray] | None:
    """The NumPy form of an activation named in ``activations`` (None: not evaluated here).

    The runtime's recurrent ops accept sigmoid, tanh and relu, none of which take
    ``activations_alpha``/``activations_beta``.
    """
    if name == "sigmoid":
        return lambda x: 1.0 / (1.0 + np.exp(-x))
    if name == "tanh":
        return np.tanh
    if name == "relu":
        return lambda x: np.maximum(x, 0.0)
    return None


@dataclass(eq=False)
class _RecurrentBase(CoercedAttrs, Op):
    """Attributes every cell and sequence shares."""

    hidden_size: int = attr(1)
    activations: tuple[str, ...] = attr(())
    activations_alpha: tuple[float, ...] = attr(())
    activations_beta: tuple[float, ...] = attr(())
    clip: float = attr(0.0)

    def _functions(self) -> list[Callable[[np.ndarray], np.ndarray] | None]:
        return [_activation(name) for name in self.activations]

    def _step_functions(self) -> list[Callable[[np.ndarray], np.ndarray]]:
        """The activations of ``step``: ``evaluate`` returns None before a step when one has
        no NumPy form, so each is there."""
        functions = [f for f in self._functions() if f is not None]
        assert len(functions) == len(self.activations)
        return functions

    def _clipped(self, x: np.ndarray) -> np.ndarray:
        return np.clip(x, -self.clip, self.clip) if self.clip > 0 else x

    def _require_gate_sizes(self, node: Node, first_weight: int, axis: int) -> None:
        """W, R (inputs ``first_weight``, +1) hold ``gates * hidden_size`` rows along ``axis``,
        B (+2) as many, or one gate more for a GRU's ``linear_before_reset``: the runtime
        refuses other sizes when it reads the IR."""
        gates: int = getattr(self, "gates", 0)
        extra = 1 if getattr(self, "linear_before_reset", False) else 0
        for offset, role, count in ((0, "W", gates), (1, "R", gates), (2, "B", gates + extra)):
            shape = input_shape(node, first_weight + offset) if node.has_input(first_weight + offset) else None
            if (
                gates
                and shape is not None
                and len(shape) > axis
                and shape[axis] not in (None, count * self.hidden_size)
            ):
                raise ConversionError(
                    f"node {quoted(node.name)} ({self.describe()}): input {first_weight + offset} ({role}) has "
                    f"{shape[axis]} rows along axis {axis}, expected {count} gate(s) x hidden_size {self.hidden_size}"
                )

    def _require_runnable_x(self, node: Node, first_weight: int) -> None:
        """X (input 0) has no zero-size dimension and as many features (its last axis) as W
        (input ``first_weight``) has columns: the CPU plugin cannot compile a recurrent op
        otherwise (it fails to reorder X, or stops on a division by zero for an empty batch)."""
        x = input_shape(node, 0)
        if x is not None and 0 in x:
            raise ConversionError(
                f"node {quoted(node.name)} ({self.describe()}): input 0 (X) has shape {format_shape(x)}, a zero-size "
                "dimension; OpenVINO cannot run a recurrent op on an empty tensor (give the model input non-zero "
                "dimensions, e.g. with --input name[d0,d1,...])"
            )
        w = input_shape(node, first_weight) if node.has_input(first_weight) else None
        if x and w and x[-1] is not None and w[-1] is not None and x[-1] != w[-1]:
            raise ConversionError(
                f"node {quoted(node.name)} ({self.describe()}): input 0 (X) has {x[-1]} features (last axis), but "
                f"input {first_weight} (W) has {w[-1]} columns: the two must match"
            )

    def _batch(self, node: Node, inputs: Sequence[int], roles: Sequence[str]) -> Dim:
        """The batch size the ``inputs`` share along axis 0 (X, the states, the sequence
        lengths): the runtime refuses two known sizes that differ."""
        batch: Dim = None
        first = -1
        for idx in inputs:
            shape = input_shape(node, idx) if node.has_input(idx) else None
            if not shape or shape[0] is None:
                continue
            if batch is None:
                batch, first = shape[0], idx
            elif shape[0] != batch:
                raise ConversionError(
                    f"node {quoted(node.name)} ({self.describe()}): input {idx} ({roles[idx]}) has batch size {shape[0]}, "
                    f"but input {first} ({roles[first]}) has {batch}"
                )
        return batch

    def step(
        self, x: np.ndarray, states: list[np.ndarray], w: np.ndarray, r: np.ndarray, b: np.ndarray
    ) -> list[np.ndarray]:
        """One time step for a batch: returns the new states (hidden first)."""
        raise NotImplementedError


class _LSTMStep(_RecurrentBase):
    """LSTM step: gates f, i, c, o; states (H, C)."""

    gates = 4

    def step(
        self, x: np.ndarray, states: list[np.ndarray], w: np.ndarray, r: np.ndarray, b: np.ndarray
    ) -> list[np.ndarray]:
        f, g, h = self._step_functions()
        hidden, cell = states
        gates = x @ w.T + hidden @ r.T + b
        forget, inp, cand, out = np.split(self._clipped(gates), 4, axis=-1)
        cell = f(forget) * cell + f(inp) * g(cand)
        hidden = f(out) * h(cell)
        return [hidden, cell]


class _GRUStep(_RecurrentBase):
    """GRU step: gates z, r, h; optional ``linear_before_reset``; state H."""

    linear_before_reset: bool
    gates = 3

    def step(
        self, x: np.ndarray, states: list[np.ndarray], w: np.ndarray, r: np.ndarray, b: np.ndarray
    ) -> list[np.ndarray]:
        f, g = self._step_functions()
        (hidden,) = states
        hidden_size = hidden.shape[-1]
        w_z, w_r, w_h = np.split(w, 3, axis=0)
        r_z, r_r, r_h = np.split(r, 3, axis=0)
        if self.linear_before_reset:
            b_z, b_r, b_wh, b_rh = np.split(b, 4, axis=-1)
        else:
            b_z, b_r, b_wh = np.split(b, 3, axis=-1)
            b_rh = np.zeros(hidden_size, b.dtype)
        clip = self._clipped
        z = f(clip(x @ w_z.T + hidden @ r_z.T + b_z))
        reset = f(clip(x @ w_r.T + hidden @ r_r.T + b_r))
        if self.linear_before_reset:
            candidate = g(clip(x @ w_h.T + reset * (hidden @ r_h.T + b_rh) + b_wh))
        else:
            candidate = g(clip(x @ w_h.T + (reset * hidden) @ r_h.T + b_wh))
        return [(1 - z) * candidate + z * hidden]


class _RNNStep(_RecurrentBase):
    """Plain RNN step: H = f(X·Wᵀ + H·Rᵀ + B)."""

    gates = 1

    def step(
        self, x: np.ndarray, states: list[np.ndarray], w: np.ndarray, r: np.ndarray, b: np.ndarray
    ) -> list[np.ndarray]:
        (f,) = self._step_functions()
        (hidden,) = states
        return [f(self._clipped(x @ w.T + hidden @ r.T + b))]


# ---- cells -------------------------------------------------------------------------------


_ROLES_CELL = ("X", "initial state", "W", "R", "B")
_ROLES_SEQUENCE = ("X", "initial state", "sequence lengths", "W", "R", "B")


@dataclass(eq=False)
class _CellBase(_RecurrentBase):
    """A cell: inputs X [batch, input], the states [batch, hidden], W, R, B; outputs the new states."""

    _state_count = 1

    def infer(self, node: Node) -> None:
        n = self._state_count
        for idx in [*range(1, 1 + n), *range(1 + n, 4 + n)]:  # the states, W, R, B compute with X
            require_same_type(node, 0, idx, "states, W, R and B")
        # X [batch, input], states [batch, hidden], W [gates, input], R [gates, hidden], B [gates]
        for idx, rank in [(0, 2), *((i, 2) for i in range(1, 1 + n)), (1 + n, 2), (2 + n, 2), (3 + n, 1)]:
            require_rank(node, idx, _ROLES_CELL[min(idx, 1) if idx <= n else idx - n + 1], rank)
        self._require_gate_sizes(node, 1 + n, 0)
        self._require_runnable_x(node, 1 + n)
        roles = ["X", *(["initial state"] * n)]
        batch = self._batch(node, range(1 + n), roles)
        for out in range(self._state_count):
            set_output(node, out, (batch, self.hidden_size), input_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        if None in self._functions():
            return None  # an activation NumPy does not have here: leave the node unfolded
        n = self._state_count
        x = np.asarray(inputs[0], np.float64)
        states = [np.asarray(v, np.float64) for v in inputs[1 : 1 + n]]
        w, r, b = (np.asarray(v, np.float64) for v in inputs[1 + n : 4 + n])
        return [s.astype(inputs[0].dtype) for s in self.step(x, states, w, r, b)]


@dataclass(eq=False)
class LSTMCell(_LSTMStep, _CellBase):
    """LSTMCell-4: inputs X, H, C, W [4h, input], R [4h, h], B [4h]; outputs H, C."""

    type = "LSTMCell"
    version = 4
    arity = (6, 6)
    outputs = 2
    _state_count = 2

    activations: tuple[str, ...] = attr(("sigmoid", "tanh", "tanh"))


@dataclass(eq=False)
class GRUCell(_GRUStep, _CellBase):
    """GRUCell-3: inputs X, H, W [3h, input], R [3h, h], B [3h, or 4h with linear_before_reset]."""

    type = "GRUCell"
    version = 3
    arity = (4, 5)

    activations: tuple[str, ...] = attr(("sigmoid", "tanh"))

    linear_before_reset: bool = attr(False)


@dataclass(eq=False)
class RNNCell(_RNNStep, _CellBase):
    """RNNCell (opset1): inputs X, H, W [h, input], R [h, h], B [h]."""

    type = "RNNCell"
    version = 1
    arity = (5, 5)

    activations: tuple[str, ...] = attr(("tanh",))


# ---- sequences ---------------------------------------------------------------------------


@dataclass(eq=False)
class _SequenceBase(_RecurrentBase):
    """A whole sequence: X, the initial states, sequence_lengths [batch], W, R, B (one per direction)."""

    direction: RecurrentDirection = attr(RecurrentDirection.forward)

    _state_count = 1

    @property
    def num_directions(self) -> int:
        return 2 if self.direction is RecurrentDirection.bidirectional else 1

    def num_outputs(self) -> int:
        return 1 + self._state_count

    def infer(self, node: Node) -> None:
        n = self._state_count
        for idx in [*range(1, 1 + n), *range(2 + n, 5 + n)]:  # the states, W, R, B compute with X
            require_same_type(node, 0, idx, "states, W, R and B")
        require_integer(node, 1 + n, "sequence lengths")
        # X [batch, steps, input], states [batch, dirs, hidden], lengths [batch],
        # W [dirs, gates, input], R [dirs, gates, hidden], B [dirs, gates]
        ranks = [3, *([3] * n), 1, 3, 3, 2]
        for idx, rank in enumerate(ranks):
            require_rank(node, idx, _ROLES_SEQUENCE[min(idx, 1) if idx <= n else idx - n + 1], rank)
        self._require_gate_sizes(node, 2 + n, 1)
        self._require_runnable_x(node, 2 + n)
        for idx, axis in [*((i, 1) for i in range(1, 1 + n)), (2 + n, 0), (3 + n, 0), (4 + n, 0)]:
            shape = input_shape(node, idx) if node.has_input(idx) else None
            if shape is not None and len(shape) > axis and shape[axis] not in (None, self.num_directions):
                raise ConversionError(
                    f"node {quoted(node.name)} ({self.describe()}): input {idx} has {shape[axis]} direction(s) along "
                    f"axis {axis}, but direction={self.direction.value} computes {self.num_directions}"
                )
        x = input_shape(node, 0)
        roles = ["X", *(["initial state"] * n), "sequence lengths"]
        batch = self._batch(node, range(2 + n), roles)
        steps = x[1] if x else None
        element = input_type(node, 0)
        set_output(node, 0, (batch, self.num_directions, steps, self.hidden_size), element)
        for out in range(self._state_count):
            set_output(node, 1 + out, (batch, self.num_directions, self.hidden_size), element)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        if None in self._functions():
            return None  # an activation NumPy does not have here: leave the node unfolded
        n = self._state_count
        x = np.asarray(inputs[0], np.float64)
        initial = [np.asarray(v, np.float64) for v in inputs[1 : 1 + n]]
        lengths = np.asarray(inputs[1 + n]).reshape(-1).astype(np.int64)
        w, r, b = (np.asarray(v, np.float64) for v in inputs[2 + n : 5 + n])
        batch, steps, _ = x.shape
        ys = np.zeros((batch, self.num_directions, steps, self.hidden_size))
        finals = [np.zeros((batch, self.num_directions, self.hidden_size)) for _ in range(n)]
        for d in range(self.num_directions):
            reverse = self.direction is RecurrentDirection.reverse or d == 1
            states = [s[:, d] for s in initial]
            for t in range(steps):
                # Reverse runs start at each sequence's own last valid step.
                index = lengths - 1 - t if reverse else np.full(batch, t)
                valid = (t < lengths)[:, None]
                x_t = x[np.arange(batch), np.clip(index, 0, steps - 1)]
                new = self.step(x_t, states, w[d], r[d], b[d])
                states = [np.where(valid, s_new, s_old) for s_new, s_old in zip(new, states, strict=False)]
                rows = np.nonzero(valid[:, 0])[0]
                ys[rows, d, index[rows]] = states[0][rows]
            for k in range(n):
                finals[k][:, d] = states[k]
        dtype = inputs[0].dtype
        return [ys.astype(dtype), *(f.astype(dtype) for f in finals)]


@dataclass(eq=False)
class LSTMSequence(_LSTMStep, _SequenceBase):
    """LSTMSequence-5: inputs X, H0, C0, sequence_lengths, W, R, B; outputs Y, Ho, Co."""

    type = "LSTMSequence"
    version = 5
    arity = (7, 7)
    _state_count = 2

    activations: tuple[str, ...] = attr(("sigmoid", "tanh", "tanh"))


@dataclass(eq=False)
class GRUSequence(_GRUStep, _SequenceBase):
    """GRUSequence-5: inputs X, H0, sequence_lengths, W, R, B; outputs Y, Ho."""

    type = "GRUSequence"
    version = 5
    arity = (6, 6)

    activations: tuple[str, ...] = attr(("sigmoid", "tanh"))

    linear_before_reset: bool = attr(False)


@dataclass(eq=False)
class RNNSequence(_RNNStep, _SequenceBase):
    """RNNSequence-5: inputs X, H0, sequence_lengths, W, R, B; outputs Y, Ho."""

    type = "RNNSequence"
    version = 5
    arity = (6, 6)

    activations: tuple[str, ...] = attr(("tanh",))


# ---- CTC decoding ------------------------------------------------------------------------


@dataclass(eq=False)
class CTCGreedyDecoder(CoercedAttrs, Op):
    """CTCGreedyDecoder-1: data [T, N, C], sequence mask [T, N] -> class indices [N, T, 1, 1] (as data's type)."""

    type = "CTCGreedyDecoder"
    version = 1
    arity = (2, 2)

    ctc_merge_repeated: bool = attr(True)

    def infer(self, node: Node) -> None:
        data, mask = input_shape(node, 0), input_shape(node, 1)
        steps = merge_dim(data[0] if data else None, mask[0] if mask else None)
        batch = merge_dim(data[1] if data else None, mask[1] if mask else None)
        set_output(node, 0, (batch, steps, 1, 1), input_type(node, 0))


@dataclass(eq=False)
class CTCGreedyDecoderSeqLen(CoercedAttrs, Op):
    """CTCGreedyDecoderSeqLen-6: data [N, T, C], sequence_length [N], optional blank_index ->
    class indices [N, T] (-1 padded) and decoded lengths [N]."""

    type = "CTCGreedyDecoderSeqLen"
    version = 6
    arity = (2, 3)
    outputs = 2

    merge_repeated: bool = attr(True)
    classes_index_type: ElementType = attr(ElementType.i32, choices=INDEX_TYPES)
    sequence_length_type: ElementType = attr(ElementType.i32, choices=INDEX_TYPES)

    def infer(self, node: Node) -> None:
        data, lengths = input_shape(node, 0), input_shape(node, 1)
        batch = merge_dim(data[0] if data else None, lengths[0] if lengths else None)
        steps = data[1] if data else None
        set_output(node, 0, (batch, steps), self.classes_index_type)
        set_output(node, 1, (batch,), self.sequence_length_type)


OPS: tuple[type[Op], ...] = (
    LSTMCell,
    GRUCell,
    RNNCell,
    LSTMSequence,
    GRUSequence,
    RNNSequence,
    CTCGreedyDecoder,
    CTCGreedyDecoderSeqLen,
)
