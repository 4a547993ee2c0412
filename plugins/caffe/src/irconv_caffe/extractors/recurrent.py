"""Caffe's LSTM and RNN layers, unrolled over the (static) time axis.

Caffe feeds a recurrent layer ``x`` (T x N x ...) and ``cont`` (T x N), whose zeros start a
new sequence by dropping the previous hidden (and cell) state; an optional third input is
a static (per-sequence) input. Both layers compute, at every step, the same pre-activation
``x_t W_x^T + b (+ x_static W_static^T) + (cont_t * h) W_h^T`` for their gates, then apply
their own cell to it. The steps are unrolled into MatMul / elementwise ops, the
continuation mask applied as a multiplication, which is exactly Caffe's computation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Protocol

from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import Add, Concat, Gather, MatMul, Multiply, Reshape, Sigmoid, Tanh, Unsqueeze, VariadicSplit
from irconv_opset.lowering.recurrent import Cell, GateOrder

from irconv_caffe.layer import CaffeLayer

#: Caffe stacks an LSTM's gate blocks input, forget, output, then the cell candidate.
LSTM_GATES: GateOrder = ("i", "f", "o", "c")
#: Caffe's RNN has one block: the hidden state's pre-activation.
RNN_GATES: GateOrder = Cell.RNN.value

#: What the shared step loop builds, whatever the cell.
_UNROLL_OPS = (Reshape, MatMul, Add, Multiply, Gather, Unsqueeze, Concat)


def _matmul_t(ctx: ExtractContext, a: OutPort, b: OutPort, suffix: str) -> OutPort:
    """``a b^T``: Caffe keeps every weight matrix as (out, in)."""
    return ctx.op(MatMul(transpose_a=False, transpose_b=True), a, b, suffix=suffix)


@dataclass
class _Recurrence:
    """The input side both layers share, from their first blobs: ``x`` projected for every
    step at once (T x N x gates*H), the static input's projection (N x gates*H, when a
    third input is given) and the recurrent weights W_h (gates*H x H)."""

    steps: int
    projected: OutPort
    static_term: OutPort | None
    w_h: OutPort

    @classmethod
    def read(cls, ctx: ExtractContext, layer: CaffeLayer, rows: int, hidden: int, name: str,
             extra_blobs: int) -> _Recurrence:
        """The blobs W_x, b, [W_static,] W_h of ``rows`` rows each (``name``: Caffe's letter for
        them, ``c`` or ``h``), and ``extra_blobs`` more that the cell reads after them."""
        steps, inner = _steps(ctx)
        static = ctx.has_input(2)
        layer.require_blobs((4 if static else 3) + extra_blobs)
        w_x = ctx.const(layer.blob(0, (rows, inner)), suffix=f"W_x{name}")
        bias = ctx.const(layer.blob(1, (rows,)), suffix=f"b_{name}")
        w_static = ctx.const(layer.blob(2, (rows, None)), suffix=f"W_x{name}_static") if static else None
        w_h = ctx.const(layer.blob(3 if static else 2, (rows, hidden)), suffix=f"W_h{name}")
        flat = ctx.op(Reshape(special_zero=True), ctx.input(0), i64(ctx, [0, 0, -1]), suffix="x_flat")
        projected = ctx.op(Add(), _matmul_t(ctx, flat, w_x, "x_proj"), bias, suffix="x_bias")
        static_term = None
        if w_static is not None:
            flat_static = ctx.op(Reshape(special_zero=True), ctx.input(2), i64(ctx, [0, -1]), suffix="static_flat")
            static_term = _matmul_t(ctx, flat_static, w_static, "static_proj")
        return cls(steps, projected, static_term, w_h)


def _steps(ctx: ExtractContext) -> tuple[int, int | None]:
    """T, and the size of one step's flattened input when static."""
    shape = ctx.input_shape(0)
    cont = ctx.input_shape(1)
    if shape is None or len(shape) < 3 or shape[0] is None:
        raise ConversionError(f"{ctx.where()}: x must be T x N x ... with a static T, got {shape}")
    if cont is None or len(cont) != 2:
        raise ConversionError(f"{ctx.where()}: cont must be T x N, got {cont}")
    inner = [d for d in shape[2:] if d is not None]
    return shape[0], prod(inner) if len(inner) == len(shape) - 2 else None


class _Cell(Protocol):
    def step(self, ctx: ExtractContext, pre: OutPort, cont: OutPort | None, t: int) -> tuple[OutPort, OutPort]:
        """The hidden state and the layer's output at step ``t`` from the gates'
        pre-activation ``pre`` (``cont``: cont_t as N x 1, None at the first step)."""
        ...


