"""torchvision architectures through the PyTorch front end: irconv against OpenVINO's own.

Each model of ``MODELS`` (every torchvision family at its smallest variant: classification,
segmentation, detection, video, optical flow, quantizable) is built with ``weights=None`` (and
``weights_backbone=None``: nothing is downloaded) from a fixed seed, in eval mode, with its
BatchNorm statistics randomised (``tests/torch/families.py``'s ``randomise_statistics``). Each
tool runs in its own process with a timeout: ``irconv.convert_model(module, example_input=...)``
(saved, read back with ``openvino.Core().read_model``) and ``openvino.convert_model(module,
example_input=...)``. The IR is compiled on the CPU with f32 inference precision and run on the
example input, and its outputs are checked against torch eager with ``tests/sweeps/torch_families.py``'s
``compare`` (torch's shapes; ``|got - want| <= 1e-3 * max(1, max |want|)``, integers exactly).
Detection models are wrapped to return their first image's outputs as a flat tuple (boxes,
scores, labels, then masks or keypoints); their detections are compared as sets: the IR's
rows are put in the order of torch's by matching each torch box to the nearest IR box, then
compared as above (``compare_detections``).

How torchvision is made importable: PyPI's torchvision wheel is built for CUDA torch and its
C++ extension does not load beside the CPU torch build. It is installed without dependencies
into a directory of its own (``pip install --no-deps --target DIR torchvision==0.28.0``; the
default ``--site`` is /tmp/tvsite), that directory goes on ``sys.path`` in each child
process, and ``tests/torch/torchvision_cpu_shim.py`` is imported before torchvision: it declares the
``torchvision::`` operator schemas from Python with plain-torch CPU kernels for ``nms`` and
``roi_align`` (torchvision's own ``_meta_registrations`` then adds their fake kernels for
``torch.export``), and ``torchvision.extension._has_ops`` is made to answer True (a plain
function: TorchScript compiles it when torchvision scripts its box ops during tracing).

    python tests/sweeps/torch_zoo.py                                  # every model
    python tests/sweeps/torch_zoo.py --models resnet18 vit_b_32       # some
    python tests/sweeps/torch_zoo.py --site /path/to/torchvision/dir --timeout 900
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irconv.testing import worker

FAMILIES_DIR = Path(__file__).resolve().parents[1] / "torch"
TOOLS = ("irconv", "ovc")


@dataclass(frozen=True)
class ZooModel:
    """A torchvision builder, the input shapes it runs on, and how its outputs compare."""

    name: str
    task: str  # classification, segmentation, detection, video, flow, quantizable
    inputs: tuple[tuple[int, ...], ...]
    keywords: dict[str, Any] = field(default_factory=dict)  # the builder's
    call_keywords: dict[str, Any] = field(default_factory=dict)  # forward's, fixed

    @property
    def detection(self) -> bool:
        return self.task == "detection"


def _classifier(name: str, size: int = 96, **keywords: Any) -> ZooModel:
    return ZooModel(name, "classification", ((1, 3, size, size),), keywords)


DETECTION = dict(weights_backbone=None, min_size=320, max_size=320)
MODELS: tuple[ZooModel, ...] = (
    _classifier("resnet18"),
    _classifier("resnext50_32x4d"),
    _classifier("wide_resnet50_2"),
    _classifier("mobilenet_v2"),
    _classifier("mobilenet_v3_small"),
    _classifier("efficientnet_b0"),
    _classifier("efficientnet_v2_s"),
    _classifier("regnet_x_400mf"),
    _classifier("regnet_y_400mf"),
    _classifier("convnext_tiny"),
    _classifier("densenet121"),
    _classifier("googlenet"),
    _classifier("inception_v3", 128),  # its smallest input is 75x75
    _classifier("shufflenet_v2_x0_5"),
    _classifier("squeezenet1_1"),
    _classifier("mnasnet0_5"),
    _classifier("vgg11"),
    _classifier("alexnet"),
    _classifier("vit_b_32", 96, image_size=96),
    _classifier("swin_t"),
    _classifier("swin_v2_t"),
    _classifier("maxvit_t", 224),  # its partition size 7 needs 224
    ZooModel("fcn_resnet50", "segmentation", ((1, 3, 96, 96),), dict(weights_backbone=None)),
    ZooModel("deeplabv3_mobilenet_v3_large", "segmentation", ((1, 3, 96, 96),), dict(weights_backbone=None)),
    ZooModel("lraspp_mobilenet_v3_large", "segmentation", ((1, 3, 96, 96),), dict(weights_backbone=None)),
    ZooModel("fasterrcnn_mobilenet_v3_large_320_fpn", "detection", ((1, 3, 320, 320),), DETECTION),
    ZooModel("retinanet_resnet50_fpn", "detection", ((1, 3, 320, 320),), DETECTION),
    ZooModel("ssdlite320_mobilenet_v3_large", "detection", ((1, 3, 320, 320),), dict(weights_backbone=None)),
    ZooModel("fcos_resnet50_fpn", "detection", ((1, 3, 320, 320),), DETECTION),
    ZooModel("maskrcnn_resnet50_fpn", "detection", ((1, 3, 320, 320),), DETECTION),
    ZooModel("keypointrcnn_resnet50_fpn", "detection", ((1, 3, 320, 320),), DETECTION),
    ZooModel("r3d_18", "video", ((1, 3, 4, 64, 64),)),
    ZooModel("mc3_18", "video", ((1, 3, 4, 64, 64),)),
    ZooModel("r2plus1d_18", "video", ((1, 3, 4, 64, 64),)),
    ZooModel("s3d", "video", ((1, 3, 16, 224, 224),)),  # its last pooling window is 2x7x7
    ZooModel("mvit_v2_s", "video", ((1, 3, 16, 224, 224),)),  # its positions are for 16x224x224
    ZooModel("swin3d_t", "video", ((1, 3, 4, 64, 64),)),
    ZooModel("raft_small", "flow", ((1, 3, 128, 128), (1, 3, 128, 128)), call_keywords=dict(num_flow_updates=4)),
    ZooModel("quantized_mobilenet_v2", "quantizable", ((1, 3, 96, 96),), dict(quantize=True)),
    ZooModel("quantized_resnet18", "quantizable", ((1, 3, 96, 96),), dict(quantize=True)),
)


# ---------------------------------------------------------------------------- child process
def _ops_declared() -> bool:
    """torchvision's ``extension._has_ops``: the shim declared the ops. A function, not a
    lambda: TorchScript compiles it where torchvision scripts its box ops while tracing."""
    return True


def import_torchvision(site: str) -> Any:
    """torchvision, importable beside the CPU torch build (see the module's docstring)."""
    sys.path[:0] = [str(FAMILIES_DIR), site]
    importlib.import_module("torchvision_cpu_shim")  # declares the torchvision:: ops, before torchvision
    extension = importlib.import_module("torchvision.extension")
    extension._has_ops = _ops_declared
    return importlib.import_module("torchvision")


def wrap(model: Any, spec: ZooModel) -> Any:
    """``model`` giving both tools the same flat tuple of tensors to convert."""
    import torch

    class Detection(torch.nn.Module):
        """The first image's detections: boxes, scores, labels, then masks/keypoints."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, ...]:
            found = self.model(list(images.unbind(0)))[0]
            return tuple(found[key] for key in sorted(found, key=_detection_key))

    class Values(torch.nn.Module):
        """A dict's values (segmentation) or a list's tensors (optical flow) as a tuple."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: torch.Tensor) -> Any:
            out = self.model(*inputs, **spec.call_keywords)
            if isinstance(out, dict):
                return tuple(out.values())
            return tuple(out) if isinstance(out, list) else out

    return (Detection() if spec.detection else Values()).eval()


def _detection_key(key: str) -> tuple[int, str]:
    order = ("boxes", "scores", "labels")
    return (order.index(key), key) if key in order else (len(order), key)


def build(spec: ZooModel, site: str) -> tuple[Any, tuple[Any, ...]]:
    """The wrapped model in eval mode and its example inputs (fixed seed)."""
    import torch

    torchvision = import_torchvision(site)
    sys.path.insert(0, str(FAMILIES_DIR))
    from families import randomise_statistics

    torch.manual_seed(0)
    builder = torchvision.models.get_model_builder(spec.name)
    model = randomise_statistics(builder(weights=None, **spec.keywords))
    maker: Callable[..., Any] = torch.rand if spec.detection else torch.randn
    example = tuple(maker(*shape) for shape in spec.inputs)
    return wrap(model, spec), example


def compare_detections(expected: list[Any], actual: list[Any]) -> str:
    """``compare`` after putting the IR's detections (rows of every output) in torch's order:
    each torch box takes the nearest IR box not yet taken."""
    import numpy as np
    from torch_families import compare

    if len(expected) != len(actual) or not expected or expected[0].shape != actual[0].shape:
        return compare(expected, actual)
    want, got = expected[0].astype(np.float64), actual[0].astype(np.float64)
    free = np.ones(len(got), dtype=bool)
    order = []
    for row in want:
        distance = np.where(free, np.abs(got - row).max(axis=1), np.inf)
        pick = int(distance.argmin())
        free[pick] = False
        order.append(pick)
    return compare(expected, [values[order] if len(values) == len(order) else values for values in actual])


def child(name: str, tool: str, site: str) -> dict[str, Any]:
    """Build ``name``, convert it with ``tool``, compare with torch eager."""
    import torch
    from torch_families import _first_lines, compare, convert

    spec = next(m for m in MODELS if m.name == name)
    module, example = build(spec, site)
    with torch.no_grad():
        out = module(*example)
    expected = [t.numpy() for t in (out if isinstance(out, (tuple, list)) else (out,))]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            compiled = convert(tool, module, example, Path(tmp))
            seconds = time.perf_counter() - start
            result = compiled([t.numpy() for t in example])
            actual = [result[compiled.output(i)] for i in range(len(compiled.outputs))]
            problem = (compare_detections if spec.detection else compare)(expected, actual)
        except Exception as exc:  # a failure is this tool's row, not the sweep's end
            seconds = time.perf_counter() - start
            problem = f"{type(exc).__name__}: {_first_lines(exc)}"
    return {"ok": not problem, "seconds": seconds, "problem": problem}


# ---------------------------------------------------------------------------- parent
def run_tool(name: str, tool: str, site: str, timeout: float) -> dict[str, Any]:
    done = worker.run_child([sys.executable, __file__, "--child", name, "--tool", tool, "--site", site], timeout)
    if done.record is not None:
        return done.record
    if done.timed_out:
        return {"ok": False, "seconds": timeout, "problem": "timed out"}
    return {"ok": False, "seconds": 0.0, "problem": f"process failed: {done.problem}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", help="model names (default: all)")
    parser.add_argument("--tools", nargs="*", choices=TOOLS, default=list(TOOLS))
    parser.add_argument("--site", default="/tmp/tvsite", help="the directory torchvision is installed in")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per model and tool")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--tool", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.tool, args.site)))
        return 0
    known = {m.name: m for m in MODELS}
    unknown = [name for name in args.models or [] if name not in known]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(known)}")
    names = args.models or list(known)
    passes = dict.fromkeys(args.tools, 0)
    print("| model | task | " + " | ".join(args.tools) + " | " + " | ".join(f"{t} s" for t in args.tools)
          + " | failure |")
    print("|---|---|" + "---|" * (2 * len(args.tools) + 1))
    for name in names:
        found = {tool: run_tool(name, tool, args.site, args.timeout) for tool in args.tools}
        for tool in args.tools:
            passes[tool] += found[tool]["ok"]
        marks = ["pass" if found[tool]["ok"] else "FAIL" for tool in args.tools]
        seconds = [f"{found[tool]['seconds']:.0f}" for tool in args.tools]
        problems = "; ".join(f"{tool}: {found[tool]['problem'].split(' / ')[0][:120]}" for tool in args.tools
                             if found[tool]["problem"])
        print(f"| {name} | {known[name].task} | {' | '.join(marks)} | {' | '.join(seconds)} | "
              f"{problems.replace('|', '/')} |", flush=True)
    print("\npasses: " + ", ".join(f"{tool} {passes[tool]}/{len(names)}" for tool in args.tools))
    return 0


if __name__ == "__main__":
    sys.exit(main())
