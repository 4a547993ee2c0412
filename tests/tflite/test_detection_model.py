"""An SSD-style detector (convolutional box and class heads over a grid of anchors) ending in
the TFLite_Detection_PostProcess custom operator, made by TensorFlow's converter the way
TensorFlow's object detection export does it: a ``tf.function`` whose
``experimental_implements`` names the operator and its attributes, converted with
``allow_custom_ops``. irconv's IR in OpenVINO against the LiteRT interpreter; detections
are compared as sets (same count; each detection's class, score and box found once on the
other side), since NMS may order ties either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_support import ModelCache, compare

GRID, SIZES, CLASSES, MAX_DETECTIONS = 4, (0.2, 0.4), 3, 20
ANCHORS_PER_CELL = len(SIZES)
IMAGE = np.random.default_rng(14).uniform(-1, 1, (1, 32, 32, 3)).astype(np.float32)


def _anchors() -> np.ndarray:
    """[y, x, h, w] per anchor: every grid cell's centre, one anchor per size."""
    centres = (np.arange(GRID, dtype=np.float32) + 0.5) / GRID
    y, x = np.meshgrid(centres, centres, indexing="ij")
    return np.array([[cy, cx, s, s] for cy, cx in zip(y.ravel(), x.ravel(), strict=True) for s in SIZES],
                    np.float32)


def _postprocess_attributes(regular_nms: bool) -> str:
    """The operator's attributes, spelled as TensorFlow's object detection export spells them."""
    ints = {"max_detections": MAX_DETECTIONS, "max_classes_per_detection": 1, "detections_per_class": 5,
            "num_classes": CLASSES}
    floats = {"nms_score_threshold": 0.8, "nms_iou_threshold": 0.5, "y_scale": 10.0, "x_scale": 10.0,
              "h_scale": 5.0, "w_scale": 5.0}
    parts = ['name: "TFLite_Detection_PostProcess"']
    parts += [f'attr {{ key: "{k}" value {{ i: {v} }} }}' for k, v in ints.items()]
    parts += [f'attr {{ key: "{k}" value {{ f: {v:f} }} }}' for k, v in floats.items()]
    parts.append(f'attr {{ key: "use_regular_nms" value {{ b: {str(regular_nms).lower()} }} }}')
    return " ".join(parts)


def _detector(regular_nms: bool) -> Any:
    import tensorflow as tf

    rng = np.random.default_rng(15)
    backbone = tf.constant(rng.normal(0, 0.4, (3, 3, 3, 8)).astype(np.float32))
    box_head = tf.constant(rng.normal(0, 0.3, (1, 1, 8, ANCHORS_PER_CELL * 4)).astype(np.float32))
    class_head = tf.constant(rng.normal(0, 0.6, (1, 1, 8, ANCHORS_PER_CELL * (CLASSES + 1))).astype(np.float32))
    anchors = tf.constant(_anchors())
    count = GRID * GRID * ANCHORS_PER_CELL

    @tf.function(experimental_implements=_postprocess_attributes(regular_nms))
    def postprocess(box_encodings: Any, class_predictions: Any, anchors: Any) -> Any:
        # a stand-in the converter replaces by the custom operator
        zero = tf.constant(0.0)
        return zero, zero, zero, zero

    def detect(image: Any) -> Any:
        features = tf.nn.relu(tf.nn.conv2d(image, backbone, 8, "SAME"))
        boxes = tf.reshape(tf.nn.conv2d(features, box_head, 1, "SAME"), [1, count, 4])
        scores = tf.sigmoid(tf.reshape(tf.nn.conv2d(features, class_head, 1, "SAME"), [1, count, CLASSES + 1]))
        return postprocess(boxes, scores, anchors)

    return detect


def _detections(outputs: list[np.ndarray]) -> list[tuple[int, float, np.ndarray]]:
    """(class, score, box) of each valid detection, from the operator's four outputs
    (boxes [1, D, 4], classes [1, D], scores [1, D], count [1]); rows past the count are
    padding, which LiteRT leaves unwritten."""
    boxes, classes, scores, count = outputs
    return [(int(classes[0, i]), float(scores[0, i]), boxes[0, i]) for i in range(int(count[0]))]


def _same_sets(got: list[tuple[int, float, np.ndarray]], expected: list[tuple[int, float, np.ndarray]]) -> None:
    assert len(got) == len(expected), f"{len(got)} detections, LiteRT finds {len(expected)}"
    unmatched = list(got)
    for cls, score, box in expected:
        match = next((d for d in unmatched if d[0] == cls and abs(d[1] - score) <= 1e-5
                      and np.allclose(d[2], box, atol=1e-4)), None)
        assert match is not None, f"LiteRT's detection (class {cls}, score {score:.5f}, box {box}) is missing"
        unmatched.remove(match)


@pytest.mark.slow
@pytest.mark.parametrize("regular_nms", [False, True])
def test_ssd_detector(regular_nms: bool, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_saved_model(f"ssd_{'regular' if regular_nms else 'fast'}", _detector(regular_nms),
                                          [IMAGE], allow_custom_ops=True)
    compared = compare(made.path, made.inputs, tmp_path)
    assert len(compared.got) == 4
    order = _output_order(made.path)
    got = _detections([compared.got[i] for i in order])
    expected = _detections([compared.expected[i] for i in order])
    assert expected, "the detector finds nothing: the test would compare empty sets"
    _same_sets(got, expected)


def _output_order(path: Path) -> list[int]:
    """Positions of the operator's outputs (boxes, classes, scores, count) among the model's
    outputs, as the interpreter lists them."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=str(path))
    op = next(o for o in interpreter._get_ops_details() if o["op_name"] == "TFLite_Detection_PostProcess")  # noqa: SLF001
    outputs = [int(d["index"]) for d in interpreter.get_output_details()]
    return [outputs.index(int(i)) for i in op["outputs"]]