def _unroll(ctx: ExtractContext, run: _Recurrence, cell: _Cell) -> OutPort:
    """The steps, each ``cell`` applied to its pre-activation; the outputs stacked T x N x H."""
    h: OutPort | None = None
    outputs = []
    for t in range(run.steps):
        pre = ctx.op(Gather(batch_dims=0), run.projected, i64(ctx, t), i64(ctx, 0), suffix=f"x_t{t}")
        if run.static_term is not None:
            pre = ctx.op(Add(), pre, run.static_term, suffix=f"static{t}")
        cont = None
        if h is not None:
            cont_t = ctx.op(Gather(batch_dims=0), ctx.input(1), i64(ctx, t), i64(ctx, 0), suffix=f"cont{t}")
            cont = ctx.op(Unsqueeze(), cont_t, i64(ctx, [1]), suffix=f"cont_col{t}")
            masked = ctx.op(Multiply(), h, cont, suffix=f"h_mask{t}")
            pre = ctx.op(Add(), pre, _matmul_t(ctx, masked, run.w_h, f"h_proj{t}"), suffix=f"pre{t}")
        h, out = cell.step(ctx, pre, cont, t)
        outputs.append(out)
    rows = [ctx.op(Unsqueeze(), out, i64(ctx, [0]), suffix=f"row{i}") for i, out in enumerate(outputs)]
    return rows[0] if len(rows) == 1 else ctx.op(Concat(axis=0), *rows, suffix="stack")


@dataclass
class _LstmCell:
    """c = f * cont * c + i * g, h = o * tanh(c); the gates split in ``LSTM_GATES`` order."""

    hidden: int
    c: OutPort | None = field(default=None)

    def step(self, ctx: ExtractContext, pre: OutPort, cont: OutPort | None, t: int) -> tuple[OutPort, OutPort]:
        lengths = i64(ctx, [self.hidden] * len(LSTM_GATES))
        split = ctx.add(VariadicSplit(), [pre, i64(ctx, 1), lengths], suffix=f"split{t}")
        gate = {
            name: ctx.op(Tanh() if name == "c" else Sigmoid(), split.out_port(k), suffix=f"gate_{name}{t}")
            for k, name in enumerate(LSTM_GATES)
        }
        c = ctx.op(Multiply(), gate["i"], gate["c"], suffix=f"ig{t}")
        if self.c is not None and cont is not None:
            forget = ctx.op(Multiply(), gate["f"], cont, suffix=f"f_mask{t}")
            kept = ctx.op(Multiply(), forget, self.c, suffix=f"fc{t}")
            c = ctx.op(Add(), kept, c, suffix=f"c{t}")
        self.c = c
        h = ctx.op(Multiply(), gate["o"], ctx.op(Tanh(), c, suffix=f"tanh_c{t}"), suffix=f"h{t}")
        return h, h


@dataclass
class _RnnCell:
    """h = tanh(pre), o = tanh(h W_ho^T + b_o)."""

    w_ho: OutPort
    b_o: OutPort

    def step(self, ctx: ExtractContext, pre: OutPort, cont: OutPort | None, t: int) -> tuple[OutPort, OutPort]:
        h = ctx.op(Tanh(), pre, suffix=f"h{t}")
        out = ctx.op(Add(), _matmul_t(ctx, h, self.w_ho, f"o_proj{t}"), self.b_o, suffix=f"o_bias{t}")
        return h, ctx.op(Tanh(), out, suffix=f"o{t}")


@extractor("caffe", "LSTM", produces=[*_UNROLL_OPS, Sigmoid, Tanh, VariadicSplit])
def extract_lstm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Caffe LSTM (gates i, f, o, g), unrolled; ``cont`` zeros reset the hidden and cell state."""
    layer = ctx.source_as(CaffeLayer)
    hidden = ctx.attrs.int("recurrent_param.num_output")
    run = _Recurrence.read(ctx, layer, len(LSTM_GATES) * hidden, hidden, "c", extra_blobs=0)
    return [_unroll(ctx, run, _LstmCell(hidden))]


@extractor("caffe", "RNN", produces=[*_UNROLL_OPS, Tanh])
def extract_rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Caffe RNN: h = tanh(W_hh (cont * h) + W_xh x + b_h), o = tanh(W_ho h + b_o), unrolled."""
    layer = ctx.source_as(CaffeLayer)
    hidden = ctx.attrs.int("recurrent_param.num_output")
    run = _Recurrence.read(ctx, layer, len(RNN_GATES) * hidden, hidden, "h", extra_blobs=2)
    first = 4 if ctx.has_input(2) else 3
    w_ho = ctx.const(layer.blob(first, (hidden, hidden)), suffix="W_ho")
    b_o = ctx.const(layer.blob(first + 1, (hidden,)), suffix="b_o")
    return [_unroll(ctx, run, _RnnCell(w_ho, b_o))]
