"""Common sub-expressions: ops computing the same thing from the same inputs become one."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable

import numpy as np
from irconv import Graph, Node, TransformContext
from irconv.ops import Const, DeferredConst, Parameter, Result
from irconv.ops.traits import Trait
from irconv.plugins import Transform

from irconv_transforms._fusion import AFTER_LAYOUT, FUSIONS

#: Constants up to this size are compared by value; larger ones (weights) are never equal
#: by accident, and reading them would page in the model.
SMALL_CONSTANT_BYTES = 4096


def _hashable(value: object) -> Hashable | None:
    """``value`` as a hashable key, or None when it cannot be compared cheaply (an array, a
    sub-graph)."""
    if isinstance(value, (list, tuple)):
        items = tuple(_hashable(item) for item in value)
        return None if any(item is None for item in items) else items
    if isinstance(value, np.ndarray) or dataclasses.is_dataclass(value) or not isinstance(value, Hashable):
        return None
    try:
        hash(value)
    except TypeError:
        return None
    return value


def _constant_key(op: Const) -> Hashable | None:
    if isinstance(op, DeferredConst) or op.value.nbytes > SMALL_CONSTANT_BYTES:
        return None
    value = op.value  # tobytes() is in C order whatever the strides
    return ("Const", value.dtype.str, value.shape, value.tobytes(), op.keep_precision)


def _op_key(node: Node) -> Hashable | None:
    """What the node computes apart from its inputs, or None if it must stay itself."""
    op = node.op
    if isinstance(op, (Parameter, Result)) or op.has(Trait.SIDE_EFFECTS):
        return None
    if isinstance(op, Const):
        return _constant_key(op)
    if not dataclasses.is_dataclass(op):
        return None
    fields = []
    for field in dataclasses.fields(op):
        value = getattr(op, field.name)
        key = _hashable(value)
        if key is None and value is not None:
            return None
        fields.append((field.name, key))
    return (type(op), tuple(fields))


def _feeds_a_body(node: Node) -> bool:
    """Whether an op with a sub-graph (TensorIterator, Loop, If) reads the node: OpenVINO's CPU
    plugin crashes compiling two TensorIterators that read one Const (a bidirectional LSTM
    with peepholes, one iterator per direction), so such constants stay one per reader."""
    return any(_has_body(user.node.op) for port in node.out_ports() for user in port.get_destinations())


def _has_body(op: object) -> bool:
    return dataclasses.is_dataclass(op) and any(isinstance(getattr(op, f.name), Graph) for f in dataclasses.fields(op))


def _feeds_result(node: Node) -> bool:
    return any(isinstance(user.node.op, Result) for port in node.out_ports() for user in port.get_destinations())


class MergeCommonSubexpressions(Transform):
    """``op(a, b)`` twice -> once, for ops of the same type and attributes reading the same
    output ports (in topological order, so a merge exposes the next one); small constants of
    equal value merge too.

    Exporters repeat shape arithmetic per layer (``Shape -> Gather -> Unsqueeze -> Concat``
    from the same tensor, the same ``Unsqueeze`` of a mask): after merging, each is computed
    once. Ops with side effects, Parameters and Results, and ops whose output is a model
    output, stay as they are.
    """

    id = "fuse.merge_common_subexpressions"
    former_ids = ("llm.merge_equal_ops",)
    #: After every fusion of this plugin (a merged node has several readers, which the
    #: fusions' patterns would not take apart): the last of the middle phase. Other plugins'
    #: fusions that must see the graph unmerged say ``run_before`` this id.
    run_after = (*AFTER_LAYOUT, *FUSIONS)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        seen: dict[Hashable, Node] = {}
        merged = []
        for node in graph.topological_order():
            if ctx.is_frozen(node):
                continue
            op_key = _op_key(node)
            if op_key is None:
                continue
            inputs = []
            for port in node.in_ports():
                source = port.get_source() if port.is_connected() else None
                inputs.append(None if source is None else (source.node.id, source.idx))
            key = (op_key, tuple(inputs))
            first = seen.setdefault(key, node)
            if first is node or _feeds_result(node) or node.num_outputs() != first.num_outputs():
                continue
            if isinstance(node.op, Const) and (_feeds_a_body(node) or _feeds_a_body(first)):
                continue
            for index in range(node.num_outputs()):
                node.out_port(index).get_connection().set_source(first.out_port(index))
            merged.append(node)
        graph.remove_nodes(merged)
        return bool(merged)
