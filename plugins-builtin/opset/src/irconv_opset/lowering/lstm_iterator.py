"""One LSTM direction spelled out step by step in a TensorIterator, for what LSTMSequence
cannot compute: peephole connections (ONNX's ``P``) and a bound on the cell state
(TFLite's ``cell_clip``; LSTMSequence's ``clip`` bounds the gate inputs instead).

The step, with the gate blocks named as in ``irconv_opset.lowering.recurrent``::

    gates = x W^T + h R^T + B                    (split by the weights' gate order)
    i = f(clip(g_i + P_i * c))    f' = f(clip(g_f + P_f * c))    c~ = g(clip(g_c))
    c' = bound(f' * c + i * c~)   o = f(clip(g_o + P_o * c'))    h' = o * h(c')

With ``lengths`` the step number is sliced alongside the data, and a batch entry past its
length keeps its state and outputs zeros (ONNX's ``sequence_lens``), also walking backwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import ExtractContext
from irconv.frontend import i64
from irconv.graph import Graph, OutPort
from irconv.ops import Const, Op, Parameter, Result
from irconv.types import ElementType

from irconv_opset import (
    Add,
    Clamp,
    Gather,
    Less,
    MatMul,
    Multiply,
    Range,
    ReLU,
    Select,
    ShapeOf,
    Sigmoid,
    Split,
    Squeeze,
    Tanh,
    TensorIterator,
    Unsqueeze,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.recurrent import GateOrder
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, SliceSpec

__all__ = ["LSTM_ITERATOR_OPS", "LstmStep", "lstm_iterator"]

_ACTIVATIONS: dict[str, type[Op]] = {"sigmoid": Sigmoid, "tanh": Tanh, "relu": ReLU}


@dataclass(frozen=True)
class LstmStep:
    """What one step computes: the gate order of W, R and B's blocks, the activations
    (f for the gates, g for the candidate, h for the output), the bound of the gate inputs
    (``clip``, 0: none), of the cell state (``cell_clip``, 0: none), and the gate order of the
    peephole weights' blocks (None: no peepholes)."""

    order: GateOrder
    activations: tuple[str, ...] = ("sigmoid", "tanh", "tanh")
    clip: float = 0.0
    cell_clip: float = 0.0
    peephole_order: GateOrder | None = None


class _Body:
    """The step graph under construction; every node named under ``prefix``."""

    def __init__(self, prefix: str) -> None:
        self.graph = Graph(prefix)
        self.prefix = prefix

    def parameter(self, name: str, shape: tuple[int | None, ...] | None, et: ElementType) -> OutPort:
        return self.graph.add_node(Parameter(shape=shape, element_type=et), f"{self.prefix}/{name}").out_port(0)

    def node(self, op: Op, name: str, *inputs: OutPort) -> OutPort:
        return self.graph.add_node(op, f"{self.prefix}/{name}", list(inputs)).out_port(0)

    def split(self, port: OutPort, order: GateOrder, axis: int, name: str) -> dict[str, OutPort]:
        node = self.graph.add_node(Split(num_splits=len(order)), f"{self.prefix}/{name}",
                                   [port, self.const(np.int64(axis), f"{name}_axis")])
        return {gate: node.out_port(k) for k, gate in enumerate(order)}

    def const(self, value: np.ndarray | np.generic, name: str) -> OutPort:
        return self.node(Const(np.asarray(value)), name)

    def result(self, port: OutPort, name: str) -> None:
        self.graph.add_node(Result(), f"{self.prefix}/{name}", [port])


