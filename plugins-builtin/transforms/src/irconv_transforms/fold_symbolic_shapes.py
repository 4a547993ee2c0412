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
  (a broadcast to the shape the tensor already has), and so a Pad by computed zeros;
- gives a Reshape or Broadcast whose target is computed at run time a constant target that
  the op resolves to the same shape, where the symbols allow one: a Reshape keeps a data
  dim by a 0 (``special_zero``), a bidirectional Broadcast by a 1 (``view(b, s, -1, 16)``
  of a ``[b, s, 64]`` tensor is ``[0, 0, -1, 16]``; ``expand`` of ``[b, 2, 1, s, 16]`` to
  ``[b, 2, 2, s, 16]`` is a broadcast with ``[1, 1, 2, 1, 1]``).

Values that follow a model input's static dims are pinned symbols, never ints: they stay
computed, so the IR stays reshapeable.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

import numpy as np
from irconv import Graph, Node, TransformContext
from irconv.graph import OutPort
from irconv.graph.symbolic import broadcast_symbols, symbolic_shape
from irconv.ops import Const, Parameter, Result
from irconv.ops.traits import Trait
from irconv.plugins import Transform
from irconv.types_symbols import Expr, SymShape, value_of
from irconv_opset.partial import symbolic_value

from irconv_transforms._fusion import AFTER_LAYOUT, FUSIONS

#: Ops that return their data input unchanged when the output shape equals the input's.
_NO_OP_WHEN_SAME_SHAPE = frozenset({"Reshape", "Broadcast", "Tile"})
#: Ops that do so when, besides, the inputs at these ports are all this value: a Pad by zeros
#: (a 1-before-1-after crop and pad keeps the shape too, not the data). Not a whole Slice:
#: without torch.export's ``x[:, :]`` copies of the KV cache, OpenVINO GenAI takes a decoder
#: with a sliding window for its PagedAttention backend and loses the window (mistral-window in
#: tests/llm/hf/test_config_variants.py generates other tokens).
_NO_OP_WHEN_ZERO: dict[str, dict[int, int]] = {"Pad": {1: 0, 2: 0}}


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
            if node not in graph or ctx.is_frozen(node):
                continue
            if _constant_target(graph, node):  # the node stays: its output may be a model output
                changed = True
            if not _computes(node):
                continue
            if _drop_no_op(node) or _drop_absorbed_broadcast(node):
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


def _data_and_shapes(node: Node) -> tuple[OutPort, SymShape, SymShape] | None:
    """The node's data input (input 0), its symbolic shape and the output's, when the output
    has the data's type (so that its readers could read the data instead)."""
    source = node.in_port(0).get_source() if node.has_input(0) else None
    out = node.out_port(0)
    if source is None or source.data.element_type is not out.data.element_type:
        return None
    before, after = symbolic_shape(source), symbolic_shape(out)
    return None if before is None or after is None else (source, before, after)


def _drop_no_op(node: Node) -> bool:
    kind = node.op.type
    if kind not in _NO_OP_WHEN_SAME_SHAPE and kind not in _NO_OP_WHEN_ZERO:
        return False
    found = _data_and_shapes(node)
    if found is None or found[1] != found[2]:
        return False
    if kind in _NO_OP_WHEN_ZERO and not _all_inputs(node, _NO_OP_WHEN_ZERO[kind]):
        return False
    node.out_port(0).get_connection().set_source(found[0])
    return True


def _drop_absorbed_broadcast(node: Node) -> bool:
    """A Broadcast whose every reader broadcasts that input itself to the same result: an
    elementwise op of NumPy broadcasting, or a MatMul over batch dims only (the rotary
    frequencies' ``expand(batch, -1, 1) @ positions``); each reader then reads the data."""
    if node.op.type != "Broadcast" or getattr(node.op, "mode", None) not in ("numpy", "bidirectional"):
        return False
    found = _data_and_shapes(node)
    out = node.out_port(0)
    readers = out.get_destinations()
    if found is None or not readers or len({r.node for r in readers}) != len(readers):
        return False  # (a reader of it at two inputs would see neither broadcast)
    source, data, expanded = found
    if not all(_absorbs(reader.node, reader.idx, data, expanded) for reader in readers):
        return False
    out.get_connection().set_source(source)
    return True


