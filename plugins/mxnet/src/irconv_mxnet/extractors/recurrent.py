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
from irconv.types import ElementType
from irconv_opset import (
    Broadcast,
    Concat,
    Const,
    Convert,
    Gather,
    GRUSequence,
    LSTMSequence,
    Reshape,
    RNNSequence,
    ShapeOf,
    Slice,
    Transpose,
)
from irconv_opset.build import shape_of

GATES = {"lstm": 4, "gru": 3, "rnn_relu": 1, "rnn_tanh": 1}
#: IR gate order as indices into MXNet's.
REORDER = {"lstm": [1, 0, 2, 3], "gru": [1, 0, 2], "rnn_relu": [0], "rnn_tanh": [0]}


def _gates(matrix: np.ndarray, mode: str) -> np.ndarray:
    """Reorder the gate blocks (axis 0) of a [gates * H, ...] array into the IR's order."""
    blocks = np.split(matrix, GATES[mode], axis=0)
    return np.concatenate([blocks[i] for i in REORDER[mode]], axis=0)


def _bias(input_bias: np.ndarray, hidden_bias: np.ndarray, mode: str) -> np.ndarray:
    """One direction's IR bias: the two summed, except GRU's candidate gate, whose hidden
    bias stays inside the reset product (linear_before_reset)."""
    if mode != "gru":
        return _gates(input_bias + hidden_bias, mode)
    r_i, z_i, n_i = np.split(input_bias, 3)
    r_h, z_h, n_h = np.split(hidden_bias, 3)
    return np.concatenate([z_i + z_h, r_i + r_h, n_i, n_h])


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


def rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:

    mode = ctx.attrs.choice("mode", list(GATES), "lstm")
    for name in ("projection_size", "lstm_state_clip_min", "lstm_state_clip_max"):
        if name in ctx.attrs:
            raise ctx.attrs.bad(name, ctx.attrs.get(name), "not supported")
    if ctx.attrs.bool("use_sequence_length", False):
        raise ctx.attrs.bad("use_sequence_length", True, "variable sequence lengths are not supported")
    hidden, layers = ctx.attrs.int("state_size"), ctx.attrs.int("num_layers", 1)
    directions = 2 if ctx.attrs.bool("bidirectional", False) else 1
    gates = GATES[mode]
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

    data = ctx.input(0)
    dims = shape_of(ctx, data)
    steps = ctx.op(Gather(), dims, i64(ctx, 0), i64(ctx, 0, "axis"), suffix="steps")
    batch = ctx.op(Gather(), dims, i64(ctx, [1]), i64(ctx, 0, "axis"), suffix="batch")
    lengths = ctx.op(Convert(destination_type=ElementType.i32), ctx.op(Broadcast(), steps, batch, suffix="lengths"),
                     suffix="lengths_i32")
    x = ctx.op(Transpose(), data, i64(ctx, [1, 0, 2], "to_batch_major"), suffix="batch_major")
    direction = "bidirectional" if directions == 2 else "forward"
    hidden_out, cell_out = [], []
    dtype = np.dtype(np.float32)
    for layer in range(layers):

        def initial(idx: int, name: str, layer: int = layer) -> OutPort:
            state = ctx.op(Slice(), ctx.input(idx), i64(ctx, [layer * directions]),
                           i64(ctx, [(layer + 1) * directions]), i64(ctx, [1]), i64(ctx, [0]),
                           suffix=f"l{layer}_{name}")
            return ctx.op(Transpose(), state, i64(ctx, [1, 0, 2]), suffix=f"l{layer}_{name}_batch_major")

        w = ctx.const(np.stack([_gates(wi, mode) for wi, _ in weights[layer]]).astype(dtype), suffix=f"l{layer}_W")
        r = ctx.const(np.stack([_gates(wh, mode) for _, wh in weights[layer]]).astype(dtype), suffix=f"l{layer}_R")
        b = ctx.const(np.stack([_bias(bi, bh, mode) for bi, bh in biases[layer]]).astype(dtype),
                      suffix=f"l{layer}_B")
        if mode == "lstm":
            seq = ctx.add(LSTMSequence(hidden_size=hidden, direction=direction),
                          [x, initial(2, "h0"), initial(3, "c0"), lengths, w, r, b], f"l{layer}_lstm")
            cell_out.append(seq.out_port(2))
        elif mode == "gru":
            seq = ctx.add(GRUSequence(hidden_size=hidden, direction=direction, linear_before_reset=True),
                          [x, initial(2, "h0"), lengths, w, r, b], f"l{layer}_gru")
        else:
            activation = "relu" if mode == "rnn_relu" else "tanh"
            seq = ctx.add(RNNSequence(hidden_size=hidden, direction=direction, activations=(activation,)),
                          [x, initial(2, "h0"), lengths, w, r, b], f"l{layer}_rnn")
        hidden_out.append(seq.out_port(1))
        # Y [N, D, T, H] -> [N, T, D * H], the next layer's input.
        y = ctx.op(Transpose(), seq.out_port(0), i64(ctx, [0, 2, 1, 3]), suffix=f"l{layer}_y")
        x = ctx.op(Reshape(special_zero=True), y, i64(ctx, [0, 0, -1]), suffix=f"l{layer}_out")

    def states(ports: list[OutPort], name: str) -> OutPort:
        """[N, D, H] per layer -> [L * D, N, H]."""
        parts = [ctx.op(Transpose(), p, i64(ctx, [1, 0, 2]), suffix=f"{name}{i}") for i, p in enumerate(ports)]
        return parts[0] if len(parts) == 1 else ctx.op(Concat(axis=0), *parts, suffix=name)

    outputs = [ctx.op(Transpose(), x, i64(ctx, [1, 0, 2]), suffix="time_major")]
    if ctx.source_op.n_outputs > 1:
        outputs.append(states(hidden_out, "hy"))
    if ctx.source_op.n_outputs > 2 and cell_out:
        outputs.append(states(cell_out, "cy"))
    return outputs



RNN = extractor("mxnet", "RNN", rnn, produces=[ShapeOf, Gather, Broadcast, Convert, Transpose, Slice, Const, LSTMSequence,
                                              GRUSequence, RNNSequence, Reshape, Concat])
