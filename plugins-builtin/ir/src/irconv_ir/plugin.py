"""Hook implementations of irconv-ir: the IR v11 emitter and the IR v10/v11 reader."""

from __future__ import annotations

from irconv.plugins import Emitter, Extractor, Loader, OpTable, hookimpl


@hookimpl
def emit() -> list[Emitter]:
    from irconv_ir.writer import write_ir

    return [Emitter("ir11", write_ir, suffix=".xml", description="OpenVINO IR v11 (.xml + .bin)")]


@hookimpl
def load_model() -> list[Loader]:
    from irconv_ir.reader import load_ir, sniff_ir

    return [Loader("ir", load_ir, suffixes=(".xml",), sniff=sniff_ir, description="OpenVINO IR v10/v11 (.xml + .bin)")]


@hookimpl
def extract_op(ops: OpTable) -> list[Extractor]:
    """Every op any plugin declares reads back from the IR, custom opsets included."""
    from irconv_ir.extractors import declared_extractors

    return declared_extractors(ops)
