"""Extractors of the ``ir`` framework, built from the declared-op table.

Every op version any plugin declares (``declare_ops``) can be read back: an OpenVINO opset
op is found by its type and the opsets it is current in (``version="opset8"``), a custom op
by its type in its own opset namespace (``version="my_opset"``, the reader's SourceOp
domain). Attributes are parsed generically from the op's typed fields.
"""

from __future__ import annotations

from typing import Any

from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import ExtractFn, extractor
from irconv.graph import Node
from irconv.ops import Const, Op, Parameter, Result, SourceOp
from irconv.plugins import DeclaredOp, Extractor, OpTable

from irconv_ir.attributes import build_op, field_types
from irconv_ir.ir_model import IrLayer

FRAMEWORK = "ir"
#: Created by the reader itself, never as SourceOps.
STRUCTURAL = (Parameter, Const, Result)
#: The reader's opset number for a layer of a custom opset: the IR names no version in it.
CUSTOM_OPSET_VERSION = 1


def declared_extractors(ops: OpTable) -> list[Extractor]:
    """One extractor per declared op version; a custom opset's newest version of each type."""
    from irconv_ir.control_flow_reader import CONTROL_FLOW_EXTRACTORS

    extractors = []
    for declared in ops.declared():
        op_class = declared.op
        if op_class in STRUCTURAL or issubclass(op_class, STRUCTURAL):
            continue
        if op_class.custom_opset:
            if ops.find(op_class.type, op_class.custom_opset) is not op_class:
                continue  # an older version of a custom op: the IR cannot tell them apart
            extractors.append(_custom_extractor(declared))
            continue
        extract = CONTROL_FLOW_EXTRACTORS.get(op_class) or generic_extract(op_class)
        extractors.append(extractor(FRAMEWORK, op_class.type, extract, versions=declared.opsets, produces=[op_class]))
    return extractors


def _custom_extractor(declared: DeclaredOp) -> Extractor:
    op_class = declared.op
    return extractor(FRAMEWORK, op_class.type, generic_extract(op_class), versions=(CUSTOM_OPSET_VERSION, None),
                     domain=op_class.custom_opset, produces=[op_class])


def generic_extract(op_class: type[Op]) -> ExtractFn:
    """Parse the layer's ``<data>`` attributes into ``op_class``'s typed fields."""
    resolved: list[dict[str, tuple[str, Any]]] = []  # the field types, resolved on first use

    def extract(node: Node, ctx: ExtractContext) -> Op:
        source = ctx.source_op
        if not resolved:
            resolved.append(field_types(op_class))
        try:
            return build_op(op_class, _layer(source).data, resolved[0])
        except (ValueError, TypeError) as exc:
            raise ConversionError(f"IR layer {quoted(node.name)} ({op_class.type}): {exc}") from None

    return extract


def _layer(source: SourceOp) -> IrLayer:
    layer = source.source
    assert isinstance(layer, IrLayer)
    return layer
