"""Fixtures for the Caffe end-to-end tests: the public prototxts and random weights for them."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: Extra weight gains per model (layer-name substring -> factor): SSD confidence heads
#: need to be sure enough of something for DetectionOutput to keep boxes.
GAINS: dict[str, dict[str, float]] = {"mobilenet_ssd": {"mbox_conf": 8.0}}


def models_dir() -> Path | None:
    """``<repo>/../shared/models/caffe``, or ``$IRCONV_CAFFE_MODELS``."""
    override = os.environ.get("IRCONV_CAFFE_MODELS")
    candidate = Path(override) if override else REPO.parent / "shared" / "models" / "caffe"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def caffe_models() -> Path:
    found = models_dir()
    if found is None:
        pytest.skip(
            "the public Caffe prototxts are not here: put them in ../shared/models/caffe "
            "or point IRCONV_CAFFE_MODELS at them"
        )
    return found


@pytest.fixture(scope="session")
def random_caffemodel(
    caffe_models: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], tuple[Path, Path]]:
    """``(prototxt, caffemodel)`` for a model name; the seeded weights are made once per session."""
    from irconv_caffe.testing import write_random_caffemodel

    made: dict[str, tuple[Path, Path]] = {}
    root = tmp_path_factory.mktemp("caffemodels")

    def make(name: str) -> tuple[Path, Path]:
        if name not in made:
            proto = caffe_models / name / "deploy.prototxt"
            weights = root / f"{name}.caffemodel"
            write_random_caffemodel(proto, weights, seed=sum(map(ord, name)), gain=GAINS.get(name))
            made[name] = (proto, weights)
        return made[name]

    return make
