"""Hook implementations of irconv-ir: the IR v11 emitter."""

from __future__ import annotations

from irconv.plugins import Emitter, hookimpl


@hookimpl
def emit() -> list[Emitter]:
    from irconv_ir.writer import write_ir

    return [Emitter("ir11", write_ir, suffix=".xml", description="OpenVINO IR v11 (.xml + .bin)")]
