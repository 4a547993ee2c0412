"""An ONNX LSTM with peephole weights ``P`` as one TensorIterator per direction.

OpenVINO's LSTMSequence and LSTMCell have no peepholes, so the step is spelled out in the
body (ONNX gate order i, o, f, c):

    i = f(x Wi + h Ri + b_i + Pi * c)      f' = f(x Wf + h Rf + b_f + Pf * c)
    c' = f' * c + i * g(x Wc + h Rc + b_c)  o = f(x Wo + h Ro + b_o + Po * c')
    h' = o * h(c')

The iterator walks the time axis (backwards for the reverse direction) with the step number
as a second sliced input, so a batch entry past its ``sequence_lens`` keeps its state and
outputs zeros, as ONNX asks, also when walking backwards.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import ExtractContext
from irconv.frontend import i64
from irconv.graph import Graph, OutPort
from irconv.ops import Const, Op, Parameter, Result
from irconv.types import ElementType
from irconv_opset.build import shape_of

Make = Callable[..., OutPort]


class _Body:
    """A body graph under construction: ``add(op, *inputs)`` returns the output port."""

    def __init__(self, name: str) -> None:
        self.graph = Graph(name)
        self.name = name

    def parameter(self, name: str, shape: tuple[int | None, ...] | None, et: ElementType) -> OutPort:
        return self.graph.add_node(Parameter(shape=shape, element_type=et), f"{self.name}/{name}").out_port(0)

    def add(self, op: Op, *inputs: OutPort, name: str | None = None) -> OutPort:
        return self.graph.add_node(op, f"{self.name}/{name or op.type}", list(inputs)).out_port(0)

    def const(self, value: np.ndarray, name: str = "const") -> OutPort:
        return self.add(Const(np.asarray(value)), name=name)

    def result(self, port: OutPort, name: str) -> None:
        self.graph.add_node(Result(), f"{self.name}/{name}", [port])


def _activation(body: _Body, name: str, x: OutPort, clip: float, suffix: str) -> OutPort:
    import irconv_opset as o

    if clip > 0:
        x = body.add(o.Clamp(min=-clip, max=clip), x, name=f"{suffix}_clip")
    kinds = {"sigmoid": o.Sigmoid, "tanh": o.Tanh, "relu": o.ReLU}
    return body.add(kinds[name](), x, name=suffix)


def _step_body(name: str, et: ElementType, hidden: int, activations: tuple[str, str, str], clip: float) -> Graph:
    """Parameters: h, c, x_t [1, N, I], t [1], W, R, B, P, lengths; results: h', c', y [1, N, H]."""
    import irconv_opset as o

    body = _Body(name)
    h = body.parameter("h", None, et)
    c = body.parameter("c", None, et)
    x = body.parameter("x_t", None, et)
    t = body.parameter("t", (1,), ElementType.i64)
    w, r, b, p = (body.parameter(n, None, et) for n in ("W", "R", "B", "P"))
    lengths = body.parameter("lengths", None, ElementType.i64)
    f_act, g_act, h_act = activations
    x = body.add(o.Squeeze(), x, body.const(np.array([0], np.int64)), name="x")
    gates = body.add(o.Add(), body.add(o.MatMul(transpose_b=True), x, w, name="xW"),
                     body.add(o.MatMul(transpose_b=True), h, r, name="hR"), name="xW_hR")
    gates = body.add(o.Add(), gates, b, name="gates")
    split = body.graph.add_node(o.Split(num_splits=4), f"{name}/iofc", [gates, body.const(np.int64(1))])
    gi, go, gf, gc = (split.out_port(k) for k in range(4))
    peep = body.graph.add_node(o.Split(num_splits=3), f"{name}/P_iof", [p, body.const(np.int64(0))])
    pi, po, pf = (peep.out_port(k) for k in range(3))
    i = _activation(body, f_act, body.add(o.Add(), gi, body.add(o.Multiply(), pi, c, name="Pi_c"), name="i_in"),
                    clip, "i")
    f = _activation(body, f_act, body.add(o.Add(), gf, body.add(o.Multiply(), pf, c, name="Pf_c"), name="f_in"),
                    clip, "f")
    cell = _activation(body, g_act, gc, clip, "g")
    c_new = body.add(o.Add(), body.add(o.Multiply(), f, c, name="f_c"), body.add(o.Multiply(), i, cell, name="i_g"),
                     name="c_new")
    out = _activation(body, f_act, body.add(o.Add(), go, body.add(o.Multiply(), po, c_new, name="Po_c"),
                                            name="o_in"), clip, "o")
    h_new = body.add(o.Multiply(), out, _activation(body, h_act, c_new, 0.0, "h_c"), name="h_new")
    live = body.add(o.Unsqueeze(), body.add(o.Less(), t, lengths, name="live_rows"), body.const(np.array([1])),
                    name="live")
    body.result(body.add(o.Select(), live, h_new, h, name="h_next"), "h_out")
    body.result(body.add(o.Select(), live, c_new, c, name="c_next"), "c_out")
    zero = body.const(np.zeros((), et.numpy), "zero")
    y = body.add(o.Select(), live, h_new, zero, name="y")
    body.result(body.add(o.Unsqueeze(), y, body.const(np.array([0], np.int64)), name="y_step"), "y_out")
    return body.graph


def peephole_direction(ctx: ExtractContext, x: OutPort, weights: tuple[OutPort, ...], h0: OutPort, c0: OutPort,
                       lengths: OutPort, reverse: bool, hidden: int, activations: tuple[str, str, str],
                       clip: float, suffix: str) -> tuple[OutPort, OutPort, OutPort]:
    """One direction over ``x`` [T, N, I] (seq-major): Y [T, N, H], last h [N, H], last c [N, H].
    ``weights`` = (W [4H, I], R [4H, H], B [4H] (both biases added), P [3H])."""
    import irconv_opset as o
    from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, SliceSpec

    et = x.data.element_type if x.data.element_type is not ElementType.dynamic else ElementType.f32
    steps = ctx.op(o.Squeeze(), ctx.op(o.Gather(), shape_of(ctx, x, f"{suffix}_shape"), i64(ctx, [0]),
                                       i64(ctx, 0), suffix=f"{suffix}_steps1"), i64(ctx, [0]), suffix=f"{suffix}_steps")
    times = ctx.op(o.Range(output_type=ElementType.i64), i64(ctx, 0), steps, i64(ctx, 1), suffix=f"{suffix}_times")
    walk = SliceSpec(axis=0, start=-1, stride=-1, part_size=1, end=0) if reverse else SliceSpec(axis=0)
    body = _step_body(f"{ctx.node.name}/{suffix}_step", et, hidden, activations, clip)
    op = o.TensorIterator(
        body=body,
        input_map=(BodyInput(0, 0), BodyInput(1, 1), BodyInput(2, 2, walk), BodyInput(3, 3, walk),
                   *(BodyInput(k, k) for k in range(4, 9))),
        output_map=(BodyOutput(0, 0), BodyOutput(1, 1), BodyOutput(2, 2, walk)),
        back_edges=(BackEdge(0, 0), BackEdge(1, 1)),
    )
    node = ctx.add(op, [h0, c0, x, times, *weights, lengths], f"{suffix}_iterator")
    return node.out_port(2), node.out_port(0), node.out_port(1)
