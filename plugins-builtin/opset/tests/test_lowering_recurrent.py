"""irconv_opset.lowering.recurrent: gate orders, bias packing and the sequence builders,
run in OpenVINO against a NumPy recurrence written in each framework's own gate order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
from irconv import ExtractContext
from irconv.frontend import extractor
from irconv.graph import Node, OutPort
from irconv.testing import GraphBuilder, infer_graph, run_extractor
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import Transpose
from irconv_opset.lowering import recurrent as rnn
from irconv_opset.lowering.lstm_iterator import LSTM_ITERATOR_OPS, LstmStep, lstm_iterator
from irconv_opset.lowering.recurrent import (
    BIAS_PORT_OPS,
    GATE_PORT_OPS,
    LAYERS_OPS,
    LENGTHS_OPS,
    SEQUENCE_OPS,
    ZERO_STATE_OPS,
    bias_from_port,
    full_lengths,
    packed_weights,
    reorder_gate_port,
    sequence,
    stacked_layers,
    summed_bias,
    to_openvino,
    zero_states,
)
from irconv_opset.ops.sequence import RecurrentDirection

BATCH, STEPS, WIDTH, HIDDEN = 2, 4, 3, 5
RNG = np.random.default_rng(7)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def split_gates(value: np.ndarray, order: rnn.GateOrder) -> dict[str, np.ndarray]:
    return dict(zip(order, np.split(value, len(order), axis=0), strict=True))


def step(kind: str, x: np.ndarray, h: np.ndarray, c: np.ndarray | None, d: rnn.DirectionWeights,
         linear_before_reset: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """One step of the textbook recurrence, reading the weights in the framework's order."""
    w, r = split_gates(d.input, d.order), split_gates(d.recurrent, d.order)
    zeros = np.zeros(d.input.shape[0], np.float32)
    bw = split_gates(zeros if d.input_bias is None else d.input_bias, d.order)
    br = split_gates(zeros if d.recurrent_bias is None else d.recurrent_bias, d.order)

    def pre(g: str) -> np.ndarray:
        return x @ w[g].T + bw[g] + h @ r[g].T + br[g]

    if kind == "LSTM":
        assert c is not None
        c = sigmoid(pre("f")) * c + sigmoid(pre("i")) * np.tanh(pre("c"))
        return sigmoid(pre("o")) * np.tanh(c), c
    if kind == "GRU":
        z, reset = sigmoid(pre("z")), sigmoid(pre("r"))
        if linear_before_reset:
            n = np.tanh(x @ w["h"].T + bw["h"] + reset * (h @ r["h"].T + br["h"]))
        else:
            n = np.tanh(x @ w["h"].T + bw["h"] + (reset * h) @ r["h"].T + br["h"])
        return (1 - z) * n + z * h, None
    return np.tanh(pre("h")), None


