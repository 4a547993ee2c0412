"""A hand-written symbol and spec-written params, converted and run in OpenVINO, against a
NumPy reference written from MXNet's op definitions (no MXNet needed)."""

from __future__ import annotations

import json
from collections.abc import Callable
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


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.log1p(np.exp(x))


#: Ops registered by name out of a family (one function per family, the op's name picking
#: the member): (op, attributes, NumPy reference from MXNet's op definition).
NAMED_OPS = [
    ("relu", {}, lambda x: np.maximum(x, 0)),
    ("sigmoid", {}, lambda x: 1 / (1 + np.exp(-x))),
    ("softsign", {}, lambda x: x / (1 + np.abs(x))),
    ("log_sigmoid", {}, lambda x: -_softplus(-x)),
    ("mish", {}, lambda x: x * np.tanh(_softplus(x))),
    ("sin", {}, np.sin),
    ("floor", {}, np.floor),
    ("square", {}, np.square),
    ("log1p", {}, lambda x: np.log1p(np.abs(x))),
    ("fix", {}, np.trunc),
    ("argmax", {"axis": "1"}, lambda x: np.argmax(x, axis=1).astype(np.float32)),
    ("argmin", {"axis": "1"}, lambda x: np.argmin(x, axis=1).astype(np.float32)),
    ("zeros_like", {}, lambda x: x),
    ("ones_like", {}, lambda x: x + 1),
]


@pytest.mark.parametrize(("op", "attrs", "ref"), NAMED_OPS, ids=[case[0] for case in NAMED_OPS])
def test_family_ops_registered_by_name_match_numpy(op: str, attrs: dict[str, str],
                                                   ref: Callable[[np.ndarray], np.ndarray], tmp_path: Path) -> None:
    nodes = [{"op": "null", "name": "data", "inputs": []}]
    if op == "log1p":  # log1p of |x|, defined everywhere
        nodes.append(node("abs", "abs", [0]))
        nodes.append(node(op, "out", [1]))
    elif op.endswith("_like"):  # x + fill, so the graph still reads its input
        nodes.append(node(op, "fill", [0]))
        nodes.append(node("elemwise_add", "out", [0, 1]))
    else:
        nodes.append(node(op, "out", [0], **attrs))
    symbol = {"nodes": nodes, "arg_nodes": [0], "heads": [[len(nodes) - 1, 0, 0]]}
    (tmp_path / "op-symbol.json").write_text(json.dumps(symbol))
    graph = irconv.convert_model(tmp_path / "op-symbol.json", inputs=["data[2,3,4]"])
    xml = tmp_path / "op.xml"
    irconv.save_model(graph, xml, compress_to_fp16=False)
    x = np.random.default_rng(3).uniform(-3, 3, (2, 3, 4)).astype(np.float32)
    got = run_ir(xml, {"data": x})["out"]
    np.testing.assert_allclose(got, ref(x.astype(np.float64)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("op", "attrs", "value"), [("_zeros", {}, 0.0), ("_ones", {}, 1.0),
                                                    ("_full", {"value": "2.5"}, 2.5)])
def test_fills_registered_by_name_match_numpy(op: str, attrs: dict[str, str], value: float, tmp_path: Path) -> None:
    nodes = [{"op": "null", "name": "data", "inputs": []},
             node(op, "fill", [], shape="(2, 3)", **attrs),
             node("elemwise_add", "out", [0, 1])]
    symbol = {"nodes": nodes, "arg_nodes": [0], "heads": [[2, 0, 0]]}
    (tmp_path / "fill-symbol.json").write_text(json.dumps(symbol))
    graph = irconv.convert_model(tmp_path / "fill-symbol.json", inputs=["data[2,3]"])
    xml = tmp_path / "fill.xml"
    irconv.save_model(graph, xml, compress_to_fp16=False)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(run_ir(xml, {"data": x})["out"], x + value, rtol=1e-6)


@pytest.mark.parametrize("force_suppress", [False, True])
def test_multibox_detection_of_a_batch_keeps_the_rows_over_threshold(force_suppress: bool, tmp_path: Path) -> None:
    """A batch of two (the NonMaxSuppression path): one anchor, zero offsets (the box is the
    anchor); the first image's foreground score passes the threshold, the second's does not
    (MXNet fills a dropped row with -1)."""
    nodes = [{"op": "null", "name": n, "inputs": []} for n in ("cls_prob", "loc_pred", "anchors")]
    nodes.append(node("_contrib_MultiBoxDetection", "det", [0, 1, 2], threshold="0.01",
                      force_suppress=str(force_suppress)))
    symbol = {"nodes": nodes, "arg_nodes": [0, 1, 2], "heads": [[3, 0, 0]]}
    (tmp_path / "det-symbol.json").write_text(json.dumps(symbol))
    graph = irconv.convert_model(tmp_path / "det-symbol.json",
                                 inputs=["cls_prob[2,2,1]", "loc_pred[2,4]", "anchors[1,1,4]"])
    xml = tmp_path / "det.xml"
    irconv.save_model(graph, xml, compress_to_fp16=False)
    feeds = {"cls_prob": np.array([[[0.3], [0.7]], [[0.995], [0.005]]], np.float32),
             "loc_pred": np.zeros((2, 4), np.float32),
             "anchors": np.array([[[0.1, 0.2, 0.5, 0.6]]], np.float32)}
    got = run_ir(xml, feeds)["det"]
    expected = np.array([[[0, 0.7, 0.1, 0.2, 0.5, 0.6]], [[-1, -1, -1, -1, -1, -1]]], np.float32)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
