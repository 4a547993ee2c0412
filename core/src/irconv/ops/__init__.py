"""Op declarations: the base, traits, the structural ops and the pre-extraction source op."""

from irconv.ops.deferred import DeferredProduct
from irconv.ops.op import Op, attr, format_attr
from irconv.ops.source import MappingAttributes, SourceAttributes, SourceOp
from irconv.ops.structural import Const, DeferredConst, Parameter, Result
from irconv.ops.traits import Trait

__all__ = [
    "Const",
    "DeferredConst",
    "DeferredProduct",
    "MappingAttributes",
    "Op",
    "Parameter",
    "Result",
    "SourceAttributes",
    "SourceOp",
    "Trait",
    "attr",
    "format_attr",
]
