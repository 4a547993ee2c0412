"""irconv: convert trained models into OpenVINO IR, through plugins.

This module is the whole public API a plugin or a script needs:

- converting: ``convert_model``/``save_model``, ``ConversionOptions``;
- the graph: ``Graph``, ``Node``, ports, patterns (``op``, ``any_``, ``const``), ``MetaKey``,
  ``infer_graph`` (partial inference of a whole graph, e.g. an op's loop body);
- ops: ``Op``, ``attr``, ``Trait``, the structural ``Parameter``/``Const``/``Result``;
- rewriting: ``Rewriter``, ``PatternRewrite``, ``rewrite_greedily``;
- the plugin contract: ``hookimpl`` and the records (``Loader``, ``Extractor``, ``Transform``,
  ``Emitter``, ``Option``), and the contexts hooks' functions receive (``LoadContext``,
  ``ExtractContext``, ``TransformContext``, ``EmitContext``).

Modules under ``irconv.pipeline`` and ``irconv.plugins`` are the core's internals.
"""

from importlib.metadata import PackageNotFoundError, version

from irconv.api import convert_model, save_model
from irconv.errors import ConversionError, IrconvError, PluginError, UnsupportedOpsError, UserError
from irconv.graph import Graph, InPort, Match, MetaKey, Node, OutPort, Pat, any_, const, find_matches, match_at, op
from irconv.ops import Const, MappingAttributes, Op, Parameter, Result, SourceAttributes, SourceOp, Trait, attr
from irconv.pipeline import ConversionOptions, EmitContext, ExtractContext, LoadContext, TransformContext
from irconv.pipeline.infer import infer_graph
from irconv.plugins import Emitter, Extractor, Loader, Option, Phase, PluginHost, Transform, hookimpl, opsets
from irconv.rewrite import PatternRewrite, Rewriter, rewrite_greedily
from irconv.types import ElementType, MaybeShape, Shape

try:
    __version__ = version("irconv-core")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"

__all__ = [
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
    "Result",
    "Rewriter",
    "Shape",
    "SourceAttributes",
    "SourceOp",
    "Trait",
    "Transform",
    "TransformContext",
    "UnsupportedOpsError",
    "UserError",
    "__version__",
    "any_",
    "attr",
    "const",
    "convert_model",
    "find_matches",
    "hookimpl",
    "infer_graph",
    "match_at",
    "op",
    "opsets",
    "rewrite_greedily",
    "save_model",
]
