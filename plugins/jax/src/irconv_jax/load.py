"""The loader's two entries: a serialized ``jax.export`` artifact, and a JAX function or
bound Flax module held in memory with example inputs.

Both become a ``jax.export.Exported`` whose StableHLO text ``irconv_jax.program`` reads. The
artifact is a flatbuffer around MLIR bytecode in StableHLO's versioned form; only jaxlib
reads that, so the file needs jax installed (the plugin itself imports it only here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import LoadContext
from irconv.errors import ModelFileError, UserError, shortened
from irconv.graph import Graph

#: The keywords ``irconv.convert_model`` passes on for an in-memory model.
OBJECT_KEYWORDS = ("example_input",)


def load_file(path: Path, ctx: LoadContext) -> Graph:
    """A file written from ``jax.export.Exported.serialize()``."""
    _require_jax(path)
    from jax import export

    try:
        exported = export.deserialize(bytearray(path.read_bytes()))
    except Exception as error:  # flatbuffers raise struct/Index errors on damaged files
        reason = f"{type(error).__name__}: {shortened(str(error))}"
        raise ModelFileError(f"{path}: not a readable jax.export artifact ({reason}); "
                             "write one with jax.export.export(...)(...).serialize()") from None
    return _read(exported, path.stem, ctx)


def load_object(model: Any, ctx: LoadContext, example_input: Any = None) -> Graph:
    """A ``jax.export.Exported``, or a JAX function (jitted or not) or bound Flax module
    exported on ``example_input`` (one array, a tuple of positional arguments, or
    ``jax.ShapeDtypeStruct``\\ s whose symbolic dimensions stay dynamic)."""
    import jax
    from jax import export

    if isinstance(model, export.Exported):
        if example_input is not None:
            raise UserError("a jax.export.Exported is converted as exported: example_input= applies to a function")
        return _read(model, "exported", ctx)
    if example_input is None:
        raise UserError("converting a JAX function or Flax module needs example_input= (an array, or a tuple of "
                        "the positional arguments; jax.ShapeDtypeStruct with jax.export.symbolic_shape for "
                        "dynamic dimensions)")
    arguments = example_input if isinstance(example_input, tuple) else (example_input,)
    # a bound Flax module holds variables, which jax.jit cannot hash: jit a call of it
    function = model if hasattr(model, "lower") else jax.jit(lambda *args: model(*args))
    exported = export.export(function)(*arguments)
    return _read(exported, getattr(model, "__name__", type(model).__name__), ctx)


def _read(exported: Any, name: str, ctx: LoadContext) -> Graph:
    from irconv_jax.program import FRAMEWORK, read_module

    return read_module(exported.mlir_module(), name, lambda op: ctx.has_extractor(FRAMEWORK, "", op, 1))


def accepts(model: Any) -> bool:
    """A bound Flax module, a ``jax.export.Exported``, a callable of jax's own (a jitted
    function, a ``jax.numpy`` function), or a plain Python function once jax is imported
    (asking never imports jax: such objects exist only after it is)."""
    import sys

    jax = sys.modules.get("jax")
    if jax is None:
        return False
    if isinstance(model, jax.export.Exported):
        return True
    flax = sys.modules.get("flax.linen")
    if flax is not None and isinstance(model, flax.Module):
        return model.scope is not None  # bound: its variables are known
    import types

    return isinstance(model, types.FunctionType) or callable(model) and type(model).__module__.startswith("jax")


def _require_jax(path: Path) -> None:
    """jax, and flatbuffers, which jax.export's deserializer needs but jax does not install."""
    import importlib.util

    missing = [name for name in ("jax", "flatbuffers") if importlib.util.find_spec(name) is None]
    if missing:
        raise UserError(f"{path}: reading a jax.export artifact needs {' and '.join(missing)}: "
                        "pip install irconv-jax[jax]")
