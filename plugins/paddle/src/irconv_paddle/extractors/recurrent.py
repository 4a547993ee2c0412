"""Paddle's ``rnn`` operator (paddle.nn.LSTM, GRU, SimpleRNN) through the shared recurrent lowering."""

from __future__ import annotations

import numpy as np
from irconv import ConversionError, ExtractContext
from irconv.frontend import aliases, i64
from irconv.graph import Node, OutPort
from irconv_opset import Transpose
from irconv_opset.lowering.recurrent import (
    LAYERS_OPS,
    LENGTHS_OPS,
    SEQUENCE_OPS,
    Cell,
    DirectionWeights,
    Recurrence,
    full_lengths,
    packed_weights,
    stacked_layers,
)
from irconv_opset.ops.sequence import RecurrentDirection

from irconv_paddle.extractors._common import args, x

#: mode -> (gate order of Paddle's stacked weights, activations; empty for the op's defaults).
_MODES = {"LSTM": (("i", "f", "c", "o"), ()), "GRU": (("r", "z", "h"), ()), "RNN_TANH": (("h",), ("tanh",)),
          "RNN_RELU": (("h",), ("relu",))}


def extract_rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Time-major input [T, N, I], initial states (h, and c for an LSTM) [L*D, N, H] and the
    weight list (every layer's and direction's input and recurrent weights [G*H, ...], then
    their biases in the same order); results Y [T, N, D*H], the dropout state, the final
    states and the reserve (the dropout state and reserve unused at inference). The GRU multiplies its reset gate after the recurrent
    product (``linear_before_reset``)."""
    mode = ctx.attrs.choice("mode", list(_MODES), "LSTM")
    order, activations = _MODES[mode]
    layers, hidden = ctx.attrs.int("num_layers", 1), ctx.attrs.int("hidden_size")
    directions = 2 if ctx.attrs.bool("is_bidirec", False) else 1
    states, weights = args(ctx, 1), args(ctx, 2)
    if args(ctx, 3):
        raise ConversionError(f"{ctx.where()}: rnn with sequence lengths is not converted yet")
    values = [port.constant(shape_derived=False) for port in weights]
    if any(v is None for v in values) or len(values) != 4 * layers * directions:
        raise ConversionError(f"{ctx.where()}: rnn needs its {4 * layers * directions} weights as constants")
    half = len(values) // 2
    direction = RecurrentDirection.bidirectional if directions == 2 else RecurrentDirection.forward
    stacked = []
    for layer in range(layers):
        per_direction = []
        for d in range(directions):
            k = 2 * (layer * directions + d)
            per_direction.append(DirectionWeights(order, np.asarray(values[k]), np.asarray(values[k + 1]),
                                                  np.asarray(values[half + k]), np.asarray(values[half + k + 1])))
        w, r, b = packed_weights(per_direction, linear_before_reset=mode == "GRU")
        recurrence = Recurrence(Cell.of(order), hidden, direction, activations, linear_before_reset=mode == "GRU")
        stacked.append((recurrence, (ctx.const(w, suffix=f"w{layer}"), ctx.const(r, suffix=f"r{layer}"),
                                     ctx.const(b, suffix=f"b{layer}"))))
    batch_first = ctx.op(Transpose(), x(ctx), i64(ctx, [1, 0, 2], "batch_first"), suffix="x_batch_first")
    out, finals = stacked_layers(ctx, stacked, batch_first, states, full_lengths(ctx, batch_first))
    y = ctx.op(Transpose(), out, i64(ctx, [1, 0, 2], "time_major"))
    # results: Y, the dropout state, the final states, the reserve (the last two unused at inference)
    dropout_state = ctx.const(np.zeros((0,), np.uint8), suffix="dropout_state")
    reserve = [ctx.const(np.zeros((0,), np.uint8), suffix="reserve")] * (node.num_outputs() - 2 - len(finals))
    return [y, dropout_state, *finals, *reserve]


RNN = aliases("paddle", ["rnn", "pd_op.rnn"], extract_rnn, produces=[Transpose, *SEQUENCE_OPS, *LAYERS_OPS, *LENGTHS_OPS])
