"""The native Attention extractor: irconv IR on OpenVINO against onnxruntime (and the ONNX reference)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

pytest.importorskip("openvino")
ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(23)


def _model(inputs: dict[str, np.ndarray], outputs: list[str], opset: int = 23, **attributes: Any) -> Any:
    names = ["Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"]
    given = [n if n in inputs else "" for n in names]
    while given and not given[-1]:
        given.pop()
    node = helper.make_node("Attention", given, outputs, **attributes)
    codes = {
        np.dtype(np.float32): TensorProto.FLOAT,
        np.dtype(np.bool_): TensorProto.BOOL,
        np.dtype(np.int64): TensorProto.INT64,
    }
    graph = helper.make_graph(
        [node],
        "attention",
        [helper.make_tensor_value_info(n, codes[x.dtype], list(x.shape)) for n, x in inputs.items()],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10  # what the installed onnxruntime reads
    return model


def _irconv(model: Any, feeds: dict[str, np.ndarray], tmp_path: Path, host: Any) -> dict[str, np.ndarray]:
    import onnx
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir

    path = tmp_path / "model.onnx"
    onnx.save_model(model, str(path))
    graph = convert_model(path, host=host)
    xml = tmp_path / "model.xml"
    save_model(graph, xml, host=host, compress_to_fp16=False)
    return run_ir(xml, feeds)


def _compare(model: Any, feeds: dict[str, np.ndarray], tmp_path: Path, host: Any, reference: bool = False) -> None:
    """irconv on OpenVINO against onnxruntime, or against the ONNX reference evaluator."""
    got = _irconv(model, feeds, tmp_path, host)
    names = [o.name for o in model.graph.output]
    if reference:
        from onnx.reference import ReferenceEvaluator

        expected = ReferenceEvaluator(model).run(None, feeds)
    else:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        expected = session.run(names, feeds)
    for name, want in zip(names, expected, strict=True):
        assert not np.isnan(got[name]).any(), name
        np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-5, err_msg=name)


def test_attention_has_a_native_extractor() -> None:
    from irconv_onnx.extractors import all_extractors

    assert any(e.op == "Attention" and e.domain == "" for e in all_extractors())


def _x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_4d(tmp_path: Path, installed_host: Any) -> None:
    feeds = {"Q": _x(2, 3, 4, 8), "K": _x(2, 3, 6, 8), "V": _x(2, 3, 6, 5)}
    _compare(_model(feeds, ["Y"]), feeds, tmp_path, installed_host)


def test_4d_scaled_with_float_mask(tmp_path: Path, installed_host: Any) -> None:
    feeds = {"Q": _x(2, 3, 4, 8), "K": _x(2, 3, 6, 8), "V": _x(2, 3, 6, 8), "attn_mask": _x(4, 6)}
    _compare(_model(feeds, ["Y"], scale=0.3), feeds, tmp_path, installed_host)


def test_3d_with_heads(tmp_path: Path, installed_host: Any) -> None:
    feeds = {"Q": _x(2, 4, 3 * 8), "K": _x(2, 6, 3 * 8), "V": _x(2, 6, 3 * 5)}
    _compare(_model(feeds, ["Y"], q_num_heads=3, kv_num_heads=3), feeds, tmp_path, installed_host)


def test_causal(tmp_path: Path, installed_host: Any) -> None:
    feeds = {"Q": _x(1, 2, 5, 8), "K": _x(1, 2, 5, 8), "V": _x(1, 2, 5, 8)}
    _compare(_model(feeds, ["Y"], is_causal=1), feeds, tmp_path, installed_host)


def test_bool_mask_with_a_fully_masked_row_gives_zero(tmp_path: Path, installed_host: Any) -> None:
    mask = np.array([[True, False, True], [False, False, False], [True, True, True]])
    feeds = {"Q": _x(1, 2, 3, 4), "K": _x(1, 2, 3, 4), "V": _x(1, 2, 3, 4), "attn_mask": mask}
    model = _model(feeds, ["Y", "present_key", "present_value", "qk"], qk_matmul_output_mode=3)
    # The spec's 0 for a fully masked row is what the ONNX reference gives.
    _compare(model, feeds, tmp_path, installed_host, reference=True)
    got = _irconv(model, feeds, tmp_path, installed_host)
    assert np.all(got["Y"][:, :, 1] == 0) and np.all(got["qk"][:, :, 1] == 0)


def test_grouped_query_attention(tmp_path: Path, installed_host: Any) -> None:
    feeds = {"Q": _x(2, 6, 4, 8), "K": _x(2, 2, 5, 8), "V": _x(2, 2, 5, 8)}
    _compare(_model(feeds, ["Y"]), feeds, tmp_path, installed_host)


def test_grouped_query_attention_3d_causal(tmp_path: Path, installed_host: Any) -> None:
    feeds = {"Q": _x(1, 4, 6 * 4), "K": _x(1, 4, 2 * 4), "V": _x(1, 4, 2 * 4)}
    _compare(_model(feeds, ["Y"], q_num_heads=6, kv_num_heads=2, is_causal=1), feeds, tmp_path, installed_host)


def test_past_key_value(tmp_path: Path, installed_host: Any) -> None:
    feeds = {
        "Q": _x(1, 2, 3, 8),
        "K": _x(1, 2, 3, 8),
        "V": _x(1, 2, 3, 8),
        "attn_mask": _x(3, 7),
        "past_key": _x(1, 2, 4, 8),
        "past_value": _x(1, 2, 4, 8),
    }
    model = _model(feeds, ["Y", "present_key", "present_value", "qk"], qk_matmul_output_mode=2)
    _compare(model, feeds, tmp_path, installed_host)


def test_past_key_value_causal(tmp_path: Path, installed_host: Any) -> None:
    feeds = {
        "Q": _x(1, 2, 3, 8),
        "K": _x(1, 2, 3, 8),
        "V": _x(1, 2, 3, 8),
        "past_key": _x(1, 2, 4, 8),
        "past_value": _x(1, 2, 4, 8),
    }
    model = _model(feeds, ["Y", "present_key", "present_value"], is_causal=1)
    _compare(model, feeds, tmp_path, installed_host)


def test_softcap(tmp_path: Path, installed_host: Any) -> None:
    feeds = {"Q": _x(2, 3, 4, 8) * 3, "K": _x(2, 3, 6, 8) * 3, "V": _x(2, 3, 6, 8)}
    model = _model(feeds, ["Y", "present_key", "present_value", "qk"], softcap=2.0, qk_matmul_output_mode=1)
    _compare(model, feeds, tmp_path, installed_host)
