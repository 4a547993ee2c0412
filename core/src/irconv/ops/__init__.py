"""Op declarations: the base, the structural ops and the pre-extraction source op."""

from irconv.ops.op import Op, attr, format_attr
from irconv.ops.source import SourceOp
from irconv.ops.structural import Const, Parameter, Result

__all__ = ["Const", "Op", "Parameter", "Result", "SourceOp", "attr", "format_attr"]
