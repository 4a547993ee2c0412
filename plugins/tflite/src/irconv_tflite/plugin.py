"""Hook implementations of irconv-tflite: its option, the .tflite loader, its extractors,
the int8 weights transform and the LiteRT interpreter as the ``--verify`` reference."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from irconv import Option
from irconv.plugins import Extractor, Loader, Transform, hookimpl

if TYPE_CHECKING:
    from irconv import LoadContext
    from irconv.graph import Graph


def _load(path: Path, ctx: LoadContext) -> Graph:
    # the flatbuffers runtime and the schema module are imported only when a model is read
    from irconv_tflite.loader import load_tflite

    return load_tflite(path)


def _sniff(path: Path) -> bool:
    from irconv_tflite.sniff import looks_like_tflite

    return looks_like_tflite(path)


@hookimpl
def declare_options() -> Sequence[Option[object]]:
    from irconv_tflite.options import OPTIONS

    return OPTIONS


@hookimpl
def load_model() -> list[Loader]:
    return [Loader("tflite", _load, suffixes=(".tflite",), sniff=_sniff, aliases=("litert", "tensorflow-lite"),
                   description="TensorFlow Lite flatbuffers (.tflite), float and quantized")]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, "tflite", "irconv_tflite.extractors")


@hookimpl
def back_transform() -> list[Transform]:
    from irconv_tflite.int8_weights import Int8Weights

    return [Int8Weights()]


@hookimpl
def verify_model() -> list[object]:
    """The LiteRT interpreter as the reference for ``irconv convert --verify``."""
    from irconv_tflite.verify import VERIFIER

    return [VERIFIER]
