"""Recurrent layers as OpenVINO's LSTMSequence-5 / GRUSequence-5 / RNNSequence-5.

Every framework stacks its gates in its own order; OpenVINO's are LSTM ``f, i, c, o`` and
GRU ``z, r, h``. A gate order here is a tuple of gate names, one name per gate whatever a
framework calls it: LSTM ``i`` (input), ``f`` (forget), ``c`` (the cell candidate, torch's
``g``), ``o`` (output); GRU ``z`` (update), ``r`` (reset), ``h`` (the candidate, torch's
``n``); a plain RNN has the one gate ``h``. :func:`to_openvino` puts any sequence of gate
blocks (NumPy arrays, graph ports) into OpenVINO's order, so constants and weights computed
by the model reorder alike.

The sequence ops read the data batch first (X [N, T, I]), states [N, D, H], weights
stacked per direction (W [D, G*H, I], R [D, G*H, H], B [D, G*H], a GRU with
``linear_before_reset`` one gate more in B: its candidate's recurrent bias apart).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from irconv import ExtractContext
from irconv.errors import LoweringError
from irconv.frontend import i64
from irconv.graph import OutPort
from irconv.ops import Op

from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Gather,
    GRUSequence,
    LSTMSequence,
    Reshape,
    RNNSequence,
    ShapeOf,
    Slice,
    Split,
    Transpose,
)
from irconv_opset.build import shape_of
from irconv_opset.ops.sequence import RecurrentDirection

__all__ = [
    "BIAS_PORT_OPS",
    "GATE_PORT_OPS",
    "LAYERS_OPS",
    "LENGTHS_OPS",
    "MERGE_DIRECTIONS_OPS",
    "SEQUENCE_OPS",
    "ZERO_STATE_OPS",
    "Cell",
    "DirectionWeights",
    "GateOrder",
    "Recurrence",
    "bias_from_port",
    "full_lengths",
    "gate_blocks_to_openvino",
    "merge_directions",
    "packed_weights",
    "reorder_gate_port",
    "sequence",
    "stacked_layers",
    "summed_bias",
    "to_openvino",
    "zero_states",
]

GateOrder = tuple[str, ...]
T = TypeVar("T")


class Cell(enum.Enum):
    """The recurrence a sequence op computes, valued by OpenVINO's gate order."""

    LSTM = ("f", "i", "c", "o")
    GRU = ("z", "r", "h")
    RNN = ("h",)

    @classmethod
    def of(cls, order: GateOrder) -> Cell:
        """The cell whose gates ``order`` names (in any order)."""
        for cell in cls:
            if sorted(cell.value) == sorted(order):
                return cell
        raise ValueError(f"gate order {order} names the gates of no LSTM, GRU or RNN")


def to_openvino(blocks: Sequence[T], order: GateOrder) -> list[T]:
    """``blocks``, one per gate in ``order``, in OpenVINO's gate order."""
    if len(blocks) != len(order):
        raise LoweringError(f"{len(blocks)} gate blocks for the gate order {order}")
    return [blocks[order.index(gate)] for gate in Cell.of(order).value]


def gate_blocks_to_openvino(value: np.ndarray, order: GateOrder, axis: int = 0) -> np.ndarray:
    """A constant whose gates are stacked along ``axis`` in ``order``, restacked in OpenVINO's."""
    return np.concatenate(to_openvino(np.split(value, len(order), axis=axis), order), axis=axis)


def reorder_gate_port(ctx: ExtractContext, port: OutPort, order: GateOrder, axis: int, name: str) -> OutPort:
    """``port`` with its gates (stacked along ``axis`` in ``order``) in OpenVINO's order, by
    Split and Concat (constant folding makes one constant of a constant); no node when the
    orders agree."""
    if order == Cell.of(order).value:
        return port
    split = ctx.add(Split(num_splits=len(order)), [port, i64(ctx, axis)], f"{name}_gates")
    parts = to_openvino([split.out_port(i) for i in range(len(order))], order)
    return ctx.op(Concat(axis=axis), *parts, suffix=f"{name}_reordered")


#: What :func:`reorder_gate_port` may build.
GATE_PORT_OPS = (Split, Concat)


