"""One LSTM direction with TFLite's cell clipping, as a TensorIterator.

TFLite bounds the cell state after each step (``cell_clip``: Keras-made LSTMs set 10);
OpenVINO's LSTMSequence clips the gate inputs instead, so a clipped LSTM is spelled out
step by step (gates stacked f, i, c, o as for LSTMSequence):

    f, i, c~, o = split(x W^T + h R^T + b)
    c' = clamp(sigmoid(f) * c + sigmoid(i) * g(c~), -clip, clip)
    h' = sigmoid(o) * g(c')
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.graph import Graph, OutPort
from irconv.ops import Const, Op, Parameter, Result
from irconv.types import ElementType
from irconv_opset import Add, Clamp, MatMul, Multiply, ReLU, Sigmoid, Split, Squeeze, Tanh, TensorIterator, Unsqueeze
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, SliceSpec

_ACTIVATION_OPS: dict[str, type[Op]] = {"tanh": Tanh, "relu": ReLU}


class _Body:
    """The step graph under construction; every node named under ``prefix``."""

    def __init__(self, prefix: str) -> None:
        self.graph = Graph(prefix)
        self.prefix = prefix

    def parameter(self, name: str) -> OutPort:
        return self.graph.add_node(Parameter(shape=None, element_type=ElementType.f32),
                                   f"{self.prefix}/{name}").out_port(0)

    def node(self, op: Op, name: str, *inputs: OutPort) -> OutPort:
        return self.graph.add_node(op, f"{self.prefix}/{name}", list(inputs)).out_port(0)

    def axes(self, values: list[int] | int, name: str) -> OutPort:
        return self.node(Const(np.asarray(values, np.int64)), name)

    def result(self, port: OutPort, name: str) -> None:
        self.graph.add_node(Result(), f"{self.prefix}/{name}", [port])


def _step(prefix: str, activation: str, cell_clip: float) -> Graph:
    """Parameters h, c [batch, H], x_t [batch, 1, I], W [4H, I], R [4H, H], B [4H];
    results h', c', y_t [batch, 1, H]."""
    body = _Body(prefix)
    h, c, x, w, r, b = (body.parameter(n) for n in ("h", "c", "x_t", "W", "R", "B"))
    act = _ACTIVATION_OPS[activation]
    x = body.node(Squeeze(), "x", x, body.axes([1], "time_axis"))
    gates = body.node(Add(), "xW_hR", body.node(MatMul(transpose_b=True), "xW", x, w),
                      body.node(MatMul(transpose_b=True), "hR", h, r))
    gates = body.node(Add(), "gates", gates, b)
    split = body.graph.add_node(Split(num_splits=4), f"{prefix}/fico", [gates, body.axes(1, "gate_axis")])
    forget, inp, cand, out = (split.out_port(k) for k in range(4))
    kept = body.node(Multiply(), "f_c", body.node(Sigmoid(), "f", forget), c)
    added = body.node(Multiply(), "i_g", body.node(Sigmoid(), "i", inp), body.node(act(), "g", cand))
    c_new = body.node(Clamp(min=-cell_clip, max=cell_clip), "c_clipped", body.node(Add(), "c_new", kept, added))
    h_new = body.node(Multiply(), "h_new", body.node(Sigmoid(), "o", out), body.node(act(), "h_c", c_new))
    body.result(h_new, "h_out")
    body.result(c_new, "c_out")
    body.result(body.node(Unsqueeze(), "y_t", h_new, body.axes([1], "y_axis")), "y_out")
    return body.graph


def clipped_lstm(ctx: ExtractContext, x: OutPort, states: tuple[OutPort, OutPort],
                 weights: tuple[OutPort, OutPort, OutPort], activation: str, cell_clip: float, reverse: bool,
                 suffix: str) -> OutPort:
    """Y [batch, steps, H] of one direction over ``x`` [batch, steps, I], from the states
    (h0, c0) [batch, H] and ``weights`` W [4H, I], R [4H, H], B [4H] (gates f, i, c, o);
    ``reverse`` walks the time axis backwards (Y stays aligned with ``x``)."""
    walk = SliceSpec(axis=1, start=-1, stride=-1, part_size=1, end=0) if reverse else SliceSpec(axis=1)
    op = TensorIterator(
        body=_step(f"{ctx.node.name}/{suffix}_step", activation, cell_clip),
        input_map=(BodyInput(0, 0), BodyInput(1, 1), BodyInput(2, 2, walk), BodyInput(3, 3), BodyInput(4, 4),
                   BodyInput(5, 5)),
        output_map=(BodyOutput(0, 2, walk),),
        back_edges=(BackEdge(0, 0), BackEdge(1, 1)),
    )
    return ctx.add(op, [*states, x, *weights], f"{suffix}_iterator").out_port(0)
