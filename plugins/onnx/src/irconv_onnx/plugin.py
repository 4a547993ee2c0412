"""Hook implementations of irconv-onnx: the ONNX loader and extractors for ai.onnx and com.microsoft."""

from __future__ import annotations

from pathlib import Path

from irconv import LoadContext
from irconv.graph import Graph
from irconv.plugins import Extractor, Loader, Transform, hookimpl


def _load(path: Path, ctx: LoadContext) -> Graph:
    """Function-body ops are expanded only when no installed plugin (this one or a third
    party's) registered an extractor for them."""
    from irconv_onnx.loader import FRAMEWORK, load_onnx

    def has_extractor(domain: str, op: str, version: int) -> bool:
        return ctx.has_extractor(FRAMEWORK, domain, op, version)

    return load_onnx(path, has_extractor)


def _sniff(path: Path) -> bool:
    from irconv_onnx.sniff import looks_like_onnx

    return looks_like_onnx(path)


@hookimpl
def load_model() -> list[Loader]:
    return [Loader("onnx", _load, suffixes=(".onnx",), sniff=_sniff, description="ONNX models (.onnx)")]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, "onnx", "irconv_onnx.extractors")


@hookimpl
def front_transform() -> list[Transform]:
    return []


@hookimpl
def verify_model() -> list[object]:
    """onnxruntime as the reference for ``irconv convert --verify`` (see irconv_onnx.verify)."""
    from irconv_onnx.verify import VERIFIER

    return [VERIFIER]
