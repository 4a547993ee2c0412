"""Caffe's LSTM and RNN layers, unrolled over the (static) time axis.

Caffe feeds a recurrent layer ``x`` (T x N x ...) and ``cont`` (T x N), whose zeros start a
new sequence by dropping the previous hidden (and cell) state; an optional third input is
a static (per-sequence) input. The steps are unrolled into MatMul / elementwise ops, the
continuation mask applied as a multiplication, which is exactly Caffe's computation.
"""

from __future__ import annotations

from collections.abc import Sequence

from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import Add, Concat, Gather, MatMul, Multiply, Reshape, Sigmoid, Tanh, Unsqueeze, VariadicSplit

from irconv_caffe.extractors._common import layer_of
from irconv_caffe.layer import CaffeLayer


def _steps(ctx: ExtractContext, layer: CaffeLayer) -> tuple[int, int | None]:
    shape = ctx.input_shape(0)
    cont = ctx.input_shape(1)
    if shape is None or len(shape) < 3 or shape[0] is None:
        raise ConversionError(f"{layer.describe()}: x must be T x N x ... with a static T, got {shape}")
    if cont is None or len(cont) != 2:
        raise ConversionError(f"{layer.describe()}: cont must be T x N, got {cont}")
    inner = None
    if all(d is not None for d in shape[2:]):
        inner = 1
        for d in shape[2:]:
            inner *= int(d)  # type: ignore[arg-type]
    return int(shape[0]), inner


class _Unroller:
    """Helpers shared by the LSTM and RNN step graphs."""

    def __init__(self, ctx: ExtractContext, layer: CaffeLayer) -> None:
        self.ctx = ctx
        self.layer = layer
        self.steps, self.inner = _steps(ctx, layer)

    def projected_input(self, weights: OutPort, bias: OutPort) -> OutPort:
        """x W^T + b for every step at once: T x N x gates."""
        flat = self.ctx.op(
            Reshape(special_zero=True), self.ctx.input(0), i64(self.ctx, [0, 0, -1]), suffix="x_flat"
        )
        product = self.ctx.op(MatMul(transpose_a=False, transpose_b=True), flat, weights, suffix="x_proj")
        return self.ctx.op(Add(), product, bias, suffix="x_bias")

    def static_term(self, weights: OutPort) -> OutPort | None:
        """x_static W_static^T (N x gates), added at every step, when a third input is given."""
        if not self.ctx.has_input(2):
            return None
        flat = self.ctx.op(
            Reshape(special_zero=True), self.ctx.input(2), i64(self.ctx, [0, -1]), suffix="static_flat"
        )
        return self.ctx.op(MatMul(transpose_a=False, transpose_b=True), flat, weights, suffix="static_proj")

    def at(self, tensor: OutPort, step: int, suffix: str) -> OutPort:
        return self.ctx.op(
            Gather(batch_dims=0), tensor, i64(self.ctx, step), i64(self.ctx, 0), suffix=f"{suffix}{step}"
        )

    def cont(self, step: int) -> OutPort:
        """cont_t as N x 1, for masking the previous state."""
        return self.ctx.op(
            Unsqueeze(), self.at(self.ctx.input(1), step, "cont"), i64(self.ctx, [1]), suffix=f"cont_col{step}"
        )

    def stack(self, outputs: list[OutPort]) -> OutPort:
        rows = [
            self.ctx.op(Unsqueeze(), out, i64(self.ctx, [0]), suffix=f"row{i}") for i, out in enumerate(outputs)
        ]
        return rows[0] if len(rows) == 1 else self.ctx.op(Concat(axis=0), *rows, suffix="stack")


