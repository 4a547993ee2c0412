"""Partial inference: shapes, element types and constant values, in topological order."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from irconv import narrow_float
from irconv.errors import ConversionError, IrconvError, PluginFault, UserError, quoted
from irconv.graph import Graph, Node
from irconv.graph.budget import (
    BudgetLedger,
    check_declared_size,
    ledger_for,
    predicted_bytes,
    start_pass,
    values_bytes,
)
from irconv.graph.refusals import forget_refusal, remember_refusal
from irconv.graph.symbolic import infer_symbols, mark_symbolic_inputs
from irconv.types import ElementType, format_shape


def infer_node(node: Node, ledger: BudgetLedger | None = None) -> None:
    """Infer one node's outputs; propagate constant values through ``evaluate``.

    An op says its inputs break its rules by raising ``ConversionError`` (naming the node) or
    ``ValueError`` / ``LoweringError`` (a user error this names with the op and its input
    shapes); any other exception from ``infer`` or ``evaluate`` is the op's bug, a ``PluginFault``. Values are computed only within
    the graph's budget (``ledger``, default: the graph's current pass): a value over budget
    stays unknown, so the node stays an operation in the IR. A Parameter or Const declaring
    an absurdly large tensor is refused.
    """
    op = node.op
    try:
        op.infer(node)
    except RecursionError:
        raise ConversionError(
            f"node {quoted(node.name)} ({op.describe()}) nests sub-graphs (If/Loop bodies) deeper than irconv can "
            "infer; flatten the control flow or split the model"
        ) from None
    except ValueError as exc:  # an op's way to say its inputs break its rules (a LoweringError, from a
        # shared rule that does not know the node, included): about the model, named here
        raise ConversionError(
            f"shape inference failed at node {quoted(node.name)} ({op.describe()}) with inputs "
            f"{describe_inputs(node)}: {exc}"
        ) from exc
    except IrconvError:
        raise
    except Exception as exc:  # not raised on purpose: the op's bug (its plugin is named by the caller)
        raise PluginFault(
            f"inferring node {quoted(node.name)} ({op.describe()}) with inputs {describe_inputs(node)}", exc,
            op=type(op),
        ) from exc
    infer_symbols(node)
    ledger = ledger if ledger is not None else ledger_for(node.graph)
    if op.declares_output:
        check_declared_size(node, ledger.budget.declared_elements)
    else:
        _propagate_values(node, ledger)


def try_infer(node: Node) -> bool:
    """Infer a node if its op can be inferred now; on failure its facts are left unknown.

    Used while the graph is being built (extraction), where an op may still need a front
    transform; the inference phase reports real failures with their context.
    """
    try:
        infer_node(node)
    except UserError as exc:  # the op cannot be inferred yet; a plugin's bug still surfaces
        forget_facts(node)
        remember_refusal(node, exc)  # reported if a consumer's extractor fails for want of these facts
        return False
    forget_refusal(node)
    return True


def forget_facts(node: Node) -> None:
    for port in node.out_ports():
        data = port.data
        data.shape, data.element_type, data.value, data.shape_derived = None, ElementType.dynamic, None, False
        data.symbols = None


def _propagate_values(node: Node, ledger: BudgetLedger) -> None:
    inputs = [port.get_source() for port in node.in_ports()]
    if not inputs or any(s is None or s.data.value is None for s in inputs):
        return
    if node.op.arity is not None and len(inputs) < node.op.arity[0]:
        return  # an input the op reads is missing: left to the emitter's check, which names the node
    values = [s.data.value for s in inputs if s is not None]
    if any(s.data.element_type.is_packed for s in inputs if s is not None):
        return  # 4-bit weights stay as written: folding their decompression would widen them
    expected = predicted_bytes(node)
    if expected is not None and not ledger.allows(expected):
        return  # checked before evaluating: a huge value is never allocated
    try:
        outputs = node.op.evaluate(narrow_float.widen_all(values))
    except MemoryError:
        ledger.refused += 1
        return  # the value is left unknown; the node stays an operation
    except ValueError as exc:  # the values break the op's rules (LoweringError included): about the model
        raise ConversionError(
            f"constant evaluation failed at node {quoted(node.name)} ({node.op.describe()}) with inputs "
            f"{describe_inputs(node)}: {exc}"
        ) from exc
    except IrconvError:
        raise
    except Exception as exc:  # not raised on purpose: the op's bug
        raise PluginFault(
            f"evaluating node {quoted(node.name)} ({node.op.describe()}) with inputs {describe_inputs(node)}", exc,
            op=type(node.op),
        ) from exc
    if outputs is None:
        return
    if expected is None and not ledger.allows(values_bytes(outputs)):
        return
    # Every input has a value here, so a shape-only op (ShapeOf) is looking at constants:
    # their shapes never change when the model's inputs are reshaped, and the result folds
    # like any constant. Values computed from a model shape stay marked.
    derived = any(s.data.shape_derived for s in inputs if s is not None)
    for idx, value in enumerate(outputs):
        data = node.out_port(idx).data
        inferred_type = data.element_type
        array = np.asarray(value)
        if inferred_type.is_float or inferred_type.is_integer or inferred_type.value == "boolean":
            array = narrow_float.cast(array, inferred_type)
        data.set_value(array, shape_derived=derived)


def describe_inputs(node: Node) -> str:
    parts = []
    for port in node.in_ports():
        source = port.get_source()
        if source is None:
            parts.append("-")
        else:
            parts.append(f"{format_shape(source.data.shape)}:{source.data.element_type.value}")
    return "(" + ", ".join(parts) + ")"


def infer_graph(graph: Graph) -> None:
    """Infer every node, producers first (a new budget pass)."""
    graph.take_dirty()
    mark_symbolic_inputs(graph)
    ledger = start_pass(graph)
    for node in graph.topological_order():
        infer_node(node, ledger)


def reinfer(graph: Graph, nodes: Iterable[Node] | None = None) -> int:
    """Re-infer the given nodes (default: those edits marked dirty) and all downstream.

    Returns how many nodes were inferred.
    """
    start = list(nodes) if nodes is not None else graph.take_dirty()
    if not start:
        return 0
    order = graph.descendants_order(start)
    ledger = start_pass(graph)
    for node in order:
        node_outputs_reset(node)
        infer_node(node, ledger)
    graph.take_dirty()
    return len(order)


def node_outputs_reset(node: Node) -> None:
    """Forget values inferred earlier so a changed input cannot leave a stale constant."""
    if node.op.declares_output:
        return
    for port in node.out_ports():
        port.data.value = None
        port.data.shape_derived = False
