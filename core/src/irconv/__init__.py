"""irconv: convert trained models into OpenVINO IR, through plugins.

This module is the whole public API a plugin or a script needs:

- converting: ``convert_model``/``save_model``, ``ConversionOptions``;
- the graph: ``Graph``, ``Node``, ports, patterns (``op``, ``any_``, ``const``), ``MetaKey``,
  ``infer_graph`` (partial inference of a whole graph, e.g. an op's loop body);
- ops: ``Op``, ``attr``, ``Trait``, the structural ``Parameter``/``Const``/``Result``;
- rewriting: ``Rewriter``, ``PatternRewrite``, ``rewrite_greedily``, sub-graph replacement
  (``SubgraphReplacement``, ``by_scope``, ``between``, ``replace_subgraph``);
- the plugin contract: ``hookimpl`` and the records (``Loader``, ``Extractor``, ``Transform``,
  ``Emitter``, ``Option``, ``Verifier``, ``Renderer``, ``InstallHint``), and the contexts
  hooks' functions receive (``LoadContext``, ``ExtractContext``, ``TransformContext``,
  ``EmitContext``).

``irconv.contract`` holds the contract (hookspecs, records, options, the op table, the
contexts); ``irconv.plugins`` (the plugin host) and ``irconv.pipeline`` are the core's internals.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irconv.api import convert_model, save_model, to_openvino
    from irconv.contract import ConversionOptions, EmitContext, ExtractContext, LoadContext, TransformContext
    from irconv.contract.context import SOURCE_PATH
    from irconv.contract.hookspecs import hookimpl
    from irconv.contract.option import Option
    from irconv.contract.records import (
        Emitter,
        Extractor,
        InstallHint,
        Loader,
        Phase,
        Renderer,
        Transform,
        Verifier,
        opsets,
    )
    from irconv.errors import ConversionError, IrconvError, PluginError, UnsupportedOpsError, UsageError, UserError
    from irconv.graph import Graph, InPort, Match, MetaKey, Node, OutPort, Pat, any_, const, find_matches, match_at, op
    from irconv.graph.infer import infer_graph
    from irconv.ops import Const, MappingAttributes, Op, Parameter, Result, SourceAttributes, SourceOp, Trait, attr
    from irconv.pipeline.folder import MODEL_FOLDER, ModelFolder
    from irconv.pipeline.output import AtomicFiles
    from irconv.plugins.manager import PluginHost
    from irconv.rewrite import (
        PatternRewrite,
        Rewriter,
        Subgraph,
        SubgraphReplacement,
        between,
        by_scope,
        replace_subgraph,
        rewrite_greedily,
    )
    from irconv.types import ElementType, MaybeShape, Shape

#: Where each public name lives; imported on first access (PEP 562), so that
#: ``irconv --version`` and plugin discovery do not pay for NumPy.
_EXPORTS: dict[str, str] = {
    "convert_model": "irconv.api",
    "save_model": "irconv.api",
    "to_openvino": "irconv.api",
    "ConversionError": "irconv.errors",
    "IrconvError": "irconv.errors",
    "PluginError": "irconv.errors",
    "UnsupportedOpsError": "irconv.errors",
    "UsageError": "irconv.errors",
    "UserError": "irconv.errors",
    "Graph": "irconv.graph",
    "InPort": "irconv.graph",
    "Match": "irconv.graph",
    "MetaKey": "irconv.graph",
    "Node": "irconv.graph",
    "OutPort": "irconv.graph",
    "Pat": "irconv.graph",
    "any_": "irconv.graph",
    "const": "irconv.graph",
    "find_matches": "irconv.graph",
    "match_at": "irconv.graph",
    "op": "irconv.graph",
    "Const": "irconv.ops",
    "MappingAttributes": "irconv.ops",
    "Op": "irconv.ops",
    "Parameter": "irconv.ops",
    "Result": "irconv.ops",
    "SourceAttributes": "irconv.ops",
    "SourceOp": "irconv.ops",
    "Trait": "irconv.ops",
    "attr": "irconv.ops",
    "ConversionOptions": "irconv.contract",
    "EmitContext": "irconv.contract",
    "ExtractContext": "irconv.contract",
    "LoadContext": "irconv.contract",
    "TransformContext": "irconv.contract",
    "SOURCE_PATH": "irconv.contract.context",
    "MODEL_FOLDER": "irconv.pipeline.folder",
    "ModelFolder": "irconv.pipeline.folder",
    "AtomicFiles": "irconv.pipeline.output",
    "infer_graph": "irconv.graph.infer",
    "hookimpl": "irconv.contract.hookspecs",
    "Emitter": "irconv.contract.records",
    "Extractor": "irconv.contract.records",
    "Loader": "irconv.contract.records",
    "Phase": "irconv.contract.records",
    "Transform": "irconv.contract.records",
    "opsets": "irconv.contract.records",
    "InstallHint": "irconv.contract.records",
    "Renderer": "irconv.contract.records",
    "Verifier": "irconv.contract.records",
    "Option": "irconv.contract.option",
    "PluginHost": "irconv.plugins.manager",
    "PatternRewrite": "irconv.rewrite",
    "Rewriter": "irconv.rewrite",
    "rewrite_greedily": "irconv.rewrite",
    "Subgraph": "irconv.rewrite",
    "SubgraphReplacement": "irconv.rewrite",
    "between": "irconv.rewrite",
    "by_scope": "irconv.rewrite",
    "replace_subgraph": "irconv.rewrite",
    "ElementType": "irconv.types",
    "MaybeShape": "irconv.types",
    "Shape": "irconv.types",
}

__all__ = [
    "MODEL_FOLDER",
    "SOURCE_PATH",
    "AtomicFiles",
    "ModelFolder",
    "Const",
    "ConversionError",
    "ConversionOptions",
    "ElementType",
    "EmitContext",
    "Emitter",
    "ExtractContext",
    "Extractor",
    "Graph",
    "InPort",
    "InstallHint",
    "IrconvError",
    "LoadContext",
    "Loader",
    "MappingAttributes",
    "Match",
    "MaybeShape",
    "MetaKey",
    "Node",
    "Op",
    "Option",
    "OutPort",
    "Parameter",
    "Pat",
    "PatternRewrite",
    "Phase",
    "PluginError",
    "PluginHost",
    "Renderer",
    "Result",
    "Rewriter",
    "Shape",
    "SourceAttributes",
    "SourceOp",
    "Subgraph",
    "SubgraphReplacement",
    "Trait",
    "Transform",
    "TransformContext",
    "UnsupportedOpsError",
    "UsageError",
    "UserError",
    "Verifier",
    "__version__",
    "any_",
    "attr",
    "between",
    "by_scope",
    "const",
    "convert_model",
    "find_matches",
    "hookimpl",
    "infer_graph",
    "match_at",
    "op",
    "opsets",
    "replace_subgraph",
    "rewrite_greedily",
    "save_model",
    "to_openvino",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value: Any = version("irconv-core")
        except PackageNotFoundError:  # running from a source tree
            value = "0.0.0"
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'irconv' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