def _step(prefix: str, step: LstmStep, et: ElementType, time_axis: int, masked: bool) -> Graph:
    """Parameters h, c, x_t (one step along ``time_axis``), [t [1]], W, R, B, [P], [lengths];
    results h', c', y_t (one step along ``time_axis``)."""
    body = _Body(prefix)
    h, c, x = (body.parameter(n, None, et) for n in ("h", "c", "x_t"))
    t = body.parameter("t", (1,), ElementType.i64) if masked else None
    w, r, b = (body.parameter(n, None, et) for n in ("W", "R", "B"))
    p = body.parameter("P", None, et) if step.peephole_order is not None else None
    lengths = body.parameter("lengths", None, ElementType.i64) if masked else None
    f_act, g_act, h_act = (_ACTIVATIONS[name] for name in step.activations)

    def activated(act: type[Op], port: OutPort, clip: float, name: str) -> OutPort:
        if clip > 0:
            port = body.node(Clamp(min=-clip, max=clip), f"{name}_clip", port)
        return body.node(act(), name, port)

    def gate(name: str, cell: OutPort) -> OutPort:
        pre = gates[name]
        if peepholes is not None:
            pre = body.node(Add(), f"{name}_in", pre, body.node(Multiply(), f"P{name}_c", peepholes[name], cell))
        return activated(f_act, pre, step.clip, name)

    x = body.node(Squeeze(), "x", x, body.const(np.array([time_axis], np.int64), "time_axis"))
    products = body.node(Add(), "xW_hR", body.node(MatMul(transpose_b=True), "xW", x, w),
                         body.node(MatMul(transpose_b=True), "hR", h, r))
    gates = body.split(body.node(Add(), "gates", products, b), step.order, 1, "".join(step.order))
    peepholes = None if p is None or step.peephole_order is None else body.split(p, step.peephole_order, 0, "P")
    c_new = body.node(Add(), "c_new", body.node(Multiply(), "f_c", gate("f", c), c),
                      body.node(Multiply(), "i_g", gate("i", c), activated(g_act, gates["c"], step.clip, "g")))
    if step.cell_clip > 0:
        c_new = body.node(Clamp(min=-step.cell_clip, max=step.cell_clip), "c_clipped", c_new)
    h_new = body.node(Multiply(), "h_new", gate("o", c_new), body.node(h_act(), "h_c", c_new))
    y = h_new
    if t is not None and lengths is not None:
        live = body.node(Unsqueeze(), "live", body.node(Less(), "live_rows", t, lengths),
                         body.const(np.array([1], np.int64), "live_axis"))
        h_new = body.node(Select(), "h_next", live, h_new, h)
        c_new = body.node(Select(), "c_next", live, c_new, c)
        y = body.node(Select(), "y", live, y, body.const(np.zeros((), et.numpy), "zero"))
    body.result(h_new, "h_out")
    body.result(c_new, "c_out")
    body.result(body.node(Unsqueeze(), "y_step", y, body.const(np.array([time_axis], np.int64), "y_axis")), "y_out")
    return body.graph


def lstm_iterator(ctx: ExtractContext, step: LstmStep, x: OutPort, time_axis: int, states: tuple[OutPort, OutPort],
                  weights: tuple[OutPort, OutPort, OutPort], *, peepholes: OutPort | None = None,
                  lengths: OutPort | None = None, reverse: bool = False,
                  suffix: str = "lstm") -> tuple[OutPort, OutPort, OutPort]:
    """One direction over ``x`` (time along ``time_axis``, batch along the other leading axis)
    from ``states`` (h0, c0) [N, H] and ``weights`` W [4H, I], R [4H, H], B [4H] (both biases
    summed), gate blocks in ``step.order``; ``peepholes`` P [3H] in ``step.peephole_order``;
    ``lengths`` [N] (i64). ``reverse`` walks the time axis backwards (Y stays aligned with x).
    Returns Y (x's layout, H features), the last h and the last c."""
    if (peepholes is None) != (step.peephole_order is None):
        raise ValueError("peephole weights go with a peephole gate order")
    et = x.data.element_type if x.data.element_type is not ElementType.dynamic else ElementType.f32
    walk = SliceSpec(axis=time_axis, start=-1, stride=-1, part_size=1, end=0) if reverse else SliceSpec(axis=time_axis)
    inputs: list[tuple[OutPort, SliceSpec | None]] = [(states[0], None), (states[1], None), (x, walk)]
    if lengths is not None:
        steps = ctx.op(Squeeze(), ctx.op(Gather(), shape_of(ctx, x, f"{suffix}_shape"), i64(ctx, [time_axis]),
                                         i64(ctx, 0), suffix=f"{suffix}_steps1"), i64(ctx, [0]),
                       suffix=f"{suffix}_steps")
        times = ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), steps, i64(ctx, 1), suffix=f"{suffix}_times")
        inputs.append((times, walk))
    inputs += [(port, None) for port in weights]
    if peepholes is not None:
        inputs.append((peepholes, None))
    if lengths is not None:
        inputs.append((lengths, None))
    op = TensorIterator(
        body=_step(f"{ctx.node.name}/{suffix}_step", step, et, time_axis, lengths is not None),
        input_map=tuple(BodyInput(k, k, spec) for k, (_, spec) in enumerate(inputs)),
        output_map=(BodyOutput(0, 2, walk), BodyOutput(1, 0), BodyOutput(2, 1)),
        back_edges=(BackEdge(0, 0), BackEdge(1, 1)),
    )
    node = ctx.add(op, [port for port, _ in inputs], f"{suffix}_iterator")
    return node.out_port(0), node.out_port(1), node.out_port(2)


#: What :func:`lstm_iterator` may build.
LSTM_ITERATOR_OPS = (TensorIterator, ShapeOf, Gather, Squeeze, Range)
