"""Warn about tensors too large for the machine that will run the model, and refuse those
no machine could allocate.

A conversion may succeed for a model whose compiled form needs a buffer larger than any
machine has (a MatMul whose output is 100k x 100k); OpenVINO then fails only when the model
is compiled or run. The largest static intermediate tensor is a lower bound of what it needs.
"""

from __future__ import annotations

from irconv.errors import ConversionError, quoted
from irconv.graph import Graph
from irconv.graph.budget import element_count, item_size, ledger_for
from irconv.ops import Const

#: Above this, a tensor gets a note: more than a typical deployment machine has to spare.
LARGE_TENSOR_BYTES = 4 << 30


def large_tensor_notes(graph: Graph, limit: int = LARGE_TENSOR_BYTES) -> list[str]:
    """One note for the largest intermediate tensor over ``limit`` bytes (constants are in
    the .bin and counted there), naming it, its node and its size."""
    largest = _largest_tensor(graph)
    if largest is None or largest[0] <= limit:
        return []
    size, what = largest
    return [
        f"warning: {what} holds {size / (1 << 30):.1f} GiB; running the model needs at least that much "
        "memory (check the input shapes given with --input)"
    ]


def refuse_oversized_tensors(graph: Graph) -> None:
    """Refuse a model whose largest static intermediate tensor is over the budget's
    ``runtime_tensor_bytes``: no runtime could allocate it, so the IR could only fail there."""
    largest = _largest_tensor(graph)
    limit = ledger_for(graph).budget.runtime_tensor_bytes
    if largest is not None and largest[0] > limit:
        size, what = largest
        raise ConversionError(
            f"{what} would hold {size / (1 << 30):.4g} GiB when the model runs, more than the "
            f"{limit / (1 << 30):.4g} GiB irconv converts; a size in the model file is corrupt, "
            "or the input shapes given with --input are too large"
        )


def _largest_tensor(graph: Graph) -> tuple[int, str] | None:
    """The size in bytes and a description of the largest static intermediate tensor."""
    largest: tuple[int, str] | None = None
    for node in graph.nodes():
        if isinstance(node.op, Const):
            continue
        for port in node.out_ports():
            count = element_count(port.data.shape)
            if count is None:
                continue
            size = count * item_size(port.data.element_type)
            if largest is None or size > largest[0]:
                name = port.data.names[0] if port.data.names else f"{node.name}:{port.idx}"
                largest = (size, f"tensor {quoted(name)} (node {quoted(node.name)}, {node.op.describe()})")
    return largest
