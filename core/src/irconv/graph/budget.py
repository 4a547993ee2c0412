"""Resource budgets: how much memory constant evaluation and folding may spend.

Partial inference computes constant values with NumPy; a model can ask for a tensor of
terabytes (``ConstantOfShape`` with a huge shape, ``Tile``/``Broadcast``/``Range`` with huge
counts). Every such value is measured against a ``ValueBudget`` *before* it is computed,
from the output shape inference already found; over budget, the value is simply not
computed and the sub-graph stays in the IR as operations (still a valid IR).

The limits travel with the graph (``graph.meta[VALUE_BUDGET]``), so every caller of
``infer_node`` — extraction, the rewriter, re-inference, bodies of control-flow ops — sees
the same limits without a global. ``run.convert`` (or a test) sets them per conversion.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from irconv.errors import ModelFileError, shortened
from irconv.graph import Graph, MetaKey, Node
from irconv.types import ElementType, MaybeShape

GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class ValueBudget:
    """Limits on values computed during conversion.

    ``tensor_bytes``: the largest single value evaluated or folded into a Const.
    ``total_bytes``: the sum of values one inference pass may compute (``infer_graph`` and
    each ``reinfer`` start a pass) and of the Consts one folding run may create.
    ``declared_elements``: the largest tensor a model may declare (Parameter or Const shape);
    above it the model is refused, since no real model needs 2^40 elements in one tensor.
    ``runtime_tensor_bytes``: the largest tensor of static shape the converted model may
    compute; above it the conversion is refused, since the runtime could only fail with
    ``bad_alloc`` (a short value list repeated into a huge Gather index, a corrupt dimension).
    """

    tensor_bytes: int = GIB
    total_bytes: int = 4 * GIB
    declared_elements: int = 1 << 40
    runtime_tensor_bytes: int = 256 * GIB

    def __post_init__(self) -> None:
        if min(self.tensor_bytes, self.total_bytes, self.declared_elements, self.runtime_tensor_bytes) < 0:
            raise ValueError(f"budget limits must be >= 0: {self}")


@dataclass(slots=True)
class BudgetLedger:
    """What one pass spent so far against its ``ValueBudget``."""

    budget: ValueBudget = field(default_factory=ValueBudget)
    spent: int = 0
    refused: int = 0

    def allows(self, nbytes: int) -> bool:
        """Whether a value of ``nbytes`` fits; a value that fits is charged."""
        if nbytes > self.budget.tensor_bytes or self.spent + nbytes > self.budget.total_bytes:
            self.refused += 1
            return False
        self.spent += nbytes
        return True

    def fresh(self) -> BudgetLedger:
        """A new pass with the same limits."""
        return BudgetLedger(self.budget)


#: The limits (and what the current pass spent) for a graph; bodies get their own ledger.
VALUE_BUDGET: MetaKey[BudgetLedger] = MetaKey(
    "core.value_budget", BudgetLedger, default=BudgetLedger, doc="resource budget for constant values"
)


def ledger_for(graph: Graph) -> BudgetLedger:
    """The ledger of ``graph``'s current pass (created with default limits on first use)."""
    return graph.meta.setdefault(VALUE_BUDGET)


def set_budget(graph: Graph, budget: ValueBudget) -> None:
    """Use ``budget`` for every later evaluation and folding in ``graph``."""
    graph.meta[VALUE_BUDGET] = BudgetLedger(budget)


def start_pass(graph: Graph) -> BudgetLedger:
    """Reset what ``graph`` spent: a new inference pass starts."""
    ledger = ledger_for(graph).fresh()
    graph.meta[VALUE_BUDGET] = ledger
    return ledger


def element_count(shape: MaybeShape) -> int | None:
    """Elements in a static shape (Python ints, no overflow); None when not static."""
    dims = [d for d in shape if d is not None] if shape is not None else []
    if shape is None or len(dims) < len(shape):
        return None
    return math.prod(max(d, 0) for d in dims)


def item_size(element_type: ElementType) -> int:
    """Bytes per element of ``element_type`` (8 when it is not known yet: the worst case)."""
    try:
        return int(np.dtype(element_type.numpy).itemsize)
    except ValueError:
        return 8


def predicted_bytes(node: Node) -> int | None:
    """Bytes the node's outputs will take once evaluated, from inferred shapes and types.

    None when some output shape is not static yet (the size is known only afterwards).
    """
    total = 0
    for port in node.out_ports():
        count = element_count(port.data.shape)
        if count is None:
            return None
        total += count * item_size(port.data.element_type)
    return total


