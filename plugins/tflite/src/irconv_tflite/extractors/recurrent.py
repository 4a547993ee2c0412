"""TFLite's fused recurrent operators as OpenVINO LSTMSequence-5 / RNNSequence-5.

TFLite keeps one weight matrix per gate, in the order input, forget, cell, output
(``W_i, W_f, W_c, W_o`` then the recurrent ``R_*``, then the biases); OpenVINO reads one
matrix per direction with the gates stacked f, i, c, o. The stacking is done with
Concat in the graph (constant folding makes one constant of it), so weights computed by
the model convert too. The operator's fused activation is the cell's activation (``g``
and ``h``); the gates use the sigmoid. The one-step LSTM and RNN operators are sequences
of one step.

TFLite bounds the cell state (``cell_clip``; Keras-made LSTMs set 10), which
LSTMSequence cannot do (its ``clip`` bounds the gate inputs): a clipped LSTM becomes a
TensorIterator per direction with the step spelled out (``irconv_opset.lowering.lstm_iterator``).

The states are TFLite variable tensors that start at zeros (the loader reads them as
such); the sequence output is the operator's only output (two for a bidirectional
operator that does not merge them). Peepholes, projection, layer normalisation, coupled
input/forget gates (no input-gate weights) and an auxiliary input are refused with an
error naming the operator.

A full-integer UNIDIRECTIONAL_SEQUENCE_LSTM (int8 sequence and weights, int32 biases, an
int16 cell state) is computed in the float domain like the other quantized operators; its
cell state is bounded where the int16 grid ends, as TFLite's integer kernel saturates it.
Other integer recurrent operators are refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import Concat, LSTMSequence, RNNSequence, Split, Squeeze, Transpose, Unsqueeze
from irconv_opset.lowering.lstm_iterator import LSTM_ITERATOR_OPS, LstmStep, lstm_iterator
from irconv_opset.lowering.recurrent import (
    LENGTHS_OPS,
    Cell,
    GateOrder,
    Recurrence,
    full_lengths,
    sequence,
    to_openvino,
)
from irconv_opset.ops.sequence import RecurrentDirection

from irconv_tflite.extractors._common import input_tensor
from irconv_tflite.loader import quantized
from irconv_tflite.schema.tflite_generated import TensorType

#: TFLite's LSTM gate order (irconv_opset.lowering.recurrent's names)
_LSTM_GATES: GateOrder = ("i", "f", "c", "o")
#: fused_activation_function -> the cell activation OpenVINO's sequence ops know
_CELL_ACTIVATIONS = {"TANH": "tanh", "RELU": "relu"}


def _refuse(ctx: ExtractContext, what: str) -> ConversionError:
    return ConversionError(f"{ctx.where()}: {what} is not supported by irconv's TFLite front end "
                           "(OpenVINO's sequence ops have no such input); convert the model without it")


def _check_common(ctx: ExtractContext, integer_ok: bool = False) -> str:
    """The checks every recurrent operator shares; returns the cell activation. With
    ``integer_ok``, a quantized (full-integer) sequence is read in the float domain."""
    data = input_tensor(ctx, 0)
    if data is not None and data.type != TensorType.FLOAT32 and not (integer_ok and quantized(data) is not None):
        raise _refuse(ctx, f"a {data.type_name} sequence (a full-integer quantized recurrent operator)")
    kind = ctx.attrs.choice("fused_activation_function", ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH",
                                                          "SIGN_BIT"], "TANH")
    if kind not in _CELL_ACTIVATIONS:
        raise ctx.attrs.bad("fused_activation_function", kind, "OpenVINO's sequence ops take TANH or RELU")
    return _CELL_ACTIVATIONS[kind]


def _refuse_present(ctx: ExtractContext, indices: Sequence[int], what: str) -> None:
    if any(ctx.has_input(i) for i in indices):
        raise _refuse(ctx, what)


def _stacked(ctx: ExtractContext, first: int, name: str) -> OutPort:
    """Four per-gate tensors at inputs ``first..first+3`` (i, f, c, o), stacked f, i, c, o
    along axis 0: [4H, ...]."""
    gates = to_openvino([ctx.input(first + i) for i in range(len(_LSTM_GATES))], _LSTM_GATES)
    return ctx.op(Concat(axis=0), *gates, suffix=name)


def _direction_axis(ctx: ExtractContext, port: OutPort, axis: int, name: str) -> OutPort:
    return ctx.op(Unsqueeze(), port, i64(ctx, [axis]), suffix=name)


def _batch_first(ctx: ExtractContext, x: OutPort, time_major: bool) -> OutPort:
    if not time_major:
        return x
    return ctx.op(Transpose(), x, i64(ctx, [1, 0, 2]), suffix="batch_first")


def _direction(count: int) -> RecurrentDirection:
    return RecurrentDirection.forward if count == 1 else RecurrentDirection.bidirectional


def _hidden_size(ctx: ExtractContext, recurrent_weights: int) -> int:
    shape = ctx.input_shape(recurrent_weights)
    if shape is None or len(shape) != 2 or shape[0] is None:
        raise ConversionError(f"{ctx.where()}: the recurrent weights (input {recurrent_weights}) need a known "
                              f"[hidden, hidden] shape, found {shape}")
    return int(shape[0])


def _lstm_direction(ctx: ExtractContext, first_weight: int, first_bias: int, peepholes: int,
                    projection: int) -> tuple[tuple[OutPort, OutPort, OutPort], int]:
    """(W [4H, I], R [4H, H], B [4H]) and H of one direction whose input weights start at
    ``first_weight`` (then the recurrent weights), biases at ``first_bias``."""
    if not ctx.has_input(first_weight):
        raise _refuse(ctx, "an LSTM without input-gate weights (coupled input and forget gates, CIFG)")
    _refuse_present(ctx, range(peepholes, peepholes + 3), "an LSTM with peephole connections")
    _refuse_present(ctx, range(projection, projection + 2), "an LSTM with a projection layer")
    hidden = _hidden_size(ctx, first_weight + 4)
    weights = (_stacked(ctx, first_weight, "W"), _stacked(ctx, first_weight + 4, "R"), _stacked(ctx, first_bias, "B"))
    return weights, hidden


def _lstm_sequence(ctx: ExtractContext, x: OutPort, directions: list[tuple[tuple[OutPort, ...], OutPort, OutPort]],
                   hidden: int, activation: str) -> list[OutPort]:
    """One LSTMSequence over ``x`` [batch, steps, I] for one direction or both (forward,
    backward), each given as ((W, R, B), h0, c0); Y [batch, steps, H] per direction."""
    def stacked(ports: list[OutPort], axis: int, name: str) -> OutPort:
        parts = [_direction_axis(ctx, p, axis, f"{name}{d}") for d, p in enumerate(ports)]
        return parts[0] if len(parts) == 1 else ctx.op(Concat(axis=axis), *parts, suffix=name)

    w, r, b = (stacked([d[0][k] for d in directions], 0, name) for k, name in enumerate(("W_", "R_", "B_")))
    h0 = stacked([d[1] for d in directions], 1, "H0_")
    c0 = stacked([d[2] for d in directions], 1, "C0_")
    recurrence = Recurrence(Cell.LSTM, hidden, _direction(len(directions)), ("sigmoid", activation, activation))
    y = sequence(ctx, recurrence, x, [h0, c0], full_lengths(ctx, x), (w, r, b))[0]  # [batch, directions, steps, H]
    if len(directions) > 1:
        y_parts = ctx.add(Split(num_splits=2), [y, i64(ctx, 1)], "directions")
        ys = [y_parts.out_port(d) for d in range(2)]
    else:
        ys = [y]
    return [ctx.op(Squeeze(), part, i64(ctx, [1]), suffix=f"Y{d}") for d, part in enumerate(ys)]


def _time_major_out(ctx: ExtractContext, y: OutPort, time_major: bool, name: str) -> OutPort:
    if not time_major:
        return y
    return ctx.op(Transpose(), y, i64(ctx, [1, 0, 2]), suffix=f"{name}_time_major")


def _clipped_lstm(ctx: ExtractContext, x: OutPort, states: tuple[OutPort, OutPort],
                  weights: tuple[OutPort, OutPort, OutPort], activation: str, cell_clip: float, reverse: bool,
                  suffix: str) -> OutPort:
    """Y [batch, steps, H] of one direction whose cell state is bounded by ``cell_clip``."""
    step = LstmStep(Cell.LSTM.value, ("sigmoid", activation, activation), cell_clip=cell_clip)
    return lstm_iterator(ctx, step, x, 1, states, weights, reverse=reverse, suffix=suffix)[0]


_LSTM_OPS = [LSTMSequence, *LSTM_ITERATOR_OPS, Concat, Unsqueeze, Squeeze, Transpose, Split, *LENGTHS_OPS]


def _cell_clip(ctx: ExtractContext, cell_state: int) -> float:
    """The bound of the cell state (0: none): ``cell_clip``, and in a full-integer LSTM the
    end of the int16 grid the cell state is kept on (TFLite saturates it there)."""
    clip = ctx.attrs.float("cell_clip", 0.0)
    tensor = input_tensor(ctx, cell_state)
    grid = None if tensor is None else quantized(tensor)
    if grid is None or tensor is None or tensor.type != TensorType.INT16:
        return clip
    bound = float(np.max(grid.scale)) * float(np.iinfo(np.int16).max)
    return bound if clip <= 0 else min(clip, bound)


def _unidirectional_lstm(ctx: ExtractContext, x: OutPort, activation: str, time_major: bool) -> OutPort:
    """Y of the LSTM whose inputs are laid out as UNIDIRECTIONAL_SEQUENCE_LSTM's (LSTM's
    are the same) over the sequence ``x``."""
    _refuse_present(ctx, range(20, 24), "an LSTM with layer normalisation")
    weights, hidden = _lstm_direction(ctx, 1, 12, 9, 16)
    x = _batch_first(ctx, x, time_major)
    clip = _cell_clip(ctx, 19)
    if clip > 0:
        y = _clipped_lstm(ctx, x, (ctx.input(18), ctx.input(19)), weights, activation, clip, False, "forward")
    else:
        (y,) = _lstm_sequence(ctx, x, [(weights, ctx.input(18), ctx.input(19))], hidden, activation)
    return _time_major_out(ctx, y, time_major, "Y")


@extractor("tflite", "UNIDIRECTIONAL_SEQUENCE_LSTM", produces=_LSTM_OPS)
def unidirectional_sequence_lstm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: x, W_ifco (1-4), R_ifco (5-8), peepholes (9-11), biases (12-15),
    projection (16-17), output and cell state (18, 19), layer-norm weights (20-23)."""
    activation = _check_common(ctx, integer_ok=True)
    if ctx.attrs.bool("diagonal_recurrent_tensors", False):
        raise ctx.attrs.bad("diagonal_recurrent_tensors", True, "only full recurrent matrices convert")
    return [_unidirectional_lstm(ctx, ctx.input(0), activation, ctx.attrs.bool("time_major", False))]


