"""The Caffe reference for ``irconv convert --verify``: the network run by OpenCV's Caffe reader.

OpenCV 5 removed ``cv2.dnn.readNetFromCaffe``; ``opencv-python-headless<5`` still has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.errors import UserError
from irconv.plugins import Verifier

from irconv_caffe.loader import resolve_files


def run_opencv(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    """Outputs of the network's last layers by layer name, computed by OpenCV (no fusion,
    the plain OpenCV backend, so the reference is the layers' own arithmetic)."""
    import cv2

    if not hasattr(cv2.dnn, "readNetFromCaffe"):
        raise UserError(
            "--verify needs OpenCV's Caffe reader, removed in OpenCV 5: pip install 'opencv-python-headless<5'"
        )
    proto, weights = resolve_files(path, options)
    net = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.enableFusion(False)
    for name, value in inputs.items():
        net.setInput(value, name)
    names = list(net.getUnconnectedOutLayersNames())
    values = net.forward(names)
    return dict(zip(names, values, strict=True))


VERIFIER = Verifier(
    framework="caffe",
    run_reference=run_opencv,
    requires=("cv2",),
    install="opencv-python-headless<5",
    description="OpenCV's Caffe reader (cv2.dnn)",
)
