"""Recurrent layers: LSTM, GRU, SimpleRNN and Bidirectional, as the IR's sequence ops.

Keras kernels are [in, gates * units] with gates in Keras' order; the IR's are [directions,
gates * units, in] with LSTM gates reordered from Keras' (i, f, c, o) to the IR's
(f, i, c, o) by ``irconv_opset.lowering.recurrent``; GRU's (z, r, h) are the same in both.
A GRU with ``reset_after`` applies its recurrent bias inside the reset gate: the IR's
``linear_before_reset`` with its 4-part bias.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, shortened
from irconv.frontend import aliases, extractor, f32, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import Multiply, ReduceMean, ReduceSum, Reshape, Reverse, Split, Squeeze
from irconv_opset.lowering.recurrent import (
    LENGTHS_OPS,
    MERGE_DIRECTIONS_OPS,
    SEQUENCE_OPS,
    ZERO_STATE_OPS,
    Cell,
    DirectionWeights,
    GateOrder,
    Recurrence,
    full_lengths,
    merge_directions,
    packed_weights,
    sequence,
    zero_states,
)
from irconv_opset.ops.sequence import RecurrentDirection

from irconv_tf.keras_reader.extractors._base import variables

#: Activations the IR's sequence ops compute (their ``activations`` attribute)
SEQUENCE_ACTIVATIONS = frozenset({"sigmoid", "tanh", "relu"})
#: Keras' gate orders (irconv_opset.lowering.recurrent's names)
_GATES: dict[str, GateOrder] = {"LSTM": ("i", "f", "c", "o"), "GRU": ("z", "r", "h"), "SimpleRNN": ("h",)}


@dataclass
class LayerCell:
    """One direction's weights, as W [gates*u, in], R [gates*u, u] and the biases in Keras' gate order."""

    kind: str
    units: int
    activations: tuple[str, ...]
    weights: DirectionWeights
    reset_after: bool = False


#: What a sequence layer may build.
_SEQ_PRODUCES = [*SEQUENCE_OPS, *ZERO_STATE_OPS, *LENGTHS_OPS, Squeeze, Reverse]


def _activation(ctx: ExtractContext, config: dict[str, Any], name: str, default: str) -> str:
    value = config.get(name, default)
    if value not in SEQUENCE_ACTIVATIONS:
        raise ctx.attrs.bad(name, value, f"the IR's recurrent sequences compute only {sorted(SEQUENCE_ACTIVATIONS)}")
    return str(value)


def _cell(ctx: ExtractContext, kind: str, config: dict[str, Any], under: str) -> LayerCell:
    """The cell of an RNN layer whose config is ``config`` and whose variables are ``under``."""
    if config.get("stateful"):
        raise ctx.attrs.bad("stateful", True, "stateful recurrent layers")
    count = 2 if config.get("use_bias", True) is False else 3
    found = variables(ctx, count, under)
    units = config.get("units")
    if not isinstance(units, int) or isinstance(units, bool) or units < 1:
        raise ctx.attrs.bad("units", units, "expected a positive integer")
    kernel, recurrent = (v.astype(np.float32) for v in found[:2])
    gates = len(_GATES[kind])
    bias = found[2].astype(np.float32) if count == 3 else np.zeros((gates * units,), np.float32)
    bias_size = (2 if kind == "GRU" and config.get("reset_after", True) is not False else 1) * gates * units
    if (
        kernel.ndim != 2
        or kernel.shape[1] != gates * units
        or recurrent.shape != (units, gates * units)
        or (bias.size != bias_size)
    ):
        raise ConversionError(
            f"{ctx.where()}: the weights under {shortened(repr(under))} ({kernel.shape}, {recurrent.shape}, {bias.shape}) "
            f"do not fit a {kind} of {units} units"
        )
    reset_after = kind == "GRU" and bool(config.get("reset_after", True))
    if kind == "LSTM":
        activations: tuple[str, ...] = (
            _activation(ctx, config, "recurrent_activation", "sigmoid"),
            _activation(ctx, config, "activation", "tanh"),
            _activation(ctx, config, "activation", "tanh"),
        )
    elif kind == "GRU":
        activations = (
            _activation(ctx, config, "recurrent_activation", "sigmoid"),
            _activation(ctx, config, "activation", "tanh"),
        )
    else:
        activations = (_activation(ctx, config, "activation", "tanh"),)
    # a GRU with reset_after keeps the input and the recurrent biases apart: [2, 3u]
    biases = bias.reshape(2, -1) if reset_after else bias.reshape(1, -1)
    weights = DirectionWeights(_GATES[kind], kernel.T, recurrent.T, *biases)
    return LayerCell(kind, units, activations, weights, reset_after)


def _sequence(ctx: ExtractContext, cells: list[LayerCell], direction: str) -> list[OutPort]:
    """The IR sequence op over input 0, from zero states: Y [N, dirs, T, u], Ho [N, dirs, u] (, Co)."""
    x = ctx.input(0)
    first = cells[0]
    zeros = zero_states(ctx, x, f32(ctx, 0.0, "zero"), len(cells), first.units)
    w, r, b = packed_weights([c.weights for c in cells], first.reset_after, np.dtype(np.float32))
    weights = (f32(ctx, w, "W"), f32(ctx, r, "R"), f32(ctx, b, "B"))
    recurrence = Recurrence(Cell.of(_GATES[first.kind]), first.units, RecurrentDirection(direction),
                            first.activations, linear_before_reset=first.reset_after)
    states = [zeros, zeros] if first.kind == "LSTM" else [zeros]
    return sequence(ctx, recurrence, x, states, full_lengths(ctx, x), weights, first.kind.lower())


def _squeeze_direction(ctx: ExtractContext, port: OutPort, suffix: str) -> OutPort:
    return ctx.op(Squeeze(), port, i64(ctx, [1], "direction_axis"), suffix=suffix)


def _rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """One direction; ``go_backwards`` reads the sequence from its end and, like Keras,
    returns the outputs in that reading order."""
    kind = ctx.source_op.op_type
    require_rank(ctx, 0)
    config = _config(ctx)
    cell = _cell(ctx, kind, config, "cell")
    backwards = ctx.attrs.bool("go_backwards", False)
    outputs = _sequence(ctx, [cell], "reverse" if backwards else "forward")
    if ctx.attrs.bool("return_sequences", False):
        result = _squeeze_direction(ctx, outputs[0], "sequence")
        if backwards:
            result = ctx.op(Reverse(mode="index"), result, i64(ctx, [1], "time_axis"), suffix="reading_order")
    else:
        result = _squeeze_direction(ctx, outputs[1], "last")
    states = [_squeeze_direction(ctx, port, f"state{i}") for i, port in enumerate(outputs[1:])]
    return [result, *states] if ctx.attrs.bool("return_state", False) else [result]


def _config(ctx: ExtractContext) -> dict[str, Any]:
    keys = ("units", "activation", "recurrent_activation", "use_bias", "reset_after", "stateful", "go_backwards")
    return {k: ctx.attrs.get(k) for k in keys if k in ctx.attrs}


@extractor("keras", "Bidirectional", produces=[*_SEQ_PRODUCES, *MERGE_DIRECTIONS_OPS, ReduceSum, ReduceMean, Multiply, Split])
def _bidirectional(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Both directions in one bidirectional sequence op, whose backward outputs are already
    in the input's order (Keras flips them back too); merged as ``merge_mode`` says."""
    require_rank(ctx, 0)
    forward, backward = ctx.attrs.get("layer"), ctx.attrs.get("backward_layer")
    if not isinstance(forward, dict) or not isinstance(backward, dict):
        raise ctx.attrs.bad("layer", forward, "expected the wrapped layers' configs")
    kind = forward.get("class_name")
    if kind not in ("LSTM", "GRU", "SimpleRNN") or backward.get("class_name") != kind:
        raise ctx.attrs.bad("layer", kind, "Bidirectional over LSTM, GRU or SimpleRNN layers of one kind")
    f_config, b_config = forward.get("config") or {}, backward.get("config") or {}
    if f_config.get("go_backwards") or not b_config.get("go_backwards"):
        raise ctx.attrs.bad("backward_layer", b_config.get("go_backwards"), "a backward layer reading forwards")
    if f_config.get("return_state"):
        raise ctx.attrs.bad("layer", "return_state", "Bidirectional returning states")
    cells = [_cell(ctx, kind, f_config, "forward_layer/cell"), _cell(ctx, kind, b_config, "backward_layer/cell")]
    if cells[0].activations != cells[1].activations or cells[0].units != cells[1].units:
        raise ctx.attrs.bad("backward_layer", "different", "directions with different units or activations")
    outputs = _sequence(ctx, cells, "bidirectional")
    # merge_mode None (a list of both outputs) reads as absent through ctx.attrs
    mode = ctx.attrs.get("merge_mode") if "merge_mode" in ctx.attrs.names() else "concat"
    sequences = bool(f_config.get("return_sequences", False))
    both = outputs[0] if sequences else outputs[1]  # [N, 2, T, u] or [N, 2, u]
    if mode == "concat":
        if sequences:
            return [merge_directions(ctx, both, "concat")]
        return [ctx.op(Reshape(special_zero=True), both, i64(ctx, [0, -1], "shape"), suffix="concat")]
    if mode == "sum":
        return [ctx.op(ReduceSum(keep_dims=False), both, i64(ctx, [1], "axis"), suffix="sum")]
    if mode == "ave":
        return [ctx.op(ReduceMean(keep_dims=False), both, i64(ctx, [1], "axis"), suffix="ave")]
    if mode in ("mul", None):
        halves = ctx.add(Split(num_splits=2), [both, i64(ctx, 1, "axis")], suffix="directions")
        a, b = (_squeeze_direction(ctx, halves.out_port(i), f"direction{i}") for i in range(2))
        return [ctx.op(Multiply(), a, b, suffix="mul")] if mode == "mul" else [a, b]
    raise ctx.attrs.bad("merge_mode", mode, "expected concat, sum, ave, mul or None")


RNN = aliases("keras", ["LSTM", "GRU", "SimpleRNN"], _rnn, produces=_SEQ_PRODUCES)
