"""Name the custom-opset layers of an IR that no installed plugin can read back.

A layer whose ``version`` is not ``opsetN`` belongs to a custom opset (``version="my_opset"``):
only the plugin that declares that opset (``Op.custom_opset``) knows its attributes, shape
inference and evaluation. Without it the generic "no extractor" report would say little, so
the loader lists every such layer up front: the opset, the op, the layers, and what to install.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from irconv import LoadContext
from irconv.errors import UnsupportedOpsError, quoted, shortened
from irconv.graph import Graph, Node
from irconv.ops import SourceOp

_SHOWN = 3


@dataclass
class _Missing:
    opset: str
    op_type: str
    layers: list[str] = field(default_factory=list)


def source_layers(graph: Graph) -> Iterator[tuple[Node, SourceOp]]:
    """Every layer still held as a SourceOp, control-flow bodies included."""
    for node in graph.nodes():
        op = node.op
        if isinstance(op, SourceOp):
            yield node, op
            for body in op.bodies.values():
                yield from source_layers(body)


def check_custom_layers(path: Path, graph: Graph, ctx: LoadContext) -> None:
    """Raise one ``UnsupportedOpsError`` for all custom-opset layers without an extractor."""
    missing: dict[tuple[str, str], _Missing] = {}
    for node, op in source_layers(graph):
        if not op.domain or ctx.has_extractor(op.framework, op.domain, op.op_type, op.opset_version):
            continue
        entry = missing.setdefault((op.domain, op.op_type), _Missing(op.domain, op.op_type))
        entry.layers.append(node.name)
    if missing:
        raise UnsupportedOpsError(missing_message(path, list(missing.values()), ctx))


def missing_message(path: Path, missing: list[_Missing], ctx: LoadContext) -> str:
    declared = ctx.ops.custom_opsets()
    lines = [f"{path} uses custom operations that no installed plugin declares:"]
    for m in sorted(missing, key=lambda m: (m.opset, m.op_type)):
        shown = ", ".join(quoted(n) for n in m.layers[:_SHOWN]) + (", ..." if len(m.layers) > _SHOWN else "")
        owner = declared.get(m.opset)
        if owner is None:
            why = f"no installed plugin declares custom opset {quoted(m.opset)}"
        else:
            known = sorted(d.op.type for d in ctx.ops.declared() if d.op.custom_opset == m.opset)
            why = (
                f"custom opset {quoted(m.opset)} is declared by {owner}, which has no op {quoted(m.op_type)} "
                f"(it declares {', '.join(known)}); a newer version of it may"
            )
        lines.append(f'  {shortened(m.op_type)} (version="{shortened(m.opset)}") x{len(m.layers)}: layer {shown} - {why}')
    others = ", ".join(f"{name} ({owner})" for name, owner in sorted(declared.items())) or "none"
    lines.append(
        "Install the irconv plugin that declares these ops (the one the IR was converted with); "
        f"custom opsets installed now: {others}. `irconv ops --opset` lists every declared op. "
        "The OpenVINO runtime also needs that plugin's runtime extension to run this IR."
    )
    return "\n".join(lines)