@extractor("tflite", "LSTM", produces=_LSTM_OPS)
def lstm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """One step of an LSTM: x [batch, I] and the inputs of UNIDIRECTIONAL_SEQUENCE_LSTM,
    run as a sequence of one step. The basic kernel (four inputs, four outputs) is refused."""
    activation = _check_common(ctx)
    if ctx.attrs.choice("kernel_type", ["FULL", "BASIC"], "FULL") != "FULL":
        raise ctx.attrs.bad("kernel_type", "BASIC", "only the full LSTM kernel converts")
    steps = ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, [1]), suffix="one_step")
    y = _unidirectional_lstm(ctx, steps, activation, False)
    return [ctx.op(Squeeze(), y, i64(ctx, [1]), suffix="step_output")]


@extractor("tflite", "BIDIRECTIONAL_SEQUENCE_LSTM", produces=_LSTM_OPS)
def bidirectional_sequence_lstm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: x; forward W_ifco (1-4), R_ifco (5-8), peepholes (9-11), biases (12-15),
    projection (16-17); backward the same at 18-34; states fw h, c (35, 36), bw h, c
    (37, 38); an auxiliary input (39) and its weights (40-47). ``merge_outputs``
    concatenates the directions on the last axis; otherwise they are two outputs."""
    activation = _check_common(ctx)
    _refuse_present(ctx, range(39, 48), "a bidirectional LSTM with an auxiliary input")
    forward, hidden = _lstm_direction(ctx, 1, 12, 9, 16)
    backward, _ = _lstm_direction(ctx, 18, 29, 26, 33)
    time_major = ctx.attrs.bool("time_major", True)
    x = _batch_first(ctx, ctx.input(0), time_major)
    clip = ctx.attrs.float("cell_clip", 0.0)
    if clip > 0:
        ys = [_clipped_lstm(ctx, x, (ctx.input(35), ctx.input(36)), forward, activation, clip, False, "forward"),
              _clipped_lstm(ctx, x, (ctx.input(37), ctx.input(38)), backward, activation, clip, True, "backward")]
    else:
        ys = _lstm_sequence(ctx, x, [(forward, ctx.input(35), ctx.input(36)),
                                     (backward, ctx.input(37), ctx.input(38))], hidden, activation)
    outputs = [_time_major_out(ctx, y, time_major, name) for y, name in zip(ys, ("Y_fw", "Y_bw"), strict=True)]
    if ctx.attrs.bool("merge_outputs", False):
        return [ctx.op(Concat(axis=-1), *outputs, suffix="Y")]
    return outputs


def _rnn_sequence(ctx: ExtractContext, x: OutPort, directions: list[tuple[int, int]], activation: str) -> list[OutPort]:
    """One RNNSequence over ``x`` [batch, steps, I] for one direction or both (forward,
    backward), each given as (index of its W, then R and bias; index of its hidden state);
    Y [batch, steps, H] per direction."""
    hidden = _hidden_size(ctx, directions[0][0] + 1)

    def stacked(indices: list[int], axis: int, name: str) -> OutPort:
        parts = [_direction_axis(ctx, ctx.input(i), axis, f"{name}{d}") for d, i in enumerate(indices)]
        return parts[0] if len(parts) == 1 else ctx.op(Concat(axis=axis), *parts, suffix=name)

    w, r, b = (stacked([first + k for first, _ in directions], 0, name) for k, name in enumerate(("W", "R", "B")))
    h0 = stacked([state for _, state in directions], 1, "H0")
    recurrence = Recurrence(Cell.RNN, hidden, _direction(len(directions)), (activation,))
    y = sequence(ctx, recurrence, x, [h0], full_lengths(ctx, x), (w, r, b))[0]  # [batch, directions, steps, H]
    if len(directions) == 1:
        return [ctx.op(Squeeze(), y, i64(ctx, [1]), suffix="Y")]
    parts = ctx.add(Split(num_splits=2), [y, i64(ctx, 1)], "directions")
    return [ctx.op(Squeeze(), parts.out_port(d), i64(ctx, [1]), suffix=f"Y{d}") for d in range(2)]


_RNN_OPS = [RNNSequence, Concat, Unsqueeze, Squeeze, Transpose, Split, *LENGTHS_OPS]


@extractor("tflite", "UNIDIRECTIONAL_SEQUENCE_RNN", produces=_RNN_OPS)
def unidirectional_sequence_rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: x, W [H, I], R [H, H], bias [H], hidden state [batch, H];
    h = act(x W^T + h R^T + b)."""
    activation = _check_common(ctx)
    time_major = ctx.attrs.bool("time_major", False)
    (y,) = _rnn_sequence(ctx, _batch_first(ctx, ctx.input(0), time_major), [(1, 4)], activation)
    return [_time_major_out(ctx, y, time_major, "Y")]


