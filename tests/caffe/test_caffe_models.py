"""The 15 public Caffe deploy prototxts, with seeded random weights: irconv + OpenVINO vs OpenCV.

Each model is converted at batch 1, run on OpenVINO's CPU runtime and compared with
OpenCV's own Caffe importer on the same input. Outputs are the blobs no layer consumes,
plus the logits feeding a final Softmax (a saturated softmax alone would hide errors).
DetectionOutput results are compared as sets of boxes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.api import convert_model
from irconv.testing.runtime import emit_ir, run_ir
from irconv_caffe.prototxt import read_prototxt
from irconv_caffe.testing import declared_input_shapes
from irconv_caffe.testing.compare import assert_close, assert_same_detections

cv2 = pytest.importorskip("cv2")
if not hasattr(cv2.dnn, "readNetFromCaffe"):
    pytest.skip("this OpenCV has no Caffe importer (needs opencv-python-headless<5)", allow_module_level=True)

MODELS = [
    "alexnet",
    "caffenet",
    "googlenet",
    "resnet50",
    "squeezenet_v1_1",
    "mobilenet_v1",
    "mobilenet_v2",
    "mobilenet_ssd",
    "mobilenet_ssd_bn",
    "densenet121",
    "vgg16",
    "mtcnn_pnet",
    "mtcnn_onet",
    "mtcnn_lnet",
    "fcn8s",
]


#: Smaller inputs where the declared one makes the test slow (FCN-8s declares 500 x 500).
SPATIAL = {"fcn8s": (256, 256)}


def outputs_to_compare(net) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
    """blob name -> (last layer writing it, that layer's type), for the blobs worth checking."""
    writer: dict[str, tuple[str, str]] = {}
    consumed: set[str] = set()
    for layer in net.layer:
        if layer.type == "Input":
            continue
        consumed.update(b for b in layer.bottom if b not in layer.top)
        for top in layer.top:
            writer[top] = (layer.name, layer.type)
            consumed.discard(top)
    final = {blob: w for blob, w in writer.items() if blob not in consumed}
    # The logits under a final Softmax.
    for layer in net.layer:
        if layer.type == "Softmax" and layer.top[0] in final and layer.bottom[0] in writer:
            final[layer.bottom[0]] = writer[layer.bottom[0]]
    return final


@pytest.mark.parametrize("name", MODELS)
def test_model_matches_opencv(name: str, random_caffemodel, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proto, weights = random_caffemodel(name)
    net = read_prototxt(proto)
    inputs = {blob: (1, *shape[1:]) for blob, shape in declared_input_shapes(net, proto).items()}
    if name in SPATIAL:
        inputs = {blob: (*shape[:2], *SPATIAL[name]) for blob, shape in inputs.items()}
    compared = outputs_to_compare(net)

    graph = convert_model(
        proto,
        host=installed_host,
        weights=weights,
        inputs=[f"{blob}[{','.join(map(str, shape))}]" for blob, shape in inputs.items()],
        outputs=list(compared),
    )
    xml = emit_ir(graph, tmp_path / f"{name}.xml", installed_host)
    rng = np.random.default_rng(7)
    feed = {blob: rng.uniform(-1.0, 1.0, shape).astype(np.float32) for blob, shape in inputs.items()}
    actual = run_ir(xml, feed)

    reference = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    reference.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    reference.enableFusion(False)
    for blob, value in feed.items():
        reference.setInput(value, blob)
    layers = [layer for layer, _ in compared.values()]
    expected = reference.forward(layers)

    for (blob, (_, layer_type)), want in zip(compared.items(), expected, strict=True):
        got = actual[blob]
        if layer_type == "DetectionOutput":
            assert_same_detections(f"{name}:{blob}", got, want)
        else:
            assert_close(f"{name}:{blob}", got, want)


def test_dynamic_batch_and_spatial_dims(random_caffemodel, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """``--input data[?,3,?,?]`` keeps the IR reshapeable; run at batch 2 it matches OpenCV."""
    proto, weights = random_caffemodel("googlenet")
    graph = convert_model(proto, host=installed_host, weights=weights, inputs=["data[?,3,?,?]"])
    xml = emit_ir(graph, tmp_path / "googlenet.xml", installed_host)
    x = np.random.default_rng(5).uniform(-1.0, 1.0, (2, 3, 224, 224)).astype(np.float32)
    got = run_ir(xml, {"data": x})["prob"]
    reference = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    reference.setInput(x, "data")
    assert_close("googlenet dynamic", got, reference.forward("prob"))