def run_direction(kind: str, x: np.ndarray, h: np.ndarray, c: np.ndarray | None, d: rnn.DirectionWeights,
                  reverse: bool, linear_before_reset: bool = False
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Y [N, T, H] (aligned with x), last h, last c."""
    ys = [np.zeros_like(h)] * x.shape[1]
    for t in (reversed(range(x.shape[1])) if reverse else range(x.shape[1])):
        h, c = step(kind, x[:, t], h, c, d, linear_before_reset)
        ys[t] = h
    return np.stack(ys, axis=1), h, c


def random_direction(order: rnn.GateOrder, width: int, biases: int = 2) -> rnn.DirectionWeights:
    rows = len(order) * HIDDEN

    def value(*shape: int) -> np.ndarray:
        return (RNG.standard_normal(shape) * 0.5).astype(np.float32)

    bias = [value(rows) for _ in range(biases)] + [None] * (2 - biases)
    return rnn.DirectionWeights(order, value(rows, width), value(rows, HIDDEN), *bias)


def convert(tmp_path: Path, extract: Callable[[Node, ExtractContext], list[OutPort]], produces: Sequence[type],
            inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Run ``extract`` as an extractor over Parameters fed ``inputs``; the IR's outputs."""
    builder = GraphBuilder()
    params = [builder.parameter(name, value.shape) for name, value in inputs.items()]
    outputs = run_extractor(builder, extractor("test", "Recurrent", extract, produces=list(produces)), *params)
    for index, port in enumerate(outputs):
        builder.result(port, f"out{index}")
    infer_graph(builder.graph)
    xml = emit_ir(builder.graph, tmp_path / "recurrent.xml")
    return list(run_ir(xml, inputs).values())


def test_to_openvino_puts_every_order_into_openvinos() -> None:
    assert to_openvino(["i", "o", "f", "c"], ("i", "o", "f", "c")) == ["f", "i", "c", "o"]
    assert to_openvino([0, 1, 2, 3], ("i", "f", "c", "o")) == [1, 0, 2, 3]
    assert to_openvino(["r", "z", "n"], ("r", "z", "h")) == ["z", "r", "n"]
    assert to_openvino(["x"], ("h",)) == ["x"]
    with pytest.raises(ValueError, match="names the gates of no"):
        to_openvino([0, 1, 2], ("i", "f", "o"))
    with pytest.raises(ValueError, match="2 gate blocks"):
        to_openvino([0, 1], ("z", "r", "h"))


def test_summed_bias_keeps_the_gru_candidates_recurrent_bias_apart() -> None:
    def add(a: int, b: int, _: str) -> int:
        return a + b

    assert summed_bias([1, 2, 3], [10, 20, 30], False, add) == [11, 22, 33]
    assert summed_bias([1, 2, 3], [10, 20, 30], True, add) == [11, 22, 3, 30]


@pytest.mark.parametrize(("kind", "order", "lbr"), [("LSTM", ("i", "f", "c", "o"), False),
                                                    ("GRU", ("r", "z", "h"), True),
                                                    ("RNN", ("h",), False)])
def test_stacked_layers_match_numpy(tmp_path: Path, kind: str, order: rnn.GateOrder, lbr: bool) -> None:
    """Two bidirectional layers from constants in cuDNN's order (torch, MXNet), states given."""
    layers, dirs = 2, 2
    weights = [[random_direction(order, WIDTH if layer == 0 else dirs * HIDDEN) for _ in range(dirs)]
               for layer in range(layers)]
    x = RNG.standard_normal((BATCH, STEPS, WIDTH)).astype(np.float32)
    count = 2 if kind == "LSTM" else 1
    states = {f"s{i}": RNG.standard_normal((layers * dirs, BATCH, HIDDEN)).astype(np.float32) for i in range(count)}
    recurrence = rnn.Recurrence(rnn.Cell.of(order), HIDDEN, RecurrentDirection.bidirectional, linear_before_reset=lbr)

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        stack = []
        for layer in range(layers):
            w, r, b = packed_weights(weights[layer], lbr)
            stack.append((recurrence, (ctx.const(w), ctx.const(r), ctx.const(b))))
        data = ctx.input(0)
        y, finals = stacked_layers(ctx, stack, data, [ctx.input(1 + i) for i in range(count)], full_lengths(ctx, data))
        return [y, *finals]

    got = convert(tmp_path, extract, [*LAYERS_OPS, *SEQUENCE_OPS, *LENGTHS_OPS], {"x": x, **states})

    data = x
    finals: list[list[np.ndarray]] = [[] for _ in range(count)]
    for layer in range(layers):
        ys = []
        for d in range(dirs):
            index = layer * dirs + d
            c0 = states["s1"][index] if kind == "LSTM" else None
            y, h, c = run_direction(kind, data, states["s0"][index], c0, weights[layer][d], d == 1, lbr)
            ys.append(y)
            finals[0].append(h)
            if c is not None:
                finals[1].append(c)
        data = np.concatenate(ys, axis=-1)
    np.testing.assert_allclose(got[0], data, rtol=1e-4, atol=1e-5)
    for index in range(count):
        np.testing.assert_allclose(got[1 + index], np.stack(finals[index]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("kind", "order", "lbr", "direction"), [
    ("LSTM", ("i", "o", "f", "c"), False, RecurrentDirection.reverse),
    ("GRU", ("z", "r", "h"), False, RecurrentDirection.forward),
    ("GRU", ("r", "z", "h"), True, RecurrentDirection.reverse),
])
def test_weights_computed_by_the_model_reorder_in_the_graph(tmp_path: Path, kind: str, order: rnn.GateOrder, lbr: bool,
                                                            direction: RecurrentDirection) -> None:
    """W, R and both biases as graph inputs (ONNX's layout: B [1, 2*G*H]), zero states."""
    d = random_direction(order, WIDTH)
    assert d.input_bias is not None and d.recurrent_bias is not None
    x = RNG.standard_normal((BATCH, STEPS, WIDTH)).astype(np.float32)
    inputs = {"x": x, "W": d.input[None], "R": d.recurrent[None],
              "B": np.concatenate([d.input_bias, d.recurrent_bias])[None]}

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        data = ctx.input(0)
        weights = (reorder_gate_port(ctx, ctx.input(1), order, 1, "W"),
                   reorder_gate_port(ctx, ctx.input(2), order, 1, "R"), bias_from_port(ctx, ctx.input(3), order, lbr))
        zero = ctx.const(np.float32(0))
        states = [zero_states(ctx, data, zero, 1, HIDDEN, n) for n in ("h0", "c0")[: 2 if kind == "LSTM" else 1]]
        recurrence = rnn.Recurrence(rnn.Cell.of(order), HIDDEN, direction, linear_before_reset=lbr)
        return sequence(ctx, recurrence, data, states, full_lengths(ctx, data), weights)

    produces = [*GATE_PORT_OPS, *BIAS_PORT_OPS, *ZERO_STATE_OPS, *LENGTHS_OPS, *SEQUENCE_OPS, Transpose]
    got = convert(tmp_path, extract, produces, inputs)
    zeros = np.zeros((BATCH, HIDDEN), np.float32)
    y, h, c = run_direction(kind, x, zeros, zeros if kind == "LSTM" else None, d,
                            direction is RecurrentDirection.reverse, lbr)
    np.testing.assert_allclose(got[0][:, 0], y, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1][:, 0], h, rtol=1e-4, atol=1e-5)
    if c is not None:
        np.testing.assert_allclose(got[2][:, 0], c, rtol=1e-4, atol=1e-5)


def test_packed_weights_fill_absent_biases_with_zeros() -> None:
    d = random_direction(("i", "f", "c", "o"), WIDTH, biases=0)
    w, r, b = packed_weights([d])
    assert w.shape == (1, 4 * HIDDEN, WIDTH) and r.shape == (1, 4 * HIDDEN, HIDDEN)
    np.testing.assert_array_equal(b, np.zeros((1, 4 * HIDDEN), np.float32))
    np.testing.assert_array_equal(w[0, :HIDDEN], d.input[HIDDEN: 2 * HIDDEN])  # f first


def test_a_sequence_refuses_the_wrong_number_of_states() -> None:
    recurrence = rnn.Recurrence(rnn.Cell.LSTM, HIDDEN)
    with pytest.raises(ValueError, match="takes 2 initial states"):
        sequence(None, recurrence, None, [None], None, (None, None, None))  # type: ignore[arg-type]


def lstm_reference(x: np.ndarray, h: np.ndarray, c: np.ndarray, d: rnn.DirectionWeights, peepholes: np.ndarray | None,
                   lengths: np.ndarray, clip: float, cell_clip: float, reverse: bool
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch-first LSTM with ONNX's peepholes (i, o, f), gate-input clip, cell bound, lengths."""
    w, r = split_gates(d.input, d.order), split_gates(d.recurrent, d.order)
    assert d.input_bias is not None
    b = split_gates(d.input_bias, d.order)
    p = dict(zip(("i", "o", "f"), np.split(np.zeros(3 * HIDDEN, np.float32) if peepholes is None else peepholes, 3),
                 strict=True))

    def bounded(v: np.ndarray) -> np.ndarray:
        return np.clip(v, -clip, clip) if clip > 0 else v

    ys = np.zeros(x.shape[:2] + (HIDDEN,), np.float32)
    for t in (reversed(range(x.shape[1])) if reverse else range(x.shape[1])):
        def pre(g: str) -> np.ndarray:
            return x[:, t] @ w[g].T + h @ r[g].T + b[g]  # noqa: B023 (h: this step's)

        i = sigmoid(bounded(pre("i") + p["i"] * c))
        f = sigmoid(bounded(pre("f") + p["f"] * c))
        c_new = f * c + i * np.tanh(bounded(pre("c")))
        if cell_clip > 0:
            c_new = np.clip(c_new, -cell_clip, cell_clip)
        h_new = sigmoid(bounded(pre("o") + p["o"] * c_new)) * np.tanh(c_new)
        live = (t < lengths)[:, None]
        h, c = np.where(live, h_new, h), np.where(live, c_new, c)
        ys[:, t] = np.where(live, h_new, 0.0)
    return ys, h, c


@pytest.mark.parametrize(("peephole", "clip", "cell_clip", "reverse", "time_axis"), [
    (True, 0.7, 0.0, False, 0),  # ONNX: peepholes, gate clip, sequence lengths, time first
    (False, 0.0, 0.3, True, 1),  # TFLite: a bounded cell state, batch first
])
def test_the_lstm_iterator_matches_numpy(tmp_path: Path, peephole: bool, clip: float, cell_clip: float,
                                         reverse: bool, time_axis: int) -> None:
    d = random_direction(("i", "o", "f", "c"), WIDTH, biases=1)
    x = RNG.standard_normal((BATCH, STEPS, WIDTH)).astype(np.float32)
    h0, c0 = (RNG.standard_normal((BATCH, HIDDEN)).astype(np.float32) for _ in range(2))
    p = (RNG.standard_normal(3 * HIDDEN) * 0.5).astype(np.float32) if peephole else None
    lengths = np.array([STEPS - 1, STEPS], np.int64) if time_axis == 0 else np.full(BATCH, STEPS, np.int64)
    inputs = {"x": x if time_axis == 1 else x.transpose(1, 0, 2), "h0": h0, "c0": c0}

    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        step = LstmStep(d.order, clip=clip, cell_clip=cell_clip, peephole_order=("i", "o", "f") if peephole else None)
        weights = (ctx.const(d.input), ctx.const(d.recurrent), ctx.const(d.input_bias))
        return list(lstm_iterator(ctx, step, ctx.input(0), time_axis, (ctx.input(1), ctx.input(2)), weights,
                                  peepholes=None if p is None else ctx.const(p),
                                  lengths=ctx.const(lengths) if time_axis == 0 else None, reverse=reverse))

    y, h, c = convert(tmp_path, extract, LSTM_ITERATOR_OPS, inputs)
    want_y, want_h, want_c = lstm_reference(x, h0, c0, d, p, lengths, clip, cell_clip, reverse)
    np.testing.assert_allclose(y if time_axis == 1 else y.transpose(1, 0, 2), want_y, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c, want_c, rtol=1e-4, atol=1e-5)