@extractor("tflite", "RNN", produces=_RNN_OPS)
def rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """One step: x [batch, I], W, R, bias, hidden state, as a sequence of one step."""
    activation = _check_common(ctx)
    steps = ctx.op(Unsqueeze(), ctx.input(0), i64(ctx, [1]), suffix="one_step")
    (y,) = _rnn_sequence(ctx, steps, [(1, 4)], activation)
    return [ctx.op(Squeeze(), y, i64(ctx, [1]), suffix="step_output")]


@extractor("tflite", "BIDIRECTIONAL_SEQUENCE_RNN", produces=_RNN_OPS)
def bidirectional_sequence_rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Inputs: x; forward W, R, bias, hidden state (1-4); backward the same (5-8); an
    auxiliary input and its weights (9-11), refused. ``merge_outputs`` concatenates the
    directions on the last axis; otherwise they are two outputs."""
    activation = _check_common(ctx)
    _refuse_present(ctx, range(9, 12), "a bidirectional RNN with an auxiliary input")
    time_major = ctx.attrs.bool("time_major", False)
    ys = _rnn_sequence(ctx, _batch_first(ctx, ctx.input(0), time_major), [(1, 4), (5, 8)], activation)
    outputs = [_time_major_out(ctx, y, time_major, name) for y, name in zip(ys, ("Y_fw", "Y_bw"), strict=True)]
    if ctx.attrs.bool("merge_outputs", False):
        return [ctx.op(Concat(axis=-1), *outputs, suffix="Y")]
    return outputs
