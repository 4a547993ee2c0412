"""The plugin contract: what a plugin programs against, and nothing of the machinery that
loads plugins.

- ``hookspecs``: the hooks a plugin implements (``hookimpl`` marks an implementation);
- ``records``: what the hooks return (``Loader``, ``Extractor``, ``Transform``, ``Emitter``,
  ``Verifier``, ``Renderer``, ``InstallHint``, ``RuntimeExtension``, ``Command``);
- ``option``: plugin option declarations (``Option``, ``OptionTable``), ``options`` the
  ``ConversionOptions`` a conversion runs with;
- ``optable``: the declared-op table (``OpTable``);
- ``context``: the four contexts plugins' functions receive (``LoadContext``,
  ``ExtractContext``, ``TransformContext``, ``EmitContext``), built from an op table and
  lookups, never from the registry.

The layer sits above the graph and the ops and below the plugin host (``irconv.plugins``)
and the pipeline; ``lint-imports`` (pyproject.toml) keeps it so. Names are imported on first
access, so that reading a record does not import pluggy (``hookimpl`` does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irconv._lazy import lazy_getattr

if TYPE_CHECKING:
    from irconv.contract.context import SOURCE_PATH, EmitContext, ExtractContext, LoadContext, TransformContext
    from irconv.contract.hookspecs import hookimpl
    from irconv.contract.optable import DeclaredOp, OpTable
    from irconv.contract.option import Option, OptionTable
    from irconv.contract.options import ConversionOptions, InputSpec
    from irconv.contract.records import (
        NEWEST,
        Command,
        Emitter,
        Extractor,
        InstallHint,
        Loader,
        Phase,
        Renderer,
        RuntimeExtension,
        Transform,
        Verifier,
        opsets,
    )

_EXPORTS: dict[str, str] = {
    "SOURCE_PATH": "irconv.contract.context",
    "EmitContext": "irconv.contract.context",
    "ExtractContext": "irconv.contract.context",
    "LoadContext": "irconv.contract.context",
    "TransformContext": "irconv.contract.context",
    "hookimpl": "irconv.contract.hookspecs",
    "DeclaredOp": "irconv.contract.optable",
    "OpTable": "irconv.contract.optable",
    "Option": "irconv.contract.option",
    "OptionTable": "irconv.contract.option",
    "ConversionOptions": "irconv.contract.options",
    "InputSpec": "irconv.contract.options",
    "NEWEST": "irconv.contract.records",
    "Command": "irconv.contract.records",
    "Emitter": "irconv.contract.records",
    "Extractor": "irconv.contract.records",
    "InstallHint": "irconv.contract.records",
    "Loader": "irconv.contract.records",
    "Phase": "irconv.contract.records",
    "Renderer": "irconv.contract.records",
    "RuntimeExtension": "irconv.contract.records",
    "Transform": "irconv.contract.records",
    "Verifier": "irconv.contract.records",
    "opsets": "irconv.contract.records",
}

__all__ = [
    "Command",
    "ConversionOptions",
    "DeclaredOp",
    "EmitContext",
    "Emitter",
    "ExtractContext",
    "Extractor",
    "InputSpec",
    "InstallHint",
    "LoadContext",
    "Loader",
    "NEWEST",
    "OpTable",
    "Option",
    "OptionTable",
    "Phase",
    "Renderer",
    "RuntimeExtension",
    "SOURCE_PATH",
    "Transform",
    "TransformContext",
    "Verifier",
    "hookimpl",
    "opsets",
]


__getattr__ = lazy_getattr(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return __all__
