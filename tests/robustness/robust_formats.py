"""Every input format the mutation suite covers: seed models and how a case is made."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import robust_caffe
import robust_ir
import robust_mxnet
import robust_onnx
import robust_pt2
import robust_tf
import robust_tflite

MakeCase = Callable[[Path, Path, random.Random], tuple[Path, list[str], str]]


@dataclass(frozen=True)
class Format:
    """``seeds(folder)`` builds seed models once; ``make_case(seed, in_dir, rng)`` writes one
    mutant into ``in_dir`` and returns (model path, extra CLI arguments, what changed)."""

    name: str
    seeds: Callable[[Path], list[Path]]
    make_case: MakeCase


def single_file(mutate: Callable[[Path, Path, random.Random], str]) -> MakeCase:
    def make_case(seed: Path, in_dir: Path, rng: random.Random) -> tuple[Path, list[str], str]:
        out = in_dir / f"model{seed.suffix}"
        return out, [], mutate(seed, out, rng)

    return make_case


def with_sidecars(mutate: Callable[[Path, Path, random.Random], str]) -> MakeCase:
    """Seeds whose weights sit beside them (IR .xml + .bin): the pair is copied, then mutated."""

    def make_case(seed: Path, in_dir: Path, rng: random.Random) -> tuple[Path, list[str], str]:
        out = in_dir / f"model{seed.suffix}"
        for side in seed.parent.glob(seed.stem + ".*"):
            shutil.copyfile(side, in_dir / f"model{side.suffix}")
        return out, [], mutate(seed, out, rng)

    return make_case


FORMATS: dict[str, Format] = {
    "onnx": Format("onnx", robust_onnx.seeds, single_file(robust_onnx.mutate)),
    "ir": Format("ir", robust_ir.seeds, with_sidecars(robust_ir.mutate)),
    "caffe": Format("caffe", robust_caffe.caffemodel_seeds, robust_caffe.make_prototxt_case),
    "caffemodel": Format("caffemodel", robust_caffe.caffemodel_seeds, robust_caffe.make_caffemodel_case),
    "tf": Format("tf", robust_tf.graphdef_seeds, single_file(robust_tf.mutate_graphdef)),
    "savedmodel": Format("savedmodel", robust_tf.savedmodel_seeds, robust_tf.make_savedmodel_case),
    "keras": Format("keras", robust_tf.keras_seeds, single_file(robust_tf.mutate_keras)),
    "tflite": Format("tflite", robust_tflite.seeds, single_file(robust_tflite.mutate)),
    "pt2": Format("pt2", robust_pt2.seeds, single_file(robust_pt2.mutate)),
    "mxnet": Format("mxnet", robust_mxnet.seeds, robust_mxnet.make_case),
}
