"""The conversion pipeline. The contexts and ConversionOptions live in irconv.contract; they
are re-exported here for plugins written for irconv 0.2."""

from irconv.contract.context import EmitContext, ExtractContext, LoadContext, TransformContext
from irconv.contract.options import ConversionOptions, InputSpec
from irconv.graph.infer import infer_graph, infer_node, reinfer
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
