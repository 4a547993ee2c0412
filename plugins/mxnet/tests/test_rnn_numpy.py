"""MXNet's fused RNN op (a hand-written symbol, spec-written parameters) converted and run in
OpenVINO, against a NumPy reference written from MXNet's RNN definition (no MXNet needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openvino")

import irconv  # noqa: E402
from irconv.testing.runtime import run_ir  # noqa: E402
from irconv_mxnet.testing import relative_error, write_ndarray_file  # noqa: E402

STEPS, BATCH, WIDTH, HIDDEN = 5, 3, 4, 6
GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def cell(mode: str, x: np.ndarray, h: np.ndarray, c: np.ndarray, w: tuple[np.ndarray, ...]
         ) -> tuple[np.ndarray, np.ndarray]:
    """One step as MXNet defines it: cuDNN's gate order (LSTM i, f, g, o; GRU r, z, n)."""
    w_ih, w_hh, b_ih, b_hh = w
    xs = np.split(x @ w_ih.T + b_ih, GATES[mode], axis=1)
    hs = np.split(h @ w_hh.T + b_hh, GATES[mode], axis=1)
    logistic = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    if mode == "lstm":
        i, f, g, o = (a + b for a, b in zip(xs, hs, strict=True))
        c = logistic(f) * c + logistic(i) * np.tanh(g)
        return logistic(o) * np.tanh(c), c
    if mode == "gru":
        r, z = logistic(xs[0] + hs[0]), logistic(xs[1] + hs[1])
        n = np.tanh(xs[2] + r * hs[2])
        return (1 - z) * n + z * h, c
    total = xs[0] + hs[0]
    return (np.tanh(total) if mode == "rnn_tanh" else np.maximum(total, 0)), c


def reference(mode: str, x: np.ndarray, h0: np.ndarray, c0: np.ndarray, weights: list[list[tuple[np.ndarray, ...]]]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y [T, N, D*H], hy and cy [L*D, N, H]: each layer reads the one before, directions side by side."""
    hy, cy = [], []
    for layer, directions in enumerate(weights):
        outputs = []
        for d, w in enumerate(directions):
            index = layer * len(directions) + d
            h, c = h0[index], c0[index]
            ys = [h] * len(x)
            for t in (range(len(x) - 1, -1, -1) if d else range(len(x))):
                h, c = cell(mode, x[t], h, c, w)
                ys[t] = h
            outputs.append(np.stack(ys))
            hy.append(h)
            cy.append(c)
        x = np.concatenate(outputs, axis=-1)
    return x, np.stack(hy), np.stack(cy)


@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["forward", "bidirectional"])
@pytest.mark.parametrize("mode", list(GATES))
def test_fused_rnn_matches_numpy(tmp_path: Path, mode: str, bidirectional: bool, layers: int) -> None:
    rng = np.random.default_rng(3)
    dirs = 2 if bidirectional else 1
    gates = GATES[mode] * HIDDEN

    def value(*shape: int) -> np.ndarray:
        return rng.uniform(-0.5, 0.5, shape).astype(np.float32)

    weights = [[(value(gates, WIDTH if layer == 0 else dirs * HIDDEN), value(gates, HIDDEN), value(gates),
                 value(gates)) for _ in range(dirs)] for layer in range(layers)]
    # the flat vector: every layer's and direction's matrices, then all the biases in that order
    flat = [w.reshape(-1) for directions in weights for w_ih_hh in directions for w in w_ih_hh[:2]]
    flat += [b for directions in weights for w in directions for b in w[2:]]
    lstm = mode == "lstm"
    names = ["data", "rnn_parameters", "rnn_state"] + (["rnn_state_cell"] if lstm else [])
    nodes: list[dict[str, object]] = [{"op": "null", "name": n, "inputs": []} for n in names]
    nodes.append({"op": "RNN", "name": "rnn", "inputs": [[i, 0, 0] for i in range(len(names))],
                  "attrs": {"mode": mode, "state_size": str(HIDDEN), "num_layers": str(layers),
                            "bidirectional": str(bidirectional), "state_outputs": "True"}})
    outputs = 3 if lstm else 2
    symbol = {"nodes": nodes, "arg_nodes": list(range(len(names))),
              "heads": [[len(names), k, 0] for k in range(outputs)]}
    (tmp_path / "rnn-symbol.json").write_text(json.dumps(symbol))
    write_ndarray_file(tmp_path / "rnn-0000.params", {"arg:rnn_parameters": np.concatenate(flat)})
    x = value(STEPS, BATCH, WIDTH)
    h0, c0 = value(layers * dirs, BATCH, HIDDEN), value(layers * dirs, BATCH, HIDDEN)
    feeds = {"data": x, "rnn_state": h0, **({"rnn_state_cell": c0} if lstm else {})}
    shapes = [f"{k}[{','.join(str(d) for d in v.shape)}]" for k, v in feeds.items()]
    xml = tmp_path / "rnn.xml"
    irconv.save_model(irconv.convert_model(tmp_path / "rnn-symbol.json", inputs=shapes), xml, compress_to_fp16=False)
    result = run_ir(xml, feeds)
    got = [result[f"rnn_output{k}"] for k in range(outputs)]
    want = reference(mode, x.astype(np.float64), h0, c0, weights)[:outputs]
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        assert relative_error(g, w) <= 1e-4
