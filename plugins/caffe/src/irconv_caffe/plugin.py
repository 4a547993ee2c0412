"""Hook implementations of irconv-caffe."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irconv import Option
from irconv.plugins import Extractor, Loader, hookimpl

if TYPE_CHECKING:
    from irconv import LoadContext
    from irconv.graph import Graph


def _load(path: Path, ctx: LoadContext) -> Graph:
    # protobuf is imported only when a Caffe model is actually read.
    from irconv_caffe.loader import load_caffe

    return load_caffe(path, ctx.options)


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_caffe.options import OPTIONS

    return OPTIONS


@hookimpl
def load_model() -> list[Loader]:
    return [
        Loader(
            framework="caffe",
            load=_load,
            suffixes=(".prototxt", ".caffemodel"),
            description="Caffe deploy.prototxt + .caffemodel (BVLC, V1 and SSD/fork layers)",
        )
    ]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, "caffe", "irconv_caffe.extractors")


@hookimpl
def verify_model() -> Sequence[object]:
    """OpenCV's Caffe reader as the reference for ``irconv convert --verify`` (irconv_caffe.verify)."""
    from irconv_caffe.verify import VERIFIER

    return [VERIFIER]
