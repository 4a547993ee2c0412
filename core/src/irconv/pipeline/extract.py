"""Extraction: every framework node becomes opset ops through its extractor.

All unsupported ops are found first and reported together, before any node changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from irconv.contract.context import ExtractContext
from irconv.contract.options import ConversionOptions
from irconv.contract.progress import Progress
from irconv.contract.records import Extractor
from irconv.errors import (
    NAME_LIMIT,
    ConversionError,
    IrconvError,
    LoweringError,
    PluginError,
    PluginFault,
    UnsupportedOpsError,
    quoted,
    shortened,
)
from irconv.graph import Graph, Node, OutPort
from irconv.graph.infer import try_infer
from irconv.graph.refusals import upstream_refusal
from irconv.ops import Const, Op, SourceOp
from irconv.plugins.registry import Registry

#: The environment variable that turns on the check of what extractors build against their
#: ``produces`` (irconv's pytest plugin sets it for every test run).
CHECK_PRODUCES = "IRCONV_CHECK_PRODUCES"

_SHOWN_NAMES = 3


@dataclass
class _Missing:
    framework: str
    domain: str
    op_type: str
    opsets: set[int] = field(default_factory=set)
    nodes: list[str] = field(default_factory=list)


def source_nodes(graph: Graph) -> Iterator[tuple[Graph, Node, SourceOp]]:
    """Every node still holding a SourceOp, bodies of control-flow ops included."""
    for node in graph.nodes():
        op = node.op
        if isinstance(op, SourceOp):
            yield graph, node, op
            for body in op.bodies.values():
                yield from source_nodes(body)


def check_supported(graph: Graph, registry: Registry) -> None:
    """Raise one ``UnsupportedOpsError`` listing every op without an extractor."""
    missing: dict[tuple[str, str, str], _Missing] = {}
    for _, node, op in source_nodes(graph):
        if registry.find_extractor(op.framework, op.domain, op.op_type, op.opset_version) is None:
            key = (op.framework, op.domain, op.op_type)
            entry = missing.setdefault(key, _Missing(*key))
            entry.opsets.add(op.opset_version)
            entry.nodes.append(node.name)
    if missing:
        raise UnsupportedOpsError(_unsupported_message(list(missing.values()), registry))


def _unsupported_message(missing: list[_Missing], registry: Registry) -> str:
    total = sum(len(m.nodes) for m in missing)
    lines = [f"{len(missing)} operation type(s) in {total} node(s) have no extractor:"]
    for m in sorted(missing, key=lambda m: (-len(m.nodes), m.domain, m.op_type)):
        domain = f"{shortened(m.domain, NAME_LIMIT)}::" if m.domain else ""
        opsets = ",".join(str(v) for v in sorted(m.opsets))
        shown = ", ".join(shortened(name, NAME_LIMIT) for name in m.nodes[:_SHOWN_NAMES])
        shown += ", ..." if len(m.nodes) > _SHOWN_NAMES else ""
        versioned = f" (opset {opsets})" if m.opsets != {1} else ""  # frameworks without opsets say 1
        line = f"  {m.framework} {domain}{shortened(m.op_type, NAME_LIMIT)}{versioned} x{len(m.nodes)}: {shown}"
        others = registry.extractors_for(m.framework, m.domain, m.op_type)
        if others:
            ranges = "; ".join(f"opsets {o.item.opsets_text()} by {o.plugin.label()}" for o in others)
            line += f"  [supported only for {ranges}]"
        lines.append(line)
    lines.append(
        "Install a plugin that provides them (`irconv plugins` lists what is installed, "
        "`irconv ops` what they support) or write one (docs/plugin-guide.md)."
    )
    return "\n".join(lines)


def extract_graph(
    graph: Graph,
    registry: Registry,
    options: ConversionOptions,
    progress: Progress | None = None,
    notes: list[str] | None = None,
) -> None:
    """Replace every SourceOp in ``graph`` (bodies first) by what its extractor returns.

    With ``IRCONV_CHECK_PRODUCES=1`` in the environment (irconv's pytest plugin sets it), an
    extractor that builds an op type outside its ``produces`` is a plugin fault."""
    check = os.environ.get(CHECK_PRODUCES) == "1"
    pending = graph.topological_order()
    pending.reverse()
    while pending:  # popped as visited: the list holds no node extraction removed (nor its weights)
        node = pending.pop()
        op = node.op
        if not isinstance(op, SourceOp):
            try_infer(node)  # inputs and constants the loader made: their facts feed the extractors
            continue
        for body in op.bodies.values():
            extract_graph(body, registry, options, progress, notes)
        provided = registry.find_provided_extractor(op.framework, op.domain, op.op_type, op.opset_version)
        if provided is None:  # check_supported ran first; a body-only path may still get here
            raise UnsupportedOpsError(f"no extractor for {op.describe()} (node {quoted(node.name)})")
        ctx = ExtractContext(graph, node, options, registry.ops, notes)
        mark = graph.mark()
        try:
            result = provided.item.extract(node, ctx)
        except ConversionError as exc:
            # A node upstream (or one this extractor built) whose inference refused left the facts
            # the extractor lacked: that refusal is the model's error, the missing rank or value its effect.
            refusal = upstream_refusal([node, *graph.added_since(mark)])
            if refusal is not None:
                raise refusal from exc
            if isinstance(exc, LoweringError):
                raise ConversionError(f"{ctx.where()}: {exc}") from exc
            raise
        except IrconvError:
            raise
        except Exception as exc:  # not raised on purpose: the extractor's bug
            raise PluginFault(_extracting(node, op), exc, provided.plugin.label()) from exc
        if check:
            undeclared = undeclared_products(provided.item, graph, mark, result)
            if undeclared:
                raise PluginFault(_extracting(node, op), undeclared, provided.plugin.label())
        apply_result(graph, node, op, result)
        if progress is not None:
            progress.advance(1, op.op_type)


def _extracting(node: Node, op: SourceOp) -> str:
    """What extraction was doing, for a plugin fault (built only when one happens)."""
    return f"extracting node {quoted(node.name)} ({op.describe()}, opset {op.opset_version})"


def undeclared_products(record: Extractor, graph: Graph, mark: int,
                        result: Op | Sequence[OutPort]) -> PluginError | None:
    """The error for the op types an application of ``record`` built (the nodes added to
    ``graph`` since ``mark``, and the op it returned) that its ``produces`` does not list."""
    built = [node.op for node in graph.added_since(mark)]
    if isinstance(result, Op):
        built.append(result)
    undeclared = record.undeclared(built)
    if not undeclared:
        return None
    return PluginError(f"the {record.key_text()} extractor built {', '.join(undeclared)}, which its "
                       f"produces ({record.produces_text() or 'nothing'}) does not list")


def apply_result(graph: Graph, node: Node, op: SourceOp, result: Op | Sequence[OutPort]) -> None:
    """Put the extractor's result in place of the framework node; its facts are inferred at
    once, so the extractors of the consumers see their inputs' shapes, types and values."""
    if isinstance(result, Op):
        node.op = result
        try_infer(node)
        return
    outputs = list(result)
    # An output past the extractor's that nothing reads (its tensor name aside) is left out.
    beyond = [port for port in node.out_ports() if port.idx >= len(outputs) and port.get_destinations()]
    if beyond:
        reader = repr(beyond[0].get_destinations()[0].node.name)
        raise ConversionError(
            f"node {quoted(node.name)} ({op.describe()}) has {len(outputs)} output(s), but its output {beyond[0].idx} is "
            f"read by {reader}: the model gives this node more outputs than its operation defines (or its "
            "extractor gives too few)"
        )
    for port in node.out_ports():
        if port.idx < len(outputs):
            port.get_connection().set_source(outputs[port.idx])
    read = [in_port.get_source() for in_port in node.in_ports()]
    for in_port in node.in_ports():
        in_port.disconnect()
    graph.remove_node(node)
    _drop_unread_constants(graph, read, kept={output.node for output in outputs})
    # The node that now produces the single output takes the framework node's name.
    if len(outputs) == 1 and outputs[0].node.origin == node.name:
        graph.rename(outputs[0].node, node.name)


def _drop_unread_constants(graph: Graph, read: Sequence[OutPort | None], kept: set[Node]) -> None:
    """Remove the unnamed Consts a replaced node read that nothing reads any more: a
    loader's value the extractor turned into its own constants (a quantized model's
    dequantized weights) would otherwise be held until the final clean-up. ``kept``: the
    nodes the extractor returned as outputs (an identity returns its input), which stay."""
    for port in read:
        if port is None or not isinstance(port.node.op, Const) or port.node not in graph or port.node in kept:
            continue
        node = port.node
        if not node.users() and not any(out.data.names for out in node.out_ports()):
            graph.remove_node(node)

