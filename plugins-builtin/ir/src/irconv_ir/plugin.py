"""Hook implementations of irconv-ir: the IR v11 emitter and the IR v10/v11 reader."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from irconv.plugins import Emitter, Extractor, Loader, OpTable, hookimpl

if TYPE_CHECKING:
    from irconv import LoadContext
    from irconv.graph import Graph

FRAMEWORK = "ir"


def _load(path: Path, ctx: LoadContext) -> Graph:
    from irconv_ir.reader import load_ir

    return load_ir(path, ctx)


def _sniff(path: Path) -> bool:
    """``irconv_ir.reader.sniff_ir``, the reader imported only for an ``.xml`` file."""
    if path.is_dir() or path.suffix.lower() != ".xml":
        return False
    from irconv_ir.reader import sniff_ir

    return sniff_ir(path)


@hookimpl
def emit() -> list[Emitter]:
    from irconv_ir.writer import write_ir

    return [Emitter("ir11", write_ir, suffix=".xml", description="OpenVINO IR v11 (.xml + .bin)")]


@hookimpl
def load_model() -> list[Loader]:
    return [Loader(FRAMEWORK, _load, suffixes=(".xml",), sniff=_sniff, aliases=("openvino",), description="OpenVINO IR v10/v11 (.xml + .bin)")]


@hookimpl
def extract_op(ops: OpTable, framework: str | None) -> list[Extractor]:
    """Every op any plugin declares reads back from the IR, custom opsets included."""
    if framework not in (None, FRAMEWORK):
        return []  # another framework's conversion: the reader's modules stay unimported
    from irconv_ir.extractors import declared_extractors

    return declared_extractors(ops)
