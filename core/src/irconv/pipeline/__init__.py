"""The conversion pipeline and the contexts it hands to plugins."""

from irconv.graph.infer import infer_graph, infer_node, reinfer
from irconv.pipeline.context import EmitContext, ExtractContext, LoadContext, TransformContext
from irconv.pipeline.options import ConversionOptions, InputSpec
from irconv.pipeline.output import AtomicFiles
from irconv.pipeline.run import ConversionReport, convert, save

__all__ = [
    "AtomicFiles",
    "ConversionOptions",
    "ConversionReport",
    "EmitContext",
    "ExtractContext",
    "InputSpec",
    "LoadContext",
    "TransformContext",
    "convert",
    "infer_graph",
    "infer_node",
    "reinfer",
    "save",
]
