"""Shape arithmetic that symbols prove: computed once, folded when static, dropped when a no-op.

Exporters recompute a tensor's dims from whichever tensor is at hand (``q.size(0)``,
``hidden.size(1)``): ``ShapeOf -> Gather -> Concat`` chains over different tensors whose dims
are the same symbols (``irconv.types_symbols``). Over the symbolic value of each small integer
tensor (``irconv_opset.partial.symbolic_value``) this transform

- folds a value that is the same for every input shape (only ints) into a Const;
- points the readers of a value already computed earlier in the graph (the same symbols in
  the same places, the same element type) at that first computation, so one ShapeOf serves
  each symbol source and ``fuse.merge_common_subexpressions`` then merges what is left;
- removes a Reshape, Broadcast or Tile whose output has its data input's symbolic shape
  (a broadcast to the shape the tensor already has).

Values that follow a model input's static dims are pinned symbols, never ints: they stay
computed, so the IR stays reshapeable.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from irconv import Graph, Node, TransformContext
from irconv.graph import OutPort
from irconv.graph.symbolic import symbolic_shape
from irconv.ops import Const, Parameter, Result
from irconv.ops.traits import Trait
from irconv.plugins import Transform
from irconv.types_symbols import Expr
from irconv_opset.partial import symbolic_value

from irconv_transforms._fusion import AFTER_LAYOUT, FUSIONS

#: Ops that return their data input unchanged when the output shape equals the input's.
_NO_OP_WHEN_SAME_SHAPE = frozenset({"Reshape", "Broadcast", "Tile"})


class FoldSymbolicShapes(Transform):
    """Shape values proven by symbols: static ones folded, repeated ones computed once, and
    Reshape/Broadcast/Tile to the shape the data already has removed."""

    id = "fold.symbolic_shapes"
    run_after = (*AFTER_LAYOUT, *FUSIONS)
    run_before = ("fuse.merge_common_subexpressions",)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        first: dict[Hashable, OutPort] = {}
        changed = False
        for node in graph.topological_order():
            if node not in graph or ctx.is_frozen(node) or not _computes(node):
                continue
            if _drop_no_op(node):
                changed = True
                continue
            port = node.out_port(0)
            value = _known_value(port)
            if value is None:
                continue
            if all(isinstance(v, int) for v in value.reshape(-1)):
                _fold(graph, node, port, value)
                changed = True
                continue
            key = (port.data.element_type, value.shape, tuple(value.reshape(-1)))
            earlier = first.setdefault(key, port)
            if earlier is not port:
                port.get_connection().set_source(earlier)
                changed = True
        if changed:
            graph.clean_up()
        return changed


def _computes(node: Node) -> bool:
    op = node.op
    return (
        op.is_opset_op
        and not isinstance(op, (Const, Parameter, Result))
        and not op.has(Trait.SIDE_EFFECTS)
        and node.num_outputs() == 1
        and not any(isinstance(user.node.op, Result) for user in node.out_port(0).get_destinations())
    )


def _known_value(port: OutPort) -> np.ndarray | None:
    """The symbolic value when every element is known and the tensor is a small integer one."""
    if not port.data.element_type.is_integer or not port.get_destinations():
        return None
    if port.data.value is not None and not port.data.shape_derived:
        return None  # a constant: constant folding's business
    value = symbolic_value(port)
    if value is None or value.size == 0 or any(not isinstance(v, (int, Expr)) for v in value.reshape(-1)):
        return None
    return value


def _fold(graph: Graph, node: Node, port: OutPort, value: np.ndarray) -> None:
    array = np.array([int(v) for v in value.reshape(-1)], dtype=port.data.element_type.numpy).reshape(value.shape)
    const = graph.add_node(Const(array), origin=node.origin)
    const.out_port(0).data.set_value(array)
    port.get_connection().set_source(const.out_port(0))


def _drop_no_op(node: Node) -> bool:
    if node.op.type not in _NO_OP_WHEN_SAME_SHAPE or not node.has_input(0):
        return False
    source = node.in_port(0).get_source()
    out = node.out_port(0)
    if source is None or source.data.element_type is not out.data.element_type:
        return False
    before, after = symbolic_shape(source), symbolic_shape(out)
    if before is None or after is None or before != after:
        return False
    out.get_connection().set_source(source)
    return True
