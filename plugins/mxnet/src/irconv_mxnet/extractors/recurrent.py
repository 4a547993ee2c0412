"""The fused ``RNN`` op (lstm, gru, rnn_relu, rnn_tanh; layers, bidirectional) as one
LSTMSequence/GRUSequence/RNNSequence per layer.

MXNet packs every weight into one flat ``parameters`` input (Gluon builds it with
``_rnn_param_concat``): per layer, per direction, the input-to-hidden then the
hidden-to-hidden matrices [gates * H, in]; then all the biases in the same order. Gates are
in cuDNN order — LSTM i, f, g, o; GRU r, z, n — and the IR wants f, i, c, o and z, r, h.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import Transpose
from irconv_opset.lowering import recurrent
from irconv_opset.ops.sequence import RecurrentDirection

#: MXNet's (cuDNN's) gate order per mode, as irconv_opset.lowering.recurrent names the gates
GATES: dict[str, recurrent.GateOrder] = {
    "lstm": ("i", "f", "c", "o"), "gru": ("r", "z", "h"), "rnn_relu": ("h",), "rnn_tanh": ("h",)}


class _Unpacker:
    """Reads consecutive blocks of the flat parameter vector."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values.reshape(-1)
        self.offset = 0

    def take(self, *shape: int) -> np.ndarray:
        size = int(np.prod(shape))
        if self.offset + size > self.values.size:
            raise ValueError(f"needs more than the {self.values.size} values given")
        block = self.values[self.offset : self.offset + size].reshape(shape)
        self.offset += size
        return block


@extractor("mxnet", "RNN", produces=[*recurrent.LAYERS_OPS, *recurrent.SEQUENCE_OPS,
                                              *recurrent.LENGTHS_OPS, Transpose])
def rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:

    mode = ctx.attrs.choice("mode", list(GATES), "lstm")
    for name in ("projection_size", "lstm_state_clip_min", "lstm_state_clip_max"):
        if name in ctx.attrs:
            raise ctx.attrs.bad(name, ctx.attrs.get(name), "not supported")
    if ctx.attrs.bool("use_sequence_length", False):
        raise ctx.attrs.bad("use_sequence_length", True, "variable sequence lengths are not supported")
    hidden, layers = ctx.attrs.int("state_size"), ctx.attrs.int("num_layers", 1)
    directions = 2 if ctx.attrs.bool("bidirectional", False) else 1
    order = GATES[mode]
    gates = len(order)
    shape = ctx.input_shape(0)
    if shape is None or len(shape) != 3 or shape[2] is None:
        raise ConversionError(f"{ctx.where()}: RNN needs [T, N, C] data with a static C, got {shape}")
    packed = ctx.input_value(1)
    if packed is None:
        raise ConversionError(f"{ctx.where()}: RNN needs constant parameters (input 1)")
    unpack = _Unpacker(np.asarray(packed))
    weights: list[list[tuple[np.ndarray, np.ndarray]]] = []
    try:
        for layer in range(layers):
            size = int(shape[2]) if layer == 0 else directions * hidden
            weights.append([(unpack.take(gates * hidden, size), unpack.take(gates * hidden, hidden))
                            for _ in range(directions)])
        biases = [[(unpack.take(gates * hidden), unpack.take(gates * hidden)) for _ in range(directions)]
                  for _ in range(layers)]
    except ValueError as exc:
        raise ConversionError(f"{ctx.where()}: the parameters (input 1) do not fit the layers: {exc}") from None
    if unpack.offset != unpack.values.size:
        raise ConversionError(
            f"{ctx.where()}: the parameters (input 1) hold {unpack.values.size} values, expected {unpack.offset}"
        )

    # GRU: the candidate's hidden bias stays inside the reset product (linear_before_reset)
    activations = ("relu",) if mode == "rnn_relu" else ("tanh",) if mode == "rnn_tanh" else ()
    direction = RecurrentDirection.bidirectional if directions == 2 else RecurrentDirection.forward
    recurrence = recurrent.Recurrence(recurrent.Cell.of(order), hidden, direction, activations,
                                      linear_before_reset=mode == "gru")
    stack = []
    for layer in range(layers):
        directions_weights = [recurrent.DirectionWeights(order, wi, wh, bi, bh)
                              for (wi, wh), (bi, bh) in zip(weights[layer], biases[layer], strict=True)]
        w, r, b = recurrent.packed_weights(directions_weights, recurrence.linear_before_reset, np.dtype(np.float32))
        stack.append((recurrence, (ctx.const(w, suffix=f"l{layer}_W"), ctx.const(r, suffix=f"l{layer}_R"),
                                   ctx.const(b, suffix=f"l{layer}_B"))))
    x = ctx.op(Transpose(), ctx.input(0), i64(ctx, [1, 0, 2], "to_batch_major"), suffix="batch_major")
    states = [ctx.input(2), ctx.input(3)] if mode == "lstm" else [ctx.input(2)]
    x, finals = recurrent.stacked_layers(ctx, stack, x, states, recurrent.full_lengths(ctx, x))
    outputs = [ctx.op(Transpose(), x, i64(ctx, [1, 0, 2]), suffix="time_major")]
    return outputs + finals[: ctx.source_op.n_outputs - 1]


