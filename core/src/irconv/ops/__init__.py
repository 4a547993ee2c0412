"""Op declarations: the base, traits, the structural ops and the pre-extraction source op."""

from irconv.ops.op import Op, attr, format_attr
from irconv.ops.source import MappingAttributes, SourceAttributes, SourceOp
from irconv.ops.structural import Const, Parameter, Result
from irconv.ops.traits import Trait

__all__ = ["Const", "MappingAttributes", "Op", "Parameter", "Result", "SourceAttributes", "SourceOp", "Trait", "attr", "format_attr"]
