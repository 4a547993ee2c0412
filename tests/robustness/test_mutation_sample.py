"""A fixed sample of the mutation suite (run.py does the long run), plus every case a long run
found bad: each must end as a converted IR that OpenVINO reads and compiles, or as one clear
error — never a traceback, internal error, hang, memory blow-up, crash or leftover file.

Cases whose outcome is a known finding in another area are strict xfails naming the fix, so
the test turns red the moment the fix lands (then drop the mark).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from robust_formats import FORMATS
from robust_harness import Limits, convert_case, preload

SAMPLE = {"onnx": 12, "ir": 4, "caffe": 6, "caffemodel": 4, "tf": 3, "savedmodel": 2, "keras": 2, "tflite": 3, "pt2": 3,
          "mxnet": 4}

#: (format, seed, case) -> the fix that makes it pass (each is also in FOUND or FOUND_SEEDED).
KNOWN: dict[tuple[str, int, int], str] = {}

#: Every case the long runs found bad (IRs the runtime refused, one out-of-memory), fixed
#: since; replayed so each kind stays fixed (reproducers: tests/robustness/findings/).
FOUND: dict[str, tuple[int, ...]] = {
    "onnx": (8, 22, 29, 34, 94, 106, 115, 118, 163, 226, 421, 451, 453, 483, 710, 824, 906, 910, 937, 981),
    "ir": (62, 315, 352, 378, 620, 692, 737, 788, 796, 859, 990),
    "caffe": (607, 618, 961),
    "caffemodel": (64, 133, 193),
    "tf": (40, 217, 219, 247, 296, 426, 470, 482, 495, 511, 519, 632, 642, 676, 704, 784, 833, 899, 903, 962, 985, 991),
    "savedmodel": (11, 137, 151, 191, 350, 500),
}
#: The same for runs with another ``--seed``: (seed, case number).
FOUND_SEEDED: dict[str, tuple[tuple[int, int], ...]] = {
    # If branches of two types; If without then_branch; Concat of mixed ranks; Loop without a body;
    # an LSTM whose X has a zero-size dimension; a graph without outputs; a MaxPool over a batch of 0;
    # a Pad reading 3-D pads; a Conv over a matrix
    "onnx": ((11, 5050), (11, 5053), (11, 5094), (12, 6057), (7, 58), (7, 50), (44, 40016), (44, 40023), (4242, 756),
             (4242, 95), (4242, 208), (4343, 54), (4343, 490), (4343, 543)),  # a Softmax axis of 2^40; an LSTM hidden_size of 2^40; an If of two inputs
    # port maps whose ids are not integers; a Convolution of 2-D data; a Gather without its axis,
    # a special_zero past the input's rank, an LSTMSequence of two batch sizes
    "ir": ((11, 5017), (11, 5137), (44, 40024), (4242, 35), (4242, 395), (4242, 771), (4343, 75)),  # + a Gather axis [1]
    "savedmodel": ((4242, 301), (4242, 345), (4242, 399)),  # Range of a matrix; a non-scalar ConcatV2 axis
    "tf": ((13, 7075), (4242, 156)),  # a ConcatV2 without inputs; a ConcatV2 axis of two values
    "caffe": ((4242, 311),),  # a convolution stride of 0
    "keras": ((42, 20040), (4242, 320), (4242, 515)),  # a Conv2D stride of 0, a dilation of 0, a pool stride of 0
    # a zero input dimension under a shrink-axis STRIDED_SLICE; a TOPK_V2 reading an output it does not declare;
    # an int8 tensor quantized with a scale of -0.0
    "tflite": ((41, 193), (4343, 74), (4444, 214)),
    # aten.linear reading a float: a MatMul of a scalar; a Reshape of a dynamic batch to [-1, 0, 1]
    "pt2": ((41, 35), (41, 85), (4242, 753)),
    # empty heads: an IR without outputs; box_nms of 0-coordinate boxes; Convolution of a matrix
    "mxnet": ((41, 22), (4242, 742), (4242, 785), (4242, 923)),
}


def cases() -> list[object]:
    out = []
    for name, count in SAMPLE.items():
        indices = sorted({*range(count), *FOUND.get(name, ())})
        for i in indices:
            out.append(pytest.param(name, 0, i, marks=_marks(name, 0, i), id=f"{name}-{i}"))
        for seed, i in FOUND_SEEDED.get(name, ()):
            out.append(pytest.param(name, seed, i, marks=_marks(name, seed, i), id=f"{name}-s{seed}-{i}"))
    return out


def _marks(name: str, seed: int, index: int) -> list[pytest.MarkDecorator]:
    reason = KNOWN.get((name, seed, index))
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.fixture(scope="module")
def seed_models() -> dict[str, list[Path]]:
    preload([])
    return {}  # filled per format on first use (TensorFlow is imported only for its formats)


def _seeds(cache: dict[str, list[Path]], name: str, root: Path) -> list[Path]:
    if name not in cache:
        if name in ("tf", "savedmodel", "keras", "tflite", "pt2"):
            preload([name])  # the seeds are made with TensorFlow (TFLite's converter) or torch
        cache[name] = FORMATS[name].seeds(root / "seeds" / name)
    return cache[name]


@pytest.mark.parametrize(("fmt", "seed_number", "index"), cases())
def test_mutant_converts_or_fails_clearly(fmt, seed_number, index, seed_models, tmp_path_factory):
    root = tmp_path_factory.getbasetemp() / "mutation-sample"
    seeds = _seeds(seed_models, fmt, root)
    rng = random.Random(f"{fmt}:{seed_number}:{index}")  # as `run.py --format F --seed S --start index`
    seed = rng.choice(seeds)
    case_dir = root / "case"
    shutil.rmtree(case_dir, ignore_errors=True)
    (case_dir / "in").mkdir(parents=True)
    model, extra, change = FORMATS[fmt].make_case(seed, case_dir / "in", rng)
    outcome = convert_case(model, case_dir / "out" / "model.xml", extra, Limits(seconds=60))
    assert outcome.good, f"{fmt} case {index} ({seed.name}: {change}) -> {outcome.outcome}: {outcome.message}"
