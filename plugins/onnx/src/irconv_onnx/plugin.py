"""Hook implementations of irconv-onnx: the ONNX loader and extractors for ai.onnx and com.microsoft."""

from __future__ import annotations

from pathlib import Path

from irconv.graph import Graph
from irconv import ConversionOptions
from irconv.plugins import Extractor, Loader, Transform, hookimpl


def _load(path: Path, options: ConversionOptions) -> Graph:
    from irconv_onnx.loader import load_onnx

    table = _extractor_table()

    def has_extractor(domain: str, op: str, version: int) -> bool:
        return any(version in r for r in table.get((domain, op), ()))

    return load_onnx(path, options, has_extractor)


def _extractor_table() -> dict[tuple[str, str], list[range]]:
    table: dict[tuple[str, str], list[range]] = {}
    for e in extract_op():
        table.setdefault((e.domain, e.op), []).append(e.opsets)
    return table


def _sniff(path: Path) -> bool:
    from irconv_onnx.sniff import looks_like_onnx

    return looks_like_onnx(path)


@hookimpl
def load_model() -> list[Loader]:
    return [Loader("onnx", _load, suffixes=(".onnx",), sniff=_sniff, description="ONNX models (.onnx)")]


@hookimpl
def extract_op() -> list[Extractor]:
    from irconv_onnx.extractors import all_extractors

    return all_extractors()


@hookimpl
def front_transform() -> list[Transform]:
    return []
