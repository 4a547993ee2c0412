"""Recurrent ops: LSTM, GRU, RNN as OpenVINO *Sequence-5 ops.

ONNX and OpenVINO differ in layout ([seq, batch, ...] vs [batch, seq, ...]), in where the
direction axis sits, in LSTM gate order (iofc vs fico) and in how biases are stored
(ONNX keeps W and R biases apart). ``irconv_opset.lowering.recurrent`` reorders them with
Split/Concat, so graph inputs convert as well as constants (constant folding cleans it up).
"""

from __future__ import annotations

from functools import partial

import numpy as np
from irconv import ExtractContext
from irconv.frontend import AttributeReader, const_like, extractor, i64
from irconv.graph import Node, OutPort
from irconv.graph.budget import declared_size
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Broadcast,
    Concat,
    Convert,
    Gather,
    GRUSequence,
    LSTMSequence,
    RNNSequence,
    ShapeOf,
    Split,
    Squeeze,
    Transpose,
    Unsqueeze,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.lstm_iterator import LSTM_ITERATOR_OPS, LstmStep, lstm_iterator
from irconv_opset.lowering.recurrent import (
    BIAS_PORT_OPS,
    GATE_PORT_OPS,
    LENGTHS_OPS,
    ZERO_STATE_OPS,
    Cell,
    GateOrder,
    Recurrence,
    bias_from_port,
    full_lengths,
    reorder_gate_port,
    sequence,
    zero_states,
)
from irconv_opset.ops.sequence import RecurrentDirection

from irconv_onnx.extractors._optional import HANDLED, Default, computed, with_defaults

SHARED = [*GATE_PORT_OPS, *BIAS_PORT_OPS, *ZERO_STATE_OPS, *LENGTHS_OPS, Transpose]
PEEPHOLES = [*LSTM_ITERATOR_OPS, Gather, Convert, Broadcast, Squeeze, Split, Add, Unsqueeze,
                 Concat, ShapeOf, Transpose]

#: ONNX's gate orders (irconv_opset.lowering.recurrent names the gates)
_GATES: dict[str, GateOrder] = {"LSTM": ("i", "o", "f", "c"), "GRU": ("z", "r", "h"), "RNN": ("h",)}
_ACTIVATIONS = {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "relu"}
_DEFAULT_ACTIVATIONS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}


def _activations(a: AttributeReader, kind: str, directions: int) -> tuple[str, ...]:
    names = a.strs("activations", None) or _DEFAULT_ACTIVATIONS[kind]
    per = len(_DEFAULT_ACTIVATIONS[kind])
    if len(names) == per * 2 and directions == 2:
        if names[:per] != names[per:]:
            raise a.bad("activations", names, "both directions must use the same activations")
        names = names[:per]
    if "activation_alpha" in a or "activation_beta" in a:
        raise a.bad("activation_alpha", a.floats("activation_alpha", []), "parametric activations are not supported")
    result = []
    for n in names:
        if n.lower() not in _ACTIVATIONS:
            raise a.bad("activations", names, "OpenVINO supports Sigmoid, Tanh and Relu")
        result.append(_ACTIVATIONS[n.lower()])
    return tuple(result)


