"""A hand-written symbol and spec-written params, converted and run in OpenVINO, against a
NumPy reference written from MXNet's op definitions (no MXNet needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openvino")

import irconv  # noqa: E402
from irconv.testing.runtime import run_ir  # noqa: E402
from irconv_mxnet.testing import relative_error, write_ndarray_file  # noqa: E402


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray, pad: int) -> np.ndarray:
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = w.shape[2]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))  # N C H W k k
    return np.einsum("nchwij,ocij->nohw", windows, w) + b.reshape(1, -1, 1, 1)


def reference(x: np.ndarray, p: dict[str, np.ndarray]) -> np.ndarray:
    y = conv2d(x, p["conv_weight"], p["conv_bias"], 1)
    scale = p["bn_gamma"] / np.sqrt(p["bn_moving_var"] + 1e-3)
    y = (y - p["bn_moving_mean"].reshape(1, -1, 1, 1)) * scale.reshape(1, -1, 1, 1) + p["bn_beta"].reshape(1, -1, 1, 1)
    y = np.maximum(y, 0)
    n, c, h, w = y.shape
    y = y.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    y = y.reshape(n, -1) @ p["fc_weight"].T + p["fc_bias"]
    y = y * 0.5 + 1.0  # _mul_scalar, _plus_scalar
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def node(op: str, name: str, inputs: list[int], **attrs: str) -> dict[str, object]:
    return {"op": op, "name": name, "attrs": attrs, "inputs": [[i, 0, 0] for i in inputs]}


def test_small_cnn_matches_numpy(tmp_path: Path) -> None:
    names = ["data", "conv_weight", "conv_bias", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var",
             "fc_weight", "fc_bias"]
    nodes: list[dict[str, object]] = [{"op": "null", "name": n, "inputs": []} for n in names]
    nodes += [
        node("Convolution", "conv", [0, 1, 2], kernel="(3, 3)", pad="(1, 1)", num_filter="4"),
        node("BatchNorm", "bn", [9, 3, 4, 5, 6], fix_gamma="False", eps="0.001"),
        node("Activation", "relu", [10], act_type="relu"),
        node("Pooling", "pool", [11], kernel="(2, 2)", stride="(2, 2)", pool_type="max"),
        node("Reshape", "flat", [12], shape="(0, -1)"),
        node("FullyConnected", "fc", [13, 7, 8], num_hidden="5", flatten="False"),
        node("_mul_scalar", "half", [14], scalar="0.5"),
        node("_plus_scalar", "shift", [15], scalar="1.0"),
        node("softmax", "prob", [16], axis="1"),
    ]
    symbol = {"nodes": nodes, "arg_nodes": list(range(9)), "heads": [[len(nodes) - 1, 0, 0]]}
    (tmp_path / "cnn-symbol.json").write_text(json.dumps(symbol))
    rng = np.random.default_rng(7)
    params = {
        "conv_weight": rng.standard_normal((4, 3, 3, 3)),
        "conv_bias": rng.standard_normal(4),
        "bn_gamma": rng.uniform(0.5, 1.5, 4),
        "bn_beta": rng.uniform(-0.5, 0.5, 4),
        "bn_moving_mean": rng.uniform(-0.5, 0.5, 4),
        "bn_moving_var": rng.uniform(0.5, 1.5, 4),
        "fc_weight": rng.standard_normal((5, 4 * 4 * 4)),
        "fc_bias": rng.standard_normal(5),
    }
    params = {k: v.astype(np.float32) for k, v in params.items()}
    prefixed = {("aux:" if "moving" in k else "arg:") + k: v for k, v in params.items()}
    write_ndarray_file(tmp_path / "cnn-0000.params", prefixed)
    graph = irconv.convert_model(tmp_path / "cnn-symbol.json", inputs=["data[2,3,8,8]"])
    xml = tmp_path / "cnn.xml"
    irconv.save_model(graph, xml, compress_to_fp16=False)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    got = run_ir(xml, {"data": x})["prob"]
    assert relative_error(got, reference(x.astype(np.float64), params)) < 1e-5


def test_cli_converts_an_mxnet_model(tmp_path: Path) -> None:
    from irconv.cli.main import main

    symbol = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                        node("Activation", "act", [0], act_type="tanh")],
              "arg_nodes": [0], "heads": [[1, 0, 0]]}
    (tmp_path / "tiny-symbol.json").write_text(json.dumps(symbol))
    out = tmp_path / "tiny.xml"
    code = main(["convert", str(tmp_path / "tiny-symbol.json"), "--input", "data[2,3]", "-o", str(out)])
    assert code == 0 and out.exists()
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(run_ir(out, {"data": x})["act"], np.tanh(x), rtol=1e-3)
