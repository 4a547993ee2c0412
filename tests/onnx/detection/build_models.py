"""Rebuild the committed detection exports: ``python tests/onnx/detection/build_models.py`` (needs torch).

Seeded random weights, eval mode, a fixed 1x3x128x128 input, TorchScript exporter at opset 17.
Class-head biases are raised so random images give detections above the score thresholds
(otherwise the set comparison in tests/onnx/test_detection_models.py would compare empty sets).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch
from torch import nn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _nets import SIZE, FasterLite, RetinaLite, SsdLite  # noqa: E402

OPSET = 17
# score bias per class head (logit units): picked so 1-12 detections survive on random images
BIASES = {"ssd": 2.0, "retinanet": -3.0, "faster_rcnn": 1.5}


def _randomize(model: nn.Module, seed: int) -> None:
    """Seeded weights, BatchNorm statistics away from the identity so folding is exercised."""
    torch.manual_seed(seed)
    for module in model.modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            nn.init.normal_(module.weight, std=(2.0 / module.weight[0].numel()) ** 0.5)
            nn.init.normal_(module.bias, std=0.1)
        elif isinstance(module, nn.BatchNorm2d):
            module.running_mean.normal_(std=0.1)
            module.running_var.uniform_(0.5, 1.5)
            nn.init.normal_(module.weight, mean=1.0, std=0.1)
            nn.init.normal_(module.bias, std=0.1)


def _bias_scores(model: nn.Module, name: str) -> None:
    """Shift the foreground class logits so thresholds are crossed by random inputs."""
    heads = list(model.cls) if name == "ssd" else [model.cls[-1] if name == "retinanet" else model.cls]
    with torch.no_grad():
        for head in heads:
            head.weight.mul_(0.5)
            if name == "ssd":  # softmax over background + classes: lower the background instead
                head.bias.view(-1, 4)[:, 0] -= BIASES[name]
            elif name == "faster_rcnn":
                head.bias[0] -= BIASES[name]
            else:
                head.bias += BIASES[name]


def build(name: str, model: nn.Module, seed: int) -> Path:
    _randomize(model, seed)
    _bias_scores(model, name)
    model.eval()
    path = HERE / f"{name}.onnx"
    image = torch.rand(1, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on the reference NMS / RoiAlign loops
        torch.onnx.export(model, (image,), str(path), opset_version=OPSET, dynamo=False,
                          input_names=["image"], output_names=["boxes", "scores", "labels"])
    return path


def main() -> None:
    for seed, (name, model) in enumerate([("ssd", SsdLite()), ("retinanet", RetinaLite()),
                                          ("faster_rcnn", FasterLite())]):
        path = build(name, model, seed)
        print(f"{path.name}: {path.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