def summed_bias(input_bias: Sequence[T], recurrent_bias: Sequence[T], linear_before_reset: bool,
                add: Callable[[T, T, str], T]) -> list[T]:
    """The sequence op's bias blocks from the input and recurrent biases (one block per gate,
    OpenVINO's order): their sums, except for a GRU with ``linear_before_reset``, whose
    candidate keeps its two biases apart (the recurrent one sits inside the reset product).
    ``add(a, b, name)`` adds two blocks (``name``: the sum's, for graph nodes)."""
    if not linear_before_reset:
        return [add(a, b, f"B_{i}") for i, (a, b) in enumerate(zip(input_bias, recurrent_bias, strict=True))]
    z, r = (add(input_bias[i], recurrent_bias[i], f"B_{Cell.GRU.value[i]}") for i in range(2))
    return [z, r, input_bias[2], recurrent_bias[2]]


def bias_from_port(ctx: ExtractContext, port: OutPort, order: GateOrder, linear_before_reset: bool) -> OutPort:
    """B [D, G*H] (G+1 for ``linear_before_reset``) from ``port`` [D, 2*G*H]: the input biases
    then the recurrent ones, each stacked in ``order``, as ONNX keeps them."""
    gates = len(order)
    split = ctx.add(Split(num_splits=2 * gates), [port, i64(ctx, 1)], "B_parts")
    input_bias = to_openvino([split.out_port(i) for i in range(gates)], order)
    recurrent_bias = to_openvino([split.out_port(gates + i) for i in range(gates)], order)
    parts = summed_bias(input_bias, recurrent_bias, linear_before_reset,
                        lambda a, b, name: ctx.op(Add(), a, b, suffix=name))
    return ctx.op(Concat(axis=1), *parts, suffix="B")


#: What :func:`bias_from_port` may build.
BIAS_PORT_OPS = (Split, Add, Concat)


@dataclass(frozen=True)
class DirectionWeights:
    """One direction's constant weights as a framework keeps them, gates stacked along axis 0
    in ``order``: input weights [G*H, I], recurrent [G*H, H], the two biases [G*H] (None:
    zeros; one of them alone where the framework has a single bias)."""

    order: GateOrder
    input: np.ndarray
    recurrent: np.ndarray
    input_bias: np.ndarray | None = None
    recurrent_bias: np.ndarray | None = None


