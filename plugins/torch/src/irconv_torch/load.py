"""The loader's two entries: a ``.pt2`` file, and a module or program held in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import LoadContext
from irconv.errors import UserError
from irconv.graph import Graph

#: The keywords ``irconv.convert_model`` passes on for an in-memory model.
OBJECT_KEYWORDS = ("example_input", "dynamic_shapes")


def load_file(path: Path, ctx: LoadContext) -> Graph:
    """A ``.pt2`` archive, read without unpickling (see ``irconv_torch.archive``)."""
    _require_torch()
    from irconv_torch.archive import load_program_file
    from irconv_torch.program import read_program

    return read_program(_decomposed(load_program_file(path), ctx), path.stem)


def load_object(model: Any, ctx: LoadContext, example_input: Any = None, dynamic_shapes: Any = None) -> Graph:
    """A ``torch.nn.Module`` (exported on ``example_input``, with ``dynamic_shapes``, or
    with every dimension torch can keep dynamic unless ``static_shape`` is set) or an
    ``ExportedProgram``."""
    import torch

    from irconv_torch.export import export_module
    from irconv_torch.program import read_program

    if isinstance(model, torch.export.ExportedProgram):
        if example_input is not None or dynamic_shapes is not None:
            raise UserError("an ExportedProgram is converted as exported: example_input= and dynamic_shapes= "
                            "apply to a torch.nn.Module")
        program, name = model, "exported_program"
    else:
        program = export_module(model, example_input, dynamic_shapes, ctx.note, static_shapes=ctx.options.static_shape)
        name = type(model).__name__
    return read_program(_decomposed(program, ctx), name)


def _decomposed(program: Any, ctx: LoadContext) -> Any:
    """``program`` with the ops no installed extractor converts decomposed (a third
    party's extractor for an ATen op keeps that op whole too)."""
    from irconv_torch.export import decompose_unsupported
    from irconv_torch.program import FRAMEWORK, torch_version_code

    version = torch_version_code()
    return decompose_unsupported(program, lambda op: ctx.has_extractor(FRAMEWORK, "", op, version))


def accepts(model: Any) -> bool:
    """A ``torch.nn.Module`` or ``ExportedProgram``: torch is imported already when such an
    object exists, so asking costs no import."""
    import sys

    torch = sys.modules.get("torch")
    if torch is None:
        return False
    return isinstance(model, (torch.nn.Module, torch.export.ExportedProgram))


def _require_torch() -> None:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise UserError("reading a PyTorch .pt2 file needs torch: pip install irconv-torch[torch]")