@extractor("caffe", "LSTM", produces=[MatMul, Add, Multiply, Sigmoid, Tanh, VariadicSplit, Gather, Unsqueeze, Concat])
def extract_lstm(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """Caffe LSTM (gates i, f, o, g), unrolled; ``cont`` zeros reset the hidden and cell state."""
    layer = layer_of(ctx)
    hidden = ctx.attrs.int("recurrent_param.num_output")
    run = _Unroller(ctx, layer)
    static = ctx.has_input(2)
    layer.require_blobs(4 if static else 3)
    w_x = ctx.const(layer.blob(0, (4 * hidden, run.inner)), suffix="W_xc")
    b = ctx.const(layer.blob(1, (4 * hidden,)), suffix="b_c")
    w_static = ctx.const(layer.blob(2, (4 * hidden, None)), suffix="W_xc_static") if static else None
    w_h = ctx.const(layer.blob(3 if static else 2, (4 * hidden, hidden)), suffix="W_hc")
    projected = run.projected_input(w_x, b)
    static_term = run.static_term(w_static) if w_static is not None else None
    lengths = i64(ctx, [hidden] * 4)
    h: OutPort | None = None
    c: OutPort | None = None
    outputs = []
    for t in range(run.steps):
        gates = run.at(projected, t, "x_t")
        if static_term is not None:
            gates = ctx.op(Add(), gates, static_term, suffix=f"static{t}")
        cont = run.cont(t) if h is not None else None
        if h is not None and cont is not None:
            masked = ctx.op(Multiply(), h, cont, suffix=f"h_mask{t}")
            recurrent = ctx.op(MatMul(transpose_a=False, transpose_b=True), masked, w_h, suffix=f"h_proj{t}")
            gates = ctx.op(Add(), gates, recurrent, suffix=f"gates{t}")
        split = ctx.add(VariadicSplit(), [gates, i64(ctx, 1), lengths], suffix=f"split{t}")
        i, f, o = (ctx.op(Sigmoid(), split.out_port(k), suffix=f"gate{k}_{t}") for k in range(3))
        g = ctx.op(Tanh(), split.out_port(3), suffix=f"cand{t}")
        new_c = ctx.op(Multiply(), i, g, suffix=f"ig{t}")
        if c is not None and cont is not None:
            kept = ctx.op(Multiply(), ctx.op(Multiply(), f, cont, suffix=f"f_mask{t}"), c, suffix=f"fc{t}")
            new_c = ctx.op(Add(), kept, new_c, suffix=f"c{t}")
        c = new_c
        h = ctx.op(Multiply(), o, ctx.op(Tanh(), c, suffix=f"tanh_c{t}"), suffix=f"h{t}")
        outputs.append(h)
    return [run.stack(outputs)]


@extractor("caffe", "RNN", produces=[MatMul, Add, Multiply, Tanh, Gather, Unsqueeze, Concat])
def extract_rnn(node: Node, ctx: ExtractContext) -> Sequence[OutPort]:
    """Caffe RNN: h = tanh(W_hh (cont * h) + W_xh x + b_h), o = tanh(W_ho h + b_o), unrolled."""
    layer = layer_of(ctx)
    hidden = ctx.attrs.int("recurrent_param.num_output")
    run = _Unroller(ctx, layer)
    static = ctx.has_input(2)
    layer.require_blobs(6 if static else 5)
    first = 3 if static else 2
    w_x = ctx.const(layer.blob(0, (hidden, run.inner)), suffix="W_xh")
    b_h = ctx.const(layer.blob(1, (hidden,)), suffix="b_h")
    w_static = ctx.const(layer.blob(2, (hidden, None)), suffix="W_xh_static") if static else None
    w_hh = ctx.const(layer.blob(first, (hidden, hidden)), suffix="W_hh")
    w_ho = ctx.const(layer.blob(first + 1, (hidden, hidden)), suffix="W_ho")
    b_o = ctx.const(layer.blob(first + 2, (hidden,)), suffix="b_o")
    projected = run.projected_input(w_x, b_h)
    static_term = run.static_term(w_static) if w_static is not None else None
    h: OutPort | None = None
    outputs = []
    for t in range(run.steps):
        pre = run.at(projected, t, "x_t")
        if static_term is not None:
            pre = ctx.op(Add(), pre, static_term, suffix=f"static{t}")
        if h is not None:
            masked = ctx.op(Multiply(), h, run.cont(t), suffix=f"h_mask{t}")
            recurrent = ctx.op(MatMul(transpose_a=False, transpose_b=True), masked, w_hh, suffix=f"h_proj{t}")
            pre = ctx.op(Add(), pre, recurrent, suffix=f"pre{t}")
        h = ctx.op(Tanh(), pre, suffix=f"h{t}")
        out = ctx.op(MatMul(transpose_a=False, transpose_b=True), h, w_ho, suffix=f"o_proj{t}")
        outputs.append(ctx.op(Tanh(), ctx.op(Add(), out, b_o, suffix=f"o_bias{t}"), suffix=f"o{t}"))
    return [run.stack(outputs)]