def _recurrent(kind: str, node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    order = _GATES[kind]
    hidden = a.int("hidden_size")
    direction = a.choice("direction", ["forward", "reverse", "bidirectional"], "forward")
    directions = 2 if direction == "bidirectional" else 1
    layout = a.int("layout", 0)
    if kind == "LSTM":
        if a.int("input_forget", 0):
            raise a.bad("input_forget", 1, "coupled input-forget gates are not supported")
        if ctx.has_input(7):
            return _lstm_with_peepholes(node, ctx, a, hidden, direction, layout)
    x = ctx.input(0)
    if layout == 0:
        x = ctx.op(Transpose(), x, i64(ctx, [1, 0, 2]), suffix="batch_first")
    linear_before_reset = kind == "GRU" and bool(a.int("linear_before_reset", 0))
    weights = (reorder_gate_port(ctx, ctx.input(1), order, 1, "W"), reorder_gate_port(ctx, ctx.input(2), order, 1, "R"),
               bias_from_port(ctx, ctx.input(3), order, linear_before_reset))

    def state(idx: int, name: str) -> OutPort:
        if ctx.has_input(idx):
            port = ctx.input(idx)
            if layout == 0:
                port = ctx.op(Transpose(), port, i64(ctx, [1, 0, 2]), suffix=f"{name}_batch_first")
            return port
        return zero_states(ctx, x, const_like(ctx, 0, ctx.input(0), f"{name}_zero"), directions, hidden, name)

    states = [state(5, "H0"), state(6, "C0")] if kind == "LSTM" else [state(5, "H0")]
    lengths = ctx.input(4) if ctx.has_input(4) else full_lengths(ctx, x)
    recurrence = Recurrence(Cell.of(order), hidden, RecurrentDirection(direction), _activations(a, kind, directions),
                            a.float("clip", 0.0), linear_before_reset)
    seq = sequence(ctx, recurrence, x, states, lengths, weights)
    # OpenVINO Y [batch, dirs, seq, H] -> ONNX [seq, dirs, batch, H] (layout 1: [batch, seq, dirs, H])
    y = ctx.op(Transpose(), seq[0], i64(ctx, [2, 1, 0, 3] if layout == 0 else [0, 2, 1, 3]), suffix="Y")
    outputs = [y]
    for i in range(1, len(seq)):
        port = seq[i]
        if layout == 0:
            port = ctx.op(Transpose(), port, i64(ctx, [1, 0, 2]), suffix=f"Y_{'hc'[i - 1]}")
        outputs.append(port)
    return outputs[: len(node.out_ports())]


def _lstm_with_peepholes(node: Node, ctx: ExtractContext, a: AttributeReader, hidden: int, direction: str,
                         layout: int) -> list[OutPort]:
    """One TensorIterator per direction with the step spelled out (LSTMSequence has no
    peepholes); a batch entry past its ``sequence_lens`` keeps its state and outputs zeros."""
    directions = 2 if direction == "bidirectional" else 1
    activations = _activations(a, "LSTM", directions)
    x = ctx.input(0) if layout == 0 else ctx.op(Transpose(), ctx.input(0), i64(ctx, [1, 0, 2]), suffix="seq_first")
    shape = shape_of(ctx, x)
    steps, batch = (ctx.op(Gather(), shape, i64(ctx, [k]), i64(ctx, 0), suffix=n) for k, n in ((0, "steps"), (1, "batch")))

    def lengths(d: int) -> OutPort:
        # one per direction: the OpenVINO CPU plugin (2026.4) crashed compiling the two
        # iterators when they read one constant lengths tensor
        if ctx.has_input(4):
            return ctx.op(Convert(destination_type=ElementType.i64), ctx.input(4), suffix=f"lengths{d}")
        return ctx.op(Broadcast(), ctx.op(Squeeze(), steps, i64(ctx, [0]), suffix=f"steps_scalar{d}"), batch,
                      suffix=f"lengths{d}")

    def per_direction(idx: int, d: int, name: str) -> OutPort:
        return ctx.op(Gather(), ctx.input(idx), i64(ctx, d), i64(ctx, 0), suffix=f"{name}{d}")

    def state(idx: int, d: int, name: str) -> OutPort:
        if ctx.has_input(idx):  # [dirs, N, H], or [N, dirs, H] for layout 1
            return ctx.op(Gather(), ctx.input(idx), i64(ctx, d), i64(ctx, layout), suffix=f"{name}{d}")
        target = ctx.op(Concat(axis=0), batch, i64(ctx, [hidden]), suffix=f"{name}{d}_shape")
        return ctx.op(Broadcast(), const_like(ctx, 0, ctx.input(0), f"{name}_zero"), target, suffix=f"{name}{d}")

    step = LstmStep(_GATES["LSTM"], activations, a.float("clip", 0.0), peephole_order=("i", "o", "f"))
    ys, hs, cs = [], [], []
    for d in range(directions):
        halves = ctx.add(Split(num_splits=2), [per_direction(3, d, "B"), i64(ctx, 0)], f"B{d}_halves")
        bias = ctx.op(Add(), halves.out_port(0), halves.out_port(1), suffix=f"B{d}_sum")
        y, h, c = lstm_iterator(ctx, step, x, 0, (state(5, d, "H0_"), state(6, d, "C0_")),
                                (per_direction(1, d, "W"), per_direction(2, d, "R"), bias),
                                peepholes=per_direction(7, d, "P"), lengths=lengths(d),
                                reverse=direction == "reverse" or d == 1, suffix=f"dir{d}")
        ys.append(ctx.op(Unsqueeze(), y, i64(ctx, [1]), suffix=f"Y{d}"))
        hs.append(ctx.op(Unsqueeze(), h, i64(ctx, [0]), suffix=f"Y_h{d}"))
        cs.append(ctx.op(Unsqueeze(), c, i64(ctx, [0]), suffix=f"Y_c{d}"))
    y = ys[0] if directions == 1 else ctx.op(Concat(axis=1), *ys, suffix="Y_dirs")  # [T, dirs, N, H]
    outputs = [y, hs[0] if directions == 1 else ctx.op(Concat(axis=0), *hs, suffix="Y_h_dirs"),
               cs[0] if directions == 1 else ctx.op(Concat(axis=0), *cs, suffix="Y_c_dirs")]
    if layout == 1:
        outputs = [ctx.op(Transpose(), outputs[0], i64(ctx, [2, 0, 1, 3]), suffix="Y_batch_first")] + [
            ctx.op(Transpose(), port, i64(ctx, [1, 0, 2]), suffix=f"{n}_batch_first")
            for port, n in zip(outputs[1:], ("Y_h", "Y_c"), strict=True)]
    return outputs[: len(node.out_ports())]


def _zero_bias(kind: str, ctx: ExtractContext) -> OutPort:
    """ONNX B when empty: zeros [directions, 2 * gates * hidden] (W and R biases)."""
    a = ctx.attrs
    directions = 2 if a.str("direction", "forward") == "bidirectional" else 1
    size = declared_size(2 * len(_GATES[kind]) * a.int("hidden_size"), field="bias length (2 x gates x hidden_size)",
                         where=ctx.where(), unit_bytes=4 * directions)
    return const_like(ctx, np.zeros((directions, size)), ctx.input(0), "B")


def _optional_inputs(kind: str) -> dict[int, Default | None]:
    """B: zeros; sequence_lens (all steps), initial_h/initial_c (zeros) and the peepholes
    (a different lowering) are handled by ``_recurrent``."""
    declared: dict[int, Default | None] = {3: computed("zeros", partial(_zero_bias, kind)), 4: HANDLED, 5: HANDLED}
    if kind == "LSTM":
        declared.update({6: HANDLED, 7: HANDLED})
    return declared


@extractor("onnx", "LSTM", versions=(7, None), produces=[LSTMSequence, *SHARED, *PEEPHOLES])
@with_defaults(_optional_inputs("LSTM"))
def lstm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _recurrent("LSTM", node, ctx)


@extractor("onnx", "GRU", versions=(7, None), produces=[GRUSequence, *SHARED])
@with_defaults(_optional_inputs("GRU"))
def gru(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _recurrent("GRU", node, ctx)


@extractor("onnx", "RNN", versions=(7, None), produces=[RNNSequence, *SHARED])
@with_defaults(_optional_inputs("RNN"))
def rnn(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _recurrent("RNN", node, ctx)
