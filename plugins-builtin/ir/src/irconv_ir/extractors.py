"""Extractors of the ``ir`` framework: one per opset op class, generic attribute parsing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from irconv.errors import ConversionError
from irconv.graph import Node
from irconv.ops import Const, Op, Parameter, Result, SourceOp
from irconv import ExtractContext
from irconv.plugins import Extractor

from irconv_ir.attributes import build_op, field_types

#: Created by the reader itself, never as SourceOps.
STRUCTURAL = (Parameter, Const, Result)


def opset_extractors() -> list[Extractor]:
    """One extractor per op version of the installed opset catalog."""
    from irconv_opset.catalog import all_ops, opset_ranges

    from irconv_ir.control_flow_reader import CONTROL_FLOW_EXTRACTORS

    ranges = opset_ranges()
    extractors = []
    for op_class in all_ops():
        if op_class in STRUCTURAL:
            continue
        special = CONTROL_FLOW_EXTRACTORS.get(op_class.type)
        extract = special(op_class) if special else generic_extract(op_class)
        extractors.append(
            Extractor(
                framework="ir",
                op=op_class.type,
                extract=extract,
                opsets=ranges[op_class],
                produces=f"{op_class.type}-{op_class.version}",
            )
        )
    return extractors


def generic_extract(op_class: type[Op]) -> Callable[[Node, ExtractContext], Op]:
    resolved: list[dict[str, tuple[str, Any]]] = []  # the field types, resolved on first use

    def extract(node: Node, ctx: ExtractContext) -> Op:
        source = node.op
        assert isinstance(source, SourceOp)
        if not resolved:
            resolved.append(field_types(op_class))
        try:
            return build_op(op_class, source.source.data, resolved[0])
        except ValueError as exc:
            raise ConversionError(f"IR layer {node.name!r} ({op_class.type}): {exc}") from None

    return extract
