"""Constant-folding cost of the opset plugin's NumPy ``evaluate``.

Two groups of rows: the folds front ends run on weights and shape sub-graphs (layout
changes of big weight tensors, embedding lookups, scatters, TopK/Unique on long vectors),
and the layer ops folded in real models (PriorBox/PriorBoxClustered in every Caffe SSD
model; Convolution, MaxPool and MatMul when a front end leaves weight-only sub-graphs).
Each row is the best of ``--repeat`` runs (seconds) of one ``evaluate`` call.

    python bench/opset_fold.py [--repeat 3]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from harness import best_of
from irconv.types import ElementType
from irconv_opset import (
    Concat,
    Convert,
    Convolution,
    Gather,
    GatherND,
    MatMul,
    MaxPool,
    Multiply,
    PriorBox,
    PriorBoxClustered,
    ReduceMean,
    Reshape,
    ScatterElementsUpdate,
    ScatterNDUpdate,
    SoftMax,
    StridedSlice,
    TopK,
    Transpose,
    Unique,
)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def weight_rows() -> list[tuple[str, str, Callable[[], object]]]:
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((4096, 4096)).astype(np.float32)  # 64 MiB
    conv_w = rng.standard_normal((256, 256, 3, 3)).astype(np.float32)
    table = rng.standard_normal((50000, 512)).astype(np.float32)
    ids = rng.integers(0, 50000, 4096).astype(np.int64)
    big = rng.standard_normal((1000, 1000)).astype(np.float32)
    nd_idx = rng.integers(0, 1000, (100000, 2)).astype(np.int64)
    el_idx = rng.integers(0, 1000, (1000, 1000)).astype(np.int64)
    vector = rng.standard_normal(1_000_000).astype(np.float32)
    labels = rng.integers(0, 1000, 1_000_000).astype(np.float32)
    return [
        ("Transpose-1", "4096x4096 f32, [1,0]", lambda: Transpose().evaluate([weights, i64(1, 0)])),
        ("Transpose-1", "256x256x3x3 f32, OIHW->HWIO", lambda: Transpose().evaluate([conv_w, i64(2, 3, 1, 0)])),
        ("Reshape-1", "4096x4096 f32 -> [-1]", lambda: Reshape().evaluate([weights, i64(-1)])),
        ("Concat-1", "2 x 4096x4096 f32, axis 0", lambda: Concat(axis=0).evaluate([weights, weights])),
        (
            "Convert-1",
            "4096x4096 f32 -> f16",
            lambda: Convert(destination_type=ElementType.f16).evaluate([weights]),
        ),
        ("Multiply-1", "4096x4096 f32 * [4096]", lambda: Multiply().evaluate([weights, weights[0]])),
        ("ReduceMean-1", "4096x4096 f32, axis 1", lambda: ReduceMean().evaluate([weights, i64(1)])),
        ("SoftMax-8", "4096x4096 f32, axis -1", lambda: SoftMax(axis=-1).evaluate([weights])),
        (
            "StridedSlice-1",
            "4096x4096 f32, [::2, 100:-100]",
            lambda: StridedSlice(begin_mask=[1, 0], end_mask=[1, 0]).evaluate(
                [weights, i64(0, 100), i64(0, -100), i64(2, 1)]
            ),
        ),
        ("Gather-8", "50000x512 table, 4096 ids", lambda: Gather().evaluate([table, ids, np.array(0)])),
        ("GatherND-8", "1000x1000, 100k index pairs", lambda: GatherND().evaluate([big, nd_idx])),
        (
            "ScatterNDUpdate-15",
            "1000x1000, 100k pairs, sum",
            lambda: ScatterNDUpdate(reduction="sum").evaluate([big, nd_idx, np.ones(100000, np.float32)]),
        ),
        (
            "ScatterElementsUpdate-12",
            "1000x1000, axis 1, mean",
            lambda: ScatterElementsUpdate(reduction="mean").evaluate([big, el_idx, big, np.array(1)]),
        ),
        ("TopK-11", "1M f32, k=100", lambda: TopK(axis=0).evaluate([vector, np.array(100)])),
        ("Unique-10", "1M values, 1000 distinct", lambda: Unique().evaluate([labels])),
    ]


def layer_rows() -> list[tuple[str, str, Callable[[], object]]]:
    rng = np.random.default_rng(0)
    ssd = PriorBox(
        min_size=(30.0,), max_size=(60.0,), aspect_ratio=(2.0, 3.0), flip=True, step=8.0, offset=0.5,
        variance=(0.1, 0.1, 0.2, 0.2),
    )  # fmt: skip
    clustered = PriorBoxClustered(width=(10.0, 20.0, 40.0, 80.0), height=(12.0, 24.0, 48.0, 96.0), offset=0.5)
    conv = Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
    pool = MaxPool(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1), dilations=(1, 1))
    x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    a = rng.standard_normal((512, 512)).astype(np.float32)
    sizes = lambda n: np.array([n, n], np.int64)  # noqa: E731
    return [
        ("PriorBox-8", "38x38 map, 6 boxes/cell", lambda: ssd.evaluate([sizes(38), sizes(300)])),
        ("PriorBox-8", "128x128 map, 6 boxes/cell", lambda: ssd.evaluate([sizes(128), sizes(512)])),
        ("PriorBoxClustered-1", "128x128 map, 4 boxes/cell", lambda: clustered.evaluate([sizes(128), sizes(512)])),
        ("Convolution-1", "1x64x56x56 * 64x64x3x3", lambda: conv.evaluate([x, w])),
        ("MaxPool-14", "1x64x56x56, 3x3 s2 (values + indices)", lambda: pool.evaluate([x])),
        ("MatMul-1", "512x512 @ 512x512", lambda: MatMul().evaluate([a, a])),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| op | input | evaluate s |")
    print("|---|---|---|")
    for op, described, run in weight_rows() + layer_rows():
        print(f"| {op} | {described} | {best_of(args.repeat, run):.4f} |", flush=True)


if __name__ == "__main__":
    main()