def values_bytes(values: Iterable[object]) -> int:
    return sum(int(getattr(v, "nbytes", 0)) for v in values)


def check_declared_size(node: Node, limit: int) -> None:
    """Refuse a Parameter or Const whose declared shape has a negative dimension or more
    than ``limit`` elements."""
    for port in node.out_ports():
        shape = port.data.shape
        if shape is None:
            continue
        if any(d is not None and d < 0 for d in shape):
            dims = "x".join("?" if d is None else str(d) for d in shape)
            raise ModelFileError(
                f"{node.type} {node.name!r} declares a negative dimension in shape [{dims}]; "
                "the model file is corrupt (a dynamic dimension is written as -1 or a name)"
            )
        count = element_count(tuple(d for d in shape if d is not None))
        if count is not None and count > limit:
            dims = "x".join("?" if d is None else str(d) for d in shape)
            raise ModelFileError(
                f"{node.type} {node.name!r} declares a tensor of shape [{dims}] ({count:.3g} elements), "
                f"more than the {limit:.3g} irconv accepts; the model file is corrupt or not meant for inference"
            )


# ---------------------------------------------------------------- sizes a model file declares
#
# Loaders read counts from the file (a sparse tensor's dense sizes, a layer call's output
# count, a constant's element count, a weight record's byte length) and allocate from them.
# Each such number goes through ``declared_size`` before the allocation, and each weight's
# bytes through ``check_weight_bytes``, so a corrupt file ends in one line naming the field,
# the value and where it is, instead of a memory blow-up or a silently zero weight.


#: Roughly what one graph port costs in memory (the port, its tensor record, a shape): the
#: unit for a declared count that becomes ports (a layer call's outputs, an op's results).
PORT_BYTES = 1024


def declared_size(
    value: object,
    *,
    field: str,
    where: str,
    limit: int | None = None,
    limit_is: str = "the tensor's shape allows",
    unit_bytes: int = 1,
    budget: ValueBudget | None = None,
) -> int:
    """``value`` as a size the model file declares, once checked: an integer >= 0, at most
    ``limit`` (what the tensor's actual shape allows, when there is one), and taking at most
    the budget's ``tensor_bytes`` once allocated at ``unit_bytes`` per unit.

    ``field`` names the number (``"dense_size"``), ``where`` the tensor or layer it belongs to,
    ``limit_is`` what sets ``limit`` (``"the file holds"``).
    Raises ``ModelFileError`` (one line naming both and the value) otherwise.
    """
    budget = budget or ValueBudget()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ModelFileError(
            f"{where}: {field} is {shortened(repr(value), 40)}, not a whole number; the model file is corrupt"
        )
    size = int(value)
    if size < 0:
        raise ModelFileError(f"{where}: {field} {size} is negative; the model file is corrupt")
    if limit is not None and size > limit:
        raise ModelFileError(f"{where}: {field} {size} is more than the {limit} {limit_is}; the model file is corrupt")
    if size * max(unit_bytes, 1) > budget.tensor_bytes:
        raise ModelFileError(
            f"{where}: {field} {size} would take {_bytes(size * max(unit_bytes, 1))}, more than the "
            f"{_bytes(budget.tensor_bytes)} irconv allocates for one value; the model file is corrupt"
        )
    return size


def weight_bytes(shape: Iterable[int], unit_bytes: int) -> int:
    """Bytes a dense tensor of ``shape`` takes at ``unit_bytes`` per element (Python ints:
    a corrupt shape cannot overflow into a small count); a negative dimension counts as 0."""
    return math.prod(max(int(d), 0) for d in shape) * unit_bytes


def check_weight_bytes(
    where: str, shape: Iterable[int], unit_bytes: int, actual: int, *, at_least: bool = False
) -> None:
    """Refuse a weight whose stored bytes (``actual``) differ from what its declared shape
    and element size need (or, with ``at_least``, are fewer: a record several views share).

    ``where`` names the tensor; the message gives the declared and actual byte counts.
    """
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise ModelFileError(f"{where}: declared shape {dims} has a negative dimension; the model file is corrupt")
    declared = weight_bytes(dims, unit_bytes)
    if actual == declared or (at_least and actual > declared):
        return
    shape_text = "x".join(str(d) for d in dims) or "scalar"
    raise ModelFileError(
        f"{where}: shape [{shape_text}] at {unit_bytes} byte(s) per element needs {declared} bytes, "
        f"the file holds {actual}; the model file is truncated or corrupt"
    )


def _bytes(count: int) -> str:
    return f"{count / GIB:.3g} GiB" if count >= GIB else f"{count} bytes"
