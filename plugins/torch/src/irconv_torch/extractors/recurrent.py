"""LSTM and GRU (kept whole by the decomposition) as LSTMSequence / GRUSequence per layer.

torch packs every layer's and direction's weights in ``params`` (``w_ih, w_hh[, b_ih,
b_hh]``), gates in the order i, f, g, o (LSTM) and r, z, n (GRU); OpenVINO wants f, i, c, o
and z, r, h, one sequence op per layer with the directions stacked, batch first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64
from irconv.graph import OutPort
from irconv_opset import Broadcast, Concat, Gather, GRUSequence, LSTMSequence, Reshape, ShapeOf, Slice, Transpose

from irconv_torch.extractors._args import TORCH_2_5, tensor, tensors

_LSTM_GATES = [1, 0, 2, 3]  # torch i, f, g, o -> OpenVINO f, i, c, o
_GRU_GATES = [1, 0, 2]  # torch r, z, n -> OpenVINO z, r, h


@dataclass(frozen=True)
class _Layout:
    layers: int
    directions: int
    hidden: int
    batch_first: bool
    has_biases: bool


def _layout(ctx: ExtractContext, params: list[np.ndarray], gates: int) -> _Layout:
    if ctx.attrs.bool("train", False):
        raise ctx.attrs.bad("train", True, "a recurrent layer in training mode; call model.eval() first")
    return _Layout(layers=ctx.attrs.int("num_layers"), directions=2 if ctx.attrs.bool("bidirectional") else 1,
                   hidden=params[1].shape[1], batch_first=ctx.attrs.bool("batch_first"),
                   has_biases=ctx.attrs.bool("has_biases"))


def _weights(ctx: ExtractContext) -> list[np.ndarray]:
    values = []
    for index, port in enumerate(tensors(ctx, "params")):
        value = None if port is None else port.constant(shape_derived=False)
        if value is None:
            raise ConversionError(f"{ctx.where()}: recurrent weight {index} must be a constant")
        values.append(np.asarray(value))
    return values


def _stacked(ctx: ExtractContext, params: list[np.ndarray], layout: _Layout, layer: int, gate_order: list[int],
             gru: bool) -> tuple[OutPort, OutPort, OutPort]:
    """W, R, B of one layer, directions stacked, gates reordered."""
    per = 4 if layout.has_biases else 2
    ws, rs, bs = [], [], []
    for direction in range(layout.directions):
        chunk = params[(layer * layout.directions + direction) * per:][:per]
        hidden = layout.hidden

        def order(value: np.ndarray) -> np.ndarray:
            parts = np.split(value, len(gate_order), axis=0)
            return np.concatenate([parts[g] for g in gate_order], axis=0)

        ws.append(order(chunk[0]))
        rs.append(order(chunk[1]))
        if layout.has_biases:
            b_ih, b_hh = order(chunk[2]), order(chunk[3])
        else:
            b_ih = b_hh = np.zeros(len(gate_order) * hidden, chunk[0].dtype)
        if gru:  # linear_before_reset: z and r biases add, the new gate's two stay apart
            bs.append(np.concatenate([b_ih[:2 * hidden] + b_hh[:2 * hidden], b_ih[2 * hidden:], b_hh[2 * hidden:]]))
        else:
            bs.append(b_ih + b_hh)
    return (ctx.const(np.stack(ws), suffix=f"W{layer}"), ctx.const(np.stack(rs), suffix=f"R{layer}"),
            ctx.const(np.stack(bs), suffix=f"B{layer}"))


def _initial(ctx: ExtractContext, state: OutPort, layout: _Layout, layer: int, name: str) -> OutPort:
    """``state[layer*D:(layer+1)*D]`` as ``[batch, D, hidden]``."""
    begin = layer * layout.directions
    part = ctx.op(Slice(), state, i64(ctx, [begin]), i64(ctx, [begin + layout.directions]), i64(ctx, [1]),
                  i64(ctx, [0]), suffix=f"{name}{layer}")
    return ctx.op(Transpose(), part, i64(ctx, [1, 0, 2]), suffix=f"{name}{layer}_batch_first")


def _run(ctx: ExtractContext, gru: bool) -> list[OutPort]:
    gate_order = _GRU_GATES if gru else _LSTM_GATES
    params = _weights(ctx)
    layout = _layout(ctx, params, len(gate_order))
    data = tensor(ctx, "input")
    if not layout.batch_first:
        data = ctx.op(Transpose(), data, i64(ctx, [1, 0, 2]), suffix="batch_first")
    shape = ctx.op(ShapeOf(), data, suffix="shape")
    lengths = ctx.op(Broadcast(), ctx.op(Gather(), shape, i64(ctx, 1), i64(ctx, 0), suffix="length"),
                     ctx.op(Gather(), shape, i64(ctx, [0]), i64(ctx, 0), suffix="batch"), suffix="lengths")
    states = [tensor(ctx, "hx")] if gru else [p for p in tensors(ctx, "hx") if p is not None]
    direction = "bidirectional" if layout.directions == 2 else "forward"
    finals: list[list[OutPort]] = [[] for _ in states]
    for layer in range(layout.layers):
        initial = [_initial(ctx, s, layout, layer, name) for s, name in zip(states, ("h", "c"), strict=False)]
        weights = _stacked(ctx, params, layout, layer, gate_order, gru)
        if gru:
            op: GRUSequence | LSTMSequence = GRUSequence(hidden_size=layout.hidden, direction=direction,
                                                         linear_before_reset=True)
        else:
            op = LSTMSequence(hidden_size=layout.hidden, direction=direction)
        node = ctx.add(op, [data, *initial, lengths, *weights], suffix=f"layer{layer}")
        # Y [batch, D, seq, hidden] -> [batch, seq, D*hidden], the next layer's input
        sequence = ctx.op(Transpose(), node.out_port(0), i64(ctx, [0, 2, 1, 3]), suffix=f"layer{layer}_y")
        data = ctx.op(Reshape(special_zero=True), sequence, i64(ctx, [0, 0, -1]), suffix=f"layer{layer}_out")
        for index in range(len(states)):  # [batch, D, hidden] -> [D, batch, hidden]
            finals[index].append(ctx.op(Transpose(), node.out_port(1 + index), i64(ctx, [1, 0, 2]),
                                        suffix=f"layer{layer}_state{index}"))
    output = data if layout.batch_first else ctx.op(Transpose(), data, i64(ctx, [1, 0, 2]), suffix="output")
    ends = [ctx.add(Concat(axis=0), parts, suffix=f"state{i}").out_port(0) for i, parts in enumerate(finals)]
    return [output, *ends]


lstm = extractor("torch", "aten.lstm.input", lambda node, ctx: _run(ctx, gru=False), versions=TORCH_2_5,
            produces=[LSTMSequence, Transpose, Reshape, Concat])
gru = extractor("torch", "aten.gru.input", lambda node, ctx: _run(ctx, gru=True), versions=TORCH_2_5,
           produces=[GRUSequence, Transpose, Reshape, Concat])
