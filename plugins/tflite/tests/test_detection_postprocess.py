"""TFLite_Detection_PostProcess against the LiteRT interpreter (fast and regular NMS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.api import convert_model
from irconv.testing.runtime import emit_ir, run_ir
from tiny_models import build, detection_model

pytest.importorskip("ai_edge_litert")


def _anchors(grid: int) -> np.ndarray:
    centres = (np.arange(grid, dtype=np.float32) + 0.5) / grid
    y, x = np.meshgrid(centres, centres, indexing="ij")
    size = np.full(y.size, 2.0 / grid, np.float32)
    return np.stack([y.ravel(), x.ravel(), size, size], axis=1)


def _litert(path: Path, feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from irconv_tflite.verify import run_interpreter

    return run_interpreter(path, feed, None)


@pytest.mark.parametrize("regular", [False, True])
def test_detection_postprocess(regular: bool, tmp_path: Path) -> None:
    anchors = _anchors(6)
    classes = 3
    options = {"max_detections": 10, "max_classes_per_detection": 1, "detections_per_class": 5,
               "use_regular_nms": regular, "nms_score_threshold": 0.3, "nms_iou_threshold": 0.5,
               "num_classes": classes, "y_scale": 10.0, "x_scale": 10.0, "h_scale": 5.0, "w_scale": 5.0}
    path = tmp_path / "detect.tflite"
    path.write_bytes(build(detection_model(anchors, classes, options)))
    rng = np.random.default_rng(4)
    feed = {"box_encodings": rng.normal(0, 1, (1, len(anchors), 4)).astype(np.float32),
            "class_predictions": rng.uniform(0, 1, (1, len(anchors), classes + 1)).astype(np.float32)}
    expected = _litert(path, feed)
    got = run_ir(emit_ir(convert_model(path), tmp_path / "detect.xml"), feed)
    count = int(expected["num_detections"][0])
    assert count > 0
    assert float(got["num_detections"][0]) == count
    for name in ("detection_boxes", "detection_classes", "detection_scores"):
        np.testing.assert_allclose(got[name], expected[name], atol=1e-5, err_msg=name)
