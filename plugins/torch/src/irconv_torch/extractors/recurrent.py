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
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv_opset import GRUSequence, LSTMSequence, Transpose
from irconv_opset.lowering.recurrent import (
    LAYERS_OPS,
    LENGTHS_OPS,
    Cell,
    DirectionWeights,
    GateOrder,
    Recurrence,
    full_lengths,
    packed_weights,
    stacked_layers,
)
from irconv_opset.ops.sequence import RecurrentDirection

from irconv_torch.extractors._args import TORCH_2_5, tensor, tensors

#: torch's gate orders: LSTM i, f, g, o; GRU r, z, n (irconv_opset.lowering.recurrent's names)
_LSTM_GATES: GateOrder = ("i", "f", "c", "o")
_GRU_GATES: GateOrder = ("r", "z", "h")


@dataclass(frozen=True)
class _Layout:
    layers: int
    directions: int
    hidden: int
    batch_first: bool
    has_biases: bool


def _layout(ctx: ExtractContext, params: list[np.ndarray]) -> _Layout:
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


def _stacked(ctx: ExtractContext, params: list[np.ndarray], layout: _Layout, layer: int, order: GateOrder,
             gru: bool) -> tuple[OutPort, OutPort, OutPort]:
    """W, R, B of one layer, directions stacked, gates reordered."""
    per = 4 if layout.has_biases else 2
    directions = []
    for direction in range(layout.directions):
        chunk = params[(layer * layout.directions + direction) * per:][:per]
        directions.append(DirectionWeights(order, chunk[0], chunk[1], *chunk[2:]))
    w, r, b = packed_weights(directions, linear_before_reset=gru)
    return ctx.const(w, suffix=f"W{layer}"), ctx.const(r, suffix=f"R{layer}"), ctx.const(b, suffix=f"B{layer}")


def _run(ctx: ExtractContext, *, gru: bool) -> list[OutPort]:
    order = _GRU_GATES if gru else _LSTM_GATES
    params = _weights(ctx)
    layout = _layout(ctx, params)
    data = tensor(ctx, "input")
    if not layout.batch_first:
        data = ctx.op(Transpose(), data, i64(ctx, [1, 0, 2]), suffix="batch_first")
    states = [tensor(ctx, "hx")] if gru else [p for p in tensors(ctx, "hx") if p is not None]
    direction = RecurrentDirection.bidirectional if layout.directions == 2 else RecurrentDirection.forward
    recurrence = Recurrence(Cell.of(order), layout.hidden, direction, linear_before_reset=gru)
    layers = [(recurrence, _stacked(ctx, params, layout, layer, order, gru)) for layer in range(layout.layers)]
    data, ends = stacked_layers(ctx, layers, data, states, full_lengths(ctx, data))
    output = data if layout.batch_first else ctx.op(Transpose(), data, i64(ctx, [1, 0, 2]), suffix="output")
    return [output, *ends]


#: What running the layers builds besides their sequence op.
_LAYERS_OPS: tuple[type[Op], ...] = (*LAYERS_OPS, *LENGTHS_OPS, Transpose)


@extractor("torch", "aten.lstm.input", versions=TORCH_2_5, produces=[LSTMSequence, *_LAYERS_OPS])
def lstm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _run(ctx, gru=False)


@extractor("torch", "aten.gru.input", versions=TORCH_2_5, produces=[GRUSequence, *_LAYERS_OPS])
def gru(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _run(ctx, gru=True)
