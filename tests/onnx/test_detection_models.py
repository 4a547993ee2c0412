"""Detection exports (SSD, RetinaNet, Faster R-CNN styles) on OpenVINO against onnxruntime, as sets.

The .onnx files come from tests/onnx/detection/build_models.py. NonMaxSuppression fixes which
detections exist but not their order, so each OpenVINO detection must match a distinct
onnxruntime one (same label, close score, close box) and vice versa.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

MODELS = Path(__file__).parent / "detection"
NAMES = ("ssd", "retinanet", "faster_rcnn")
SIZE = 128
SCORE_RTOL = 1e-4
BOX_ATOL = 1e-3
# a detection whose score is this close to the threshold may exist on one side only
EDGE = 1e-4


@dataclass(frozen=True)
class Detections:
    boxes: np.ndarray   # [K, 4]
    scores: np.ndarray  # [K]
    labels: np.ndarray  # [K]


def _final_score_threshold(path: Path) -> float:
    """The score threshold of the last NonMaxSuppression (its fifth input, a Constant)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    nms = [n for n in model.graph.node if n.op_type == "NonMaxSuppression"][-1]
    constants = {n.output[0]: n for n in model.graph.node if n.op_type == "Constant"}
    value = constants[nms.input[4]].attribute[0].t
    return float(numpy_helper.to_array(value).reshape(-1)[0])


def _drop_edge(found: Detections, threshold: float) -> Detections:
    keep = np.abs(found.scores - threshold) > EDGE
    return Detections(found.boxes[keep], found.scores[keep], found.labels[keep])


def assert_same_detections(got: Detections, want: Detections, threshold: float) -> None:
    """One-to-one match of detections regardless of order; ties at the threshold are ignored."""
    got, want = _drop_edge(got, threshold), _drop_edge(want, threshold)
    assert len(got.scores) == len(want.scores), f"{len(got.scores)} detections, onnxruntime has {len(want.scores)}"
    free = np.ones(len(got.scores), bool)
    for box, score, label in zip(want.boxes, want.scores, want.labels, strict=True):
        close = (free & (got.labels == label)
                 & (np.abs(got.scores - score) <= SCORE_RTOL * max(abs(score), 1e-6))
                 & (np.abs(got.boxes - box).max(axis=1, initial=0.0) <= BOX_ATOL))
        assert close.any(), f"onnxruntime detection label={label} score={score} box={box} has no match"
        free[np.flatnonzero(close)[0]] = False


def _images() -> list[np.ndarray]:
    """Seeded noise, plus a crafted scene: bright rectangles on a dark background."""
    images = [np.random.default_rng(seed).random((1, 3, SIZE, SIZE), dtype=np.float32) for seed in (0, 1, 2)]
    scene = np.full((1, 3, SIZE, SIZE), 0.05, np.float32)
    scene[:, 0, 16:60, 20:90] = 1.0
    scene[:, 1:, 70:120, 64:100] = 0.9
    scene[:, :, 40:56, 96:124] = 0.7
    return images + [scene]


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory, installed_host: Any) -> dict[str, Path]:
    """Each model converted once by irconv; the IR path by model name."""
    from irconv.api import convert_model, save_model

    out: dict[str, Path] = {}
    for name in NAMES:
        xml = tmp_path_factory.mktemp(name) / f"{name}.xml"
        save_model(convert_model(MODELS / f"{name}.onnx", host=installed_host), xml, host=installed_host,
                   compress_to_fp16=False)
        out[name] = xml
    return out


@pytest.mark.parametrize("name", NAMES)
def test_detections_match_onnxruntime(name: str, converted: dict[str, Path]) -> None:
    import onnxruntime as ort
    from irconv.testing.runtime import compile_ir

    path = MODELS / f"{name}.onnx"
    threshold = _final_score_threshold(path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    compiled = compile_ir(converted[name])
    for image in _images():
        want = Detections(*session.run(["boxes", "scores", "labels"], {"image": image}))
        result = compiled.create_infer_request().infer({0: image})
        got = Detections(*(np.asarray(result[compiled.output(key)]) for key in ("boxes", "scores", "labels")))
        assert len(want.scores) > 0, "the export should detect something on every test image"
        assert got.labels.dtype == want.labels.dtype
        assert_same_detections(got, want, threshold)


@pytest.mark.parametrize("name", NAMES)
def test_no_detections_give_empty_outputs(name: str, tmp_path: Path, installed_host: Any) -> None:
    """Every NMS threshold raised out of reach: zero picks flow through Gather, TopK k=0 and
    (Faster R-CNN) RoiAlign over zero proposals, on both runtimes."""
    import onnx
    import onnxruntime as ort
    from irconv.api import convert_model, save_model
    from irconv.testing.runtime import run_ir
    from onnx import numpy_helper

    model = onnx.load(str(MODELS / f"{name}.onnx"))
    constants = {n.output[0]: n for n in model.graph.node if n.op_type == "Constant"}
    for nms in (n for n in model.graph.node if n.op_type == "NonMaxSuppression"):
        constants[nms.input[4]].attribute[0].t.CopyFrom(numpy_helper.from_array(np.array([2.0], np.float32)))
    path, xml = tmp_path / "model.onnx", tmp_path / "model.xml"
    onnx.save_model(model, str(path))
    save_model(convert_model(path, host=installed_host), xml, host=installed_host, compress_to_fp16=False)
    image = _images()[0]
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": image})
    got = run_ir(xml, {"image": image})
    for key, expected in zip(("boxes", "scores", "labels"), want, strict=True):
        assert expected.shape[0] == 0 and got[key].shape == expected.shape, key


def _sample() -> Detections:
    boxes = np.array([[0, 0, 10, 10], [5, 5, 20, 20], [30, 30, 60, 50]], np.float32)
    return Detections(boxes, np.array([0.9, 0.6, 0.5], np.float32), np.array([1, 2, 1], np.int64))


def test_matching_ignores_order_and_threshold_ties() -> None:
    want = _sample()
    order = np.array([2, 0, 1])
    got = Detections(want.boxes[order], want.scores[order], want.labels[order])
    assert_same_detections(got, want, threshold=0.3)
    assert_same_detections(got, Detections(want.boxes[:2], want.scores[:2], want.labels[:2]), threshold=0.5 - EDGE / 2)


@pytest.mark.parametrize("field", ["boxes", "scores", "labels"])
def test_matching_catches_a_changed_detection(field: str) -> None:
    want = _sample()
    changed = {"boxes": want.boxes + np.array([[0, 0, 0, 0], [0, 0, 0, 0.01], [0, 0, 0, 0]], np.float32),
               "scores": want.scores * np.array([1, 1.001, 1], np.float32),
               "labels": np.array([1, 1, 1], np.int64)}
    got = Detections(**{**want.__dict__, field: changed[field]})
    with pytest.raises(AssertionError):
        assert_same_detections(got, want, threshold=0.3)
