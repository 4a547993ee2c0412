"""Public Caffe networks fed raw RGB pixels: the IR with --reverse-input-channels, means and
scales (folded where exact) against OpenCV fed BGR minus the means, divided by the scales."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
MEANS = np.array([104.0, 117.0, 123.0], np.float32)
SCALE = 58.0
#: model -> (the blob compared (the logits), whether the first convolution pads its input)
MODELS = {"squeezenet_v1_1": ("pool10", False), "mobilenet_v1": ("fc7", True)}


def models_dir() -> Path:
    override = os.environ.get("IRCONV_CAFFE_MODELS")
    found = Path(override) if override else REPO.parent / "shared" / "models" / "caffe"
    if not found.is_dir():
        pytest.skip("the public Caffe prototxts are not here (../shared/models/caffe or $IRCONV_CAFFE_MODELS)")
    return found


@pytest.mark.parametrize("name", sorted(MODELS))
def test_rgb_pixels_in_bgr_mean_scaled_model_out(name: str, kit: Any, tmp_path: Path) -> None:
    cv2 = pytest.importorskip("cv2")
    from irconv_caffe.testing import write_random_caffemodel

    blob, pads = MODELS[name]
    proto = models_dir() / name / "deploy.prototxt"
    weights = tmp_path / f"{name}.caffemodel"
    write_random_caffemodel(proto, weights, seed=sum(map(ord, name)))
    plain, out = tmp_path / "plain.xml", tmp_path / "prep.xml"
    common = ["--weights", str(weights), "--batch", "1", "--output", blob]
    assert kit.convert(proto, plain, *common) == 0
    prep = ["--reverse-input-channels", "--mean-values", "data[104,117,123]", "--scale", str(SCALE)]
    assert kit.convert(proto, out, *common, *prep) == 0
    added = len(kit.layer_types(out)) - len(kit.layer_types(plain))
    assert added == (2 if pads else 0)  # only the means' Subtract and its constant, when padded

    size = 227 if name.startswith("squeezenet") else 224
    rgb = kit.rgb_image((1, 3, size, size), seed=1)
    got = kit.run(out, {"data": rgb})[blob]
    net = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    net.setInput(np.ascontiguousarray((rgb[:, ::-1] - MEANS.reshape(1, 3, 1, 1)) / SCALE), "data")
    expected = net.forward(blob).reshape(got.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * float(np.abs(expected).max()))