def packed_weights(directions: Sequence[DirectionWeights], linear_before_reset: bool = False,
                   dtype: np.dtype | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W, R, B for a sequence op: each direction's blocks in OpenVINO's order, the biases
    summed (:func:`summed_bias`), the directions stacked on a new axis 0."""
    ws, rs, bs = [], [], []
    for d in directions:
        gates = len(d.order)
        zeros = np.zeros(d.input.shape[0], d.input.dtype)
        blocks = [np.split(zeros if b is None else b.reshape(-1), gates) for b in (d.input_bias, d.recurrent_bias)]
        ws.append(gate_blocks_to_openvino(d.input, d.order))
        rs.append(gate_blocks_to_openvino(d.recurrent, d.order))
        parts = summed_bias(to_openvino(blocks[0], d.order), to_openvino(blocks[1], d.order), linear_before_reset,
                            lambda a, b, _: a + b)
        bs.append(np.concatenate(parts))
    w, r, b = (np.stack(parts) if dtype is None else np.stack(parts).astype(dtype) for parts in (ws, rs, bs))
    return w, r, b


@dataclass(frozen=True)
class Recurrence:
    """The attributes of a sequence op: which cell, its hidden size, direction, activations
    (empty: the op's defaults), the clip of the gate inputs (0: none), and for a GRU whether
    the reset gate multiplies after the recurrent product (``linear_before_reset``)."""

    cell: Cell
    hidden: int
    direction: RecurrentDirection = RecurrentDirection.forward
    activations: tuple[str, ...] = ()
    clip: float = 0.0
    linear_before_reset: bool = False

    @property
    def directions(self) -> int:
        return 2 if self.direction is RecurrentDirection.bidirectional else 1

    def op(self) -> Op:
        extra: dict[str, object] = {"activations": self.activations} if self.activations else {}
        if self.clip:
            extra["clip"] = self.clip
        op: Op
        if self.cell is Cell.LSTM:
            op = LSTMSequence(hidden_size=self.hidden, direction=self.direction, **extra)
        elif self.cell is Cell.GRU:
            op = GRUSequence(hidden_size=self.hidden, direction=self.direction,
                             linear_before_reset=self.linear_before_reset, **extra)
        else:
            op = RNNSequence(hidden_size=self.hidden, direction=self.direction, **extra)
        return op


def sequence(ctx: ExtractContext, recurrence: Recurrence, x: OutPort, states: Sequence[OutPort], lengths: OutPort,
             weights: tuple[OutPort, OutPort, OutPort], suffix: str = "sequence") -> list[OutPort]:
    """The sequence op over ``x`` [N, T, I] from ``states`` (h0, and c0 for an LSTM, each
    [N, D, H]), ``lengths`` [N] and (W, R, B): Y [N, D, T, H], Ho [N, D, H] (, Co)."""
    expected = 2 if recurrence.cell is Cell.LSTM else 1
    if len(states) != expected:
        raise LoweringError(f"an {recurrence.cell.name} sequence takes {expected} initial states, got {len(states)}")
    node = ctx.add(recurrence.op(), [x, *states, lengths, *weights], suffix)
    return [node.out_port(i) for i in range(node.num_outputs())]


#: What :func:`sequence` may build.
SEQUENCE_OPS = (LSTMSequence, GRUSequence, RNNSequence)


def full_lengths(ctx: ExtractContext, x: OutPort) -> OutPort:
    """Every sequence of ``x`` [N, T, ...] runs all T steps: [T] * N."""
    shape = shape_of(ctx, x)
    batch = ctx.op(Gather(), shape, i64(ctx, [0]), i64(ctx, 0), suffix="batch")
    steps = ctx.op(Gather(), shape, i64(ctx, 1), i64(ctx, 0), suffix="steps")
    return ctx.op(Broadcast(), steps, batch, suffix="lengths")


#: What :func:`full_lengths` may build.
LENGTHS_OPS = (ShapeOf, Gather, Broadcast)


def zero_states(ctx: ExtractContext, x: OutPort, zero: OutPort, directions: int, hidden: int,
                name: str = "initial_state") -> OutPort:
    """A state of zeros [N, D, H] for ``x`` [N, T, ...]; ``zero`` is a scalar of the state's type."""
    batch = ctx.op(Gather(), shape_of(ctx, x), i64(ctx, [0]), i64(ctx, 0), suffix=f"{name}_batch")
    target = ctx.op(Concat(axis=0), batch, i64(ctx, [directions, hidden]), suffix=f"{name}_shape")
    return ctx.op(Broadcast(), zero, target, suffix=name)


#: What :func:`zero_states` may build.
ZERO_STATE_OPS = (ShapeOf, Gather, Concat, Broadcast)


def merge_directions(ctx: ExtractContext, y: OutPort, suffix: str) -> OutPort:
    """Y [N, D, T, H] as [N, T, D*H]: the directions side by side on the last axis."""
    steps_first = ctx.op(Transpose(), y, i64(ctx, [0, 2, 1, 3]), suffix=f"{suffix}_y")
    return ctx.op(Reshape(special_zero=True), steps_first, i64(ctx, [0, 0, -1]), suffix=suffix)


#: What :func:`merge_directions` may build.
MERGE_DIRECTIONS_OPS = (Transpose, Reshape)


def stacked_layers(ctx: ExtractContext, layers: Sequence[tuple[Recurrence, tuple[OutPort, OutPort, OutPort]]],
                   x: OutPort, states: Sequence[OutPort], lengths: OutPort) -> tuple[OutPort, list[OutPort]]:
    """Layers of sequence ops, each reading the one before (its directions side by side), as
    torch and MXNet stack them: ``x`` [N, T, I]; ``states`` (h0, and c0 for LSTMs) each
    [L*D, N, H], every layer's directions in a row. Returns the last layer's output
    [N, T, D*H] and the final states, each [L*D, N, H]."""
    finals: list[list[OutPort]] = [[] for _ in states]
    for layer, (recurrence, weights) in enumerate(layers):
        d = recurrence.directions
        initial = []
        for state, name in zip(states, ("h", "c"), strict=False):
            part = ctx.op(Slice(), state, i64(ctx, [layer * d]), i64(ctx, [(layer + 1) * d]), i64(ctx, [1]),
                          i64(ctx, [0]), suffix=f"{name}{layer}")
            initial.append(ctx.op(Transpose(), part, i64(ctx, [1, 0, 2]), suffix=f"{name}{layer}_batch_first"))
        outputs = sequence(ctx, recurrence, x, initial, lengths, weights, f"layer{layer}")
        x = merge_directions(ctx, outputs[0], f"layer{layer}_out")
        for index, final in enumerate(finals):  # [N, D, H] -> [D, N, H]
            final.append(ctx.op(Transpose(), outputs[1 + index], i64(ctx, [1, 0, 2]),
                                suffix=f"layer{layer}_state{index}"))
    ends = [parts[0] if len(parts) == 1 else ctx.op(Concat(axis=0), *parts, suffix=f"state{i}")
            for i, parts in enumerate(finals)]
    return x, ends


#: What :func:`stacked_layers` may build, besides the layers' sequence op (``SEQUENCE_OPS``).
LAYERS_OPS = (Slice, Transpose, Reshape, Concat)