def _absorbs(reader: Node, idx: int, data: SymShape, expanded: SymShape) -> bool:
    """Whether ``reader`` gives the same output shape with ``data`` at input ``idx`` instead
    of its broadcast to ``expanded``."""
    shapes: list[SymShape] = []
    for i in range(reader.num_inputs()):
        shape = symbolic_shape(reader.in_port(i).get_source()) if reader.has_input(i) else None
        if shape is None:
            return False
        shapes.append(data if i == idx else shape)
    result = symbolic_shape(reader.out_port(0)) if reader.num_outputs() == 1 else None
    if result is None:
        return False
    if reader.op.type == "MatMul" and reader.op.is_opset_op:
        if any(len(shape) < 2 for shape in shapes) or data[-2:] != expanded[-2:]:
            return False  # only batch dims may come from the broadcast
        return broadcast_symbols(*(shape[:-2] for shape in shapes)) == tuple(result[:-2])
    if getattr(reader.op, "auto_broadcast", None) != "numpy" or not reader.op.has(Trait.ELEMENTWISE):
        return False
    return broadcast_symbols(*shapes) == tuple(result)


def _all_inputs(node: Node, wanted: dict[int, int]) -> bool:
    """Every element of input ``i`` is ``wanted[i]``, by the symbols (a computed pad of 0)."""
    for idx, value in wanted.items():
        elements = symbolic_value(node.in_port(idx).get_source()) if node.has_input(idx) else None
        if elements is None or any(not isinstance(e, int) or e != value for e in elements.reshape(-1)):
            return False
    return True


def _constant_target(graph: Graph, node: Node) -> bool:
    """A run-time Reshape/Broadcast target replaced by an equivalent constant (see the module)."""
    op = node.op
    if not op.is_opset_op or op.type not in ("Reshape", "Broadcast") or not node.has_input(1):
        return False
    if node.in_port(1).data.value is not None:
        return False
    if op.type == "Broadcast" and (getattr(op, "mode", "") not in ("numpy", "bidirectional") or node.has_input(2)):
        return False
    data, out = symbolic_shape(node.in_port(0).get_source()), symbolic_shape(node.out_port(0))
    if data is None or out is None:
        return False
    target = _reshape_target(node, data, out) if op.type == "Reshape" else _broadcast_target(data, out)
    if target is None:
        return False
    rewritten = replace(op, special_zero=True) if op.type == "Reshape" else replace(op, mode="bidirectional")
    node.op = rewritten
    source = node.in_port(1).get_source()
    element_type = source.data.element_type if source is not None else None
    array = np.array(target, dtype=element_type.numpy if element_type is not None else np.int64)
    const = graph.add_node(Const(array), origin=node.origin)
    const.out_port(0).data.set_value(array)
    node.in_port(1).connect(const.out_port(0))  # this reader only: others may share the target
    return True


def _reshape_target(node: Node, data: tuple[object, ...], out: tuple[object, ...]) -> list[int] | None:
    """Per output dim: 0 where it is the data's dim at the same index, its value where static,
    -1 where the op's target says -1 or, when it says none, for the one dim that is neither
    (the element count decides it; a -1 whose dim is static gives way to that one, spelled
    as its value); None when that does not cover every dim."""
    pattern = symbolic_value(node.in_port(1).get_source())
    if pattern is None or pattern.ndim != 1 or len(pattern) != len(out):
        return None
    special_zero = bool(getattr(node.op, "special_zero", False))
    target: list[int | None] = []
    for i, (wanted, dim) in enumerate(zip(pattern, out, strict=True)):
        if isinstance(wanted, int) and wanted == -1:
            target.append(-1)
        elif isinstance(wanted, int) and wanted == 0:
            if not special_zero:
                return None  # a literal 0-sized dim; with special_zero it would copy
            target.append(0)
        elif i < len(data) and isinstance(data[i], Expr) and dim == data[i]:
            target.append(0)
        elif isinstance(dim, int) and dim > 0:
            target.append(dim)
        else:
            target.append(None)
    if target.count(None) == 1 and -1 in target:  # the -1's dim is static: spell it, -1 the other
        minus = target.index(-1)
        if isinstance(out[minus], int) and out[minus] > 0:  # type: ignore[operator]
            target[minus] = out[minus]  # type: ignore[call-overload]
    if target.count(None) == 1 and -1 not in target:
        target[target.index(None)] = -1
    return None if None in target else target  # type: ignore[return-value]  # ints only here


def _broadcast_target(data: tuple[object, ...], out: tuple[object, ...]) -> list[int] | None:
    """A bidirectional target: 1 where the output dim is the data's, its value where static."""
    if len(out) < len(data):
        return None
    padded = (1,) * (len(out) - len(data)) + tuple(data)
    target: list[int] = []
    for before, after in zip(padded, out, strict=True):
        if after == before or isinstance(after, int) and isinstance(before, (int, Expr)) and value_of(before) == after:
            target.append(1)  # the data's dim (a static one too: the IR stays reshapeable)
        elif isinstance(after, int):
            target.append(after)
        else:
            return None
    return target
