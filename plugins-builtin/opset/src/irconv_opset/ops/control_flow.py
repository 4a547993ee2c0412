"""Control-flow ops: If-8, Loop-5, TensorIterator-1.

Each holds its body graph(s) as ``irconv.graph.Graph`` fields kept out of ``<data>``
(``emit=False``); the IR emitter writes them as ``<body>`` / ``<then_body>`` /
``<else_body>`` with the port maps below. Port maps refer to body Parameters and
Results by position in ``body.parameters()`` / ``body.results()`` (creation order),
as OpenVINO's own input/output descriptions do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv import narrow_float
from irconv.errors import ConversionError
from irconv.graph import Graph, TensorData
from irconv.ops import Op, Parameter, attr
from irconv.types import Dim, ElementType, MaybeShape

from irconv_opset.rules import require_length, require_rank
from irconv_opset.shapes import in_value

if TYPE_CHECKING:
    from irconv.graph import Node


#: Constant folding runs a Loop body at most this many times; longer loops stay in the IR.
MAX_FOLDED_ITERATIONS = 4096


@dataclass(frozen=True)
class SliceSpec:
    """An input cut into parts along ``axis`` per iteration, or an output concatenated so.

    ``start``/``end`` are inclusive-exclusive positions on the axis, negative ones counted
    from one past the end (``end=-1`` is the full length); ``stride`` may be negative to
    walk backwards.
    """

    axis: int
    start: int = 0
    stride: int = 1
    part_size: int = 1
    end: int = -1

    def iterations(self, length: Dim) -> Dim:
        """How many parts a tensor of ``length`` along the axis gives (None when unknown)."""
        if length is None:
            return None
        start = self.start + length + 1 if self.start < 0 else self.start
        end = self.end + length + 1 if self.end < 0 else self.end
        return abs(end - start) // abs(self.stride)


@dataclass(frozen=True)
class BodyInput:
    """Outer input ``external`` feeds body parameter number ``parameter`` (sliced or whole)."""

    external: int
    parameter: int
    sliced: SliceSpec | None = None


@dataclass(frozen=True)
class BodyOutput:
    """Body result number ``result`` gives outer output ``external`` (last value or concatenated)."""

    external: int
    result: int
    concatenated: SliceSpec | None = None


@dataclass(frozen=True)
class BackEdge:
    """After each iteration, body result ``result`` becomes body parameter ``parameter``."""

    result: int
    parameter: int


def _merge_dims(a: MaybeShape, b: MaybeShape) -> MaybeShape:
    """The shape both may have: equal dims kept, others dynamic; different ranks -> None."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))


def _axis(axis: int, shape: MaybeShape, where: str) -> int:
    if shape is None:
        return axis
    rank = len(shape)
    if not -rank <= axis < rank:
        raise ConversionError(f"{where}: axis {axis} is out of range for rank {rank}")
    return axis % rank


def _set_parameter(body: Graph, index: int, shape: MaybeShape, element_type: ElementType, where: str) -> None:
    parameters = body.parameters()
    if not 0 <= index < len(parameters):
        raise ConversionError(f"{where}: the body has no parameter number {index} (it has {len(parameters)})")
    op = parameters[index].op
    assert isinstance(op, Parameter)
    if op.shape != shape or op.element_type != element_type:
        op.shape = shape
        op.element_type = element_type


def _result_data(body: Graph, index: int, where: str) -> TensorData:
    results = body.results()
    if not 0 <= index < len(results):
        raise ConversionError(f"{where}: the body has no result number {index} (it has {len(results)})")
    return results[index].in_port(0).data


def _infer_body(body: Graph) -> None:
    from irconv import infer_graph

    infer_graph(body)


def run_body(body: Graph, parameters: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """Evaluate a body with NumPy: parameter values in, result values out (None if an op cannot)."""
    values: dict[tuple[int, int], np.ndarray] = {}
    positions = {node.id: i for i, node in enumerate(body.parameters())}
    results: dict[int, np.ndarray] = {}
    for node in body.topological_order():
        if node.id in positions:
            values[(node.id, 0)] = parameters[positions[node.id]]
            continue
        inputs = []
        for port in node.in_ports():
            source = port.get_source()
            assert source is not None
            inputs.append(values[(source.node.id, source.idx)])
        if node.type == "Result":
            results[node.id] = inputs[0]
            continue
        outputs = node.op.evaluate(narrow_float.widen_all(inputs))
        if outputs is None:
            return None
        for idx, value in enumerate(outputs):
            array = np.asarray(value)
            element_type = node.out_port(idx).data.get_type()
            if element_type is not ElementType.dynamic:
                array = narrow_float.cast(array, element_type)
            values[(node.id, idx)] = array
    return [results[node.id] for node in body.results()]


def _part(value: np.ndarray, spec: SliceSpec, iteration: int) -> np.ndarray:
    """The slice of ``value`` a sliced input gives on ``iteration``."""
    axis = spec.axis % value.ndim
    length = value.shape[axis]
    start = spec.start + length + 1 if spec.start < 0 else spec.start
    if spec.stride > 0:
        begin = start + iteration * spec.stride
    else:
        begin = start - (iteration + 1) * abs(spec.stride) - (spec.part_size - abs(spec.stride))
    index = [slice(None)] * value.ndim
    index[axis] = slice(begin, begin + spec.part_size)
    return value[tuple(index)]


def _iterate_values(
    body: Graph,
    inputs: Sequence[BodyInput],
    outputs: Sequence[BodyOutput],
    back_edges: Sequence[BackEdge],
    outer: Sequence[np.ndarray],
    iterations: int,
    current_iteration: int = -1,
    condition_output: int = -1,
) -> list[np.ndarray] | None:
    """Run a TensorIterator/Loop body ``iterations`` times (a Loop may stop early)."""
    count = len(body.parameters())
    state: list[np.ndarray | None] = [None] * count
    for item in inputs:
        if item.sliced is None:
            state[item.parameter] = outer[item.external]
    gathered: list[list[np.ndarray]] = [[] for _ in outputs]
    last: list[np.ndarray | None] = [None] * len(outputs)
    for iteration in range(iterations):
        for item in inputs:
            if item.sliced is not None:
                state[item.parameter] = _part(outer[item.external], item.sliced, iteration)
        if current_iteration >= 0:
            counter = body.parameters()[current_iteration].op
            assert isinstance(counter, Parameter)
            dims = tuple(d for d in counter.shape or () if d is not None)
            if len(dims) < len(counter.shape or ()):
                return None  # a counter of unknown size is not evaluated
            state[current_iteration] = np.full(dims, iteration, counter.element_type.numpy)
        values = [v for v in state if v is not None]
        if len(values) < len(state):
            return None
        produced = run_body(body, values)
        if produced is None:
            return None
        for i, out in enumerate(outputs):
            last[i] = produced[out.result]
            gathered[i].append(produced[out.result])
        for edge in back_edges:
            state[edge.parameter] = produced[edge.result]
        if condition_output >= 0 and not bool(np.asarray(produced[condition_output]).reshape(-1)[0]):
            break
    result = []
    for i, out in enumerate(outputs):
        if out.concatenated is not None:
            parts = gathered[i][::-1] if out.concatenated.stride < 0 else gathered[i]
            if not parts:
                return None
            result.append(np.concatenate(parts, axis=out.concatenated.axis % parts[0].ndim))
        else:
            value = last[i]
            if value is None:
                return None
            result.append(value)
    return _by_external(outputs, result)


def _by_external(outputs: Sequence[BodyOutput], values: Sequence[np.ndarray]) -> list[np.ndarray]:
    ordered = sorted(zip((o.external for o in outputs), values, strict=True), key=lambda pair: pair[0])
    return [value for _, value in ordered]


def _feed_inputs(node: Node, body: Graph, inputs: Sequence[BodyInput]) -> None:
    where = f"{node.name} ({node.op.describe()})"
    for item in inputs:
        data = node.in_port(item.external).data
        shape = data.get_shape()
        if item.sliced is not None and shape is not None:
            axis = _axis(item.sliced.axis, shape, where)
            shape = tuple(abs(item.sliced.part_size) if i == axis else d for i, d in enumerate(shape))
        _set_parameter(body, item.parameter, shape, data.get_type(), where)


def _iterate_body(node: Node, body: Graph, inputs: Sequence[BodyInput], back_edges: Sequence[BackEdge]) -> None:
    """Infer the body; widen merged parameters whose back edge brings a different shape."""
    _feed_inputs(node, body, inputs)
    _infer_body(body)
    where = f"{node.name} ({node.op.describe()})"
    for _ in range(2):
        changed = False
        for edge in back_edges:
            param = body.parameters()[edge.parameter].op
            assert isinstance(param, Parameter)
            result = _result_data(body, edge.result, where)
            merged = _merge_dims(param.shape, result.get_shape())
            if merged != param.shape:
                param.shape = merged
                changed = True
        if not changed:
            return
        _infer_body(body)


#: The int64 maximum: OpenVINO's upper bound of an unbounded dim, so never a static length.
_UNBOUNDED_DIM = int(np.iinfo(np.int64).max)


def _set_outputs(node: Node, body: Graph, outputs: Sequence[BodyOutput], iterations: Dim) -> None:
    where = f"{node.name} ({node.op.describe()})"
    for item in outputs:
        data = _result_data(body, item.result, where)
        shape = data.get_shape()
        if item.concatenated is not None and shape is not None:
            axis = _axis(item.concatenated.axis, shape, where)
            part = shape[axis]
            total = None if part is None or iterations is None else part * iterations
            if total is not None and total >= _UNBOUNDED_DIM:
                total = None  # the runtime reads such a dim as dynamic
            shape = tuple(total if i == axis else d for i, d in enumerate(shape))
        out = node.out_port(item.external).data
        out.set_shape(shape)
        out.set_type(data.get_type())


@dataclass(eq=False)
class TensorIterator(Op):
    """Runs ``body`` once per slice of its sliced inputs."""

    type = "TensorIterator"
    version = 1
    arity = (0, None)

    body: Graph = attr(factory=Graph, emit=False)
    input_map: tuple[BodyInput, ...] = attr((), emit=False)
    output_map: tuple[BodyOutput, ...] = attr((), emit=False)
    back_edges: tuple[BackEdge, ...] = attr((), emit=False)

    def num_outputs(self) -> int:
        return max((o.external for o in self.output_map), default=-1) + 1

    def iterations(self, node: Node) -> Dim:
        counts = set()
        for item in self.input_map:
            if item.sliced is None:
                continue
            shape = node.in_port(item.external).data.get_shape()
            if shape is None:
                return None
            axis = _axis(item.sliced.axis, shape, node.name)
            counts.add(item.sliced.iterations(shape[axis]))
        return counts.pop() if len(counts) == 1 else None

    def infer(self, node: Node) -> None:
        _iterate_body(node, self.body, self.input_map, self.back_edges)
        _set_outputs(node, self.body, self.output_map, self.iterations(node))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray] | None:
        counts = {
            item.sliced.iterations(inputs[item.external].shape[item.sliced.axis % inputs[item.external].ndim])
            for item in self.input_map
            if item.sliced is not None
        }
        if len(counts) != 1:
            return None
        return _iterate_values(self.body, self.input_map, self.output_map, self.back_edges, inputs, counts.pop() or 0)


@dataclass(eq=False)
class Loop(Op):
    """Runs ``body`` while the condition holds, at most ``trip count`` times.

    Inputs 0 and 1 are the trip count and the initial condition; ``current_iteration``
    is the body parameter receiving the iteration number (-1: none) and
    ``condition_output`` the body result giving the next condition.
    """

    type = "Loop"
    version = 5
    arity = (2, None)

    body: Graph = attr(factory=Graph, emit=False)
    input_map: tuple[BodyInput, ...] = attr((), emit=False)
    output_map: tuple[BodyOutput, ...] = attr((), emit=False)
    back_edges: tuple[BackEdge, ...] = attr((), emit=False)
    current_iteration: int = attr(-1, emit=False)
    condition_output: int = attr(-1, emit=False)

    def num_outputs(self) -> int:
        return max((o.external for o in self.output_map), default=-1) + 1

    def iterations(self, node: Node) -> Dim:
        """The trip count when it is constant and the body's condition is constant true."""
        trip = in_value(node, 0)
        if trip is None or int(trip.reshape(-1)[0]) < 0:
            return None
        if self.condition_output >= 0:
            condition = _result_data(self.body, self.condition_output, node.name).get_value()
            if condition is None or not bool(condition.reshape(-1)[0]):
                return None
        initial = in_value(node, 1) if node.has_input(1) else None
        if initial is not None and not bool(initial.reshape(-1)[0]):
            return 0
        return int(trip.reshape(-1)[0])

    def infer(self, node: Node) -> None:
        _iterate_body(node, self.body, self.input_map, self.back_edges)
        _set_outputs(node, self.body, self.output_map, self.iterations(node))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray] | None:
        trip = int(np.asarray(inputs[0]).reshape(-1)[0])
        if len(inputs) > 1 and not bool(np.asarray(inputs[1]).reshape(-1)[0]):
            return None  # no iteration: "last value" outputs would be undefined
        if trip < 0 or trip > MAX_FOLDED_ITERATIONS:
            return None  # open-ended or too long to fold at conversion time
        return _iterate_values(
            self.body,
            self.input_map,
            self.output_map,
            self.back_edges,
            inputs,
            trip,
            self.current_iteration,
            self.condition_output,
        )


@dataclass(eq=False)
class If(Op):
    """Runs ``then_body`` or ``else_body`` on input 0's boolean value."""

    type = "If"
    version = 8
    arity = (1, None)

    then_body: Graph = attr(factory=Graph, emit=False)
    else_body: Graph = attr(factory=Graph, emit=False)
    then_inputs: tuple[BodyInput, ...] = attr((), emit=False)
    else_inputs: tuple[BodyInput, ...] = attr((), emit=False)
    then_outputs: tuple[BodyOutput, ...] = attr((), emit=False)
    else_outputs: tuple[BodyOutput, ...] = attr((), emit=False)

    def num_outputs(self) -> int:
        return max((o.external for o in (*self.then_outputs, *self.else_outputs)), default=-1) + 1

    def infer(self, node: Node) -> None:
        require_rank(node, 0, "condition", 0, 1)
        require_length(node, 0, "condition", 1)
        where = f"{node.name} ({self.describe()})"
        _feed_inputs(node, self.then_body, self.then_inputs)
        _feed_inputs(node, self.else_body, self.else_inputs)
        _infer_body(self.then_body)
        _infer_body(self.else_body)
        then_by_port = {o.external: _result_data(self.then_body, o.result, where) for o in self.then_outputs}
        else_by_port = {o.external: _result_data(self.else_body, o.result, where) for o in self.else_outputs}
        condition = in_value(node, 0)
        for port in range(self.num_outputs()):
            a, b = then_by_port.get(port), else_by_port.get(port)
            if a is None or b is None:
                raise ConversionError(f"{where}: output {port} is not produced by both branches")
            known = {t for t in (a.get_type(), b.get_type()) if t is not ElementType.dynamic}
            if len(known) > 1:  # the runtime merges the branches' types, whatever the condition
                raise ConversionError(f"{where}: output {port} is {a.get_type().value} in the then branch "
                                      f"but {b.get_type().value} in the else branch")
            if condition is not None:
                chosen = a if bool(condition.reshape(-1)[0]) else b
                shape, element_type = chosen.get_shape(), chosen.get_type()
            else:
                shape = _merge_dims(a.get_shape(), b.get_shape())
                element_type = a.get_type() if a.get_type() == b.get_type() else ElementType.dynamic
            out = node.out_port(port).data
            out.set_shape(shape)
            out.set_type(element_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray] | None:
        if bool(np.asarray(inputs[0]).reshape(-1)[0]):
            body, body_inputs, body_outputs = self.then_body, self.then_inputs, self.then_outputs
        else:
            body, body_inputs, body_outputs = self.else_body, self.else_inputs, self.else_outputs
        parameters: list[np.ndarray | None] = [None] * len(body.parameters())
        for item in body_inputs:
            parameters[item.parameter] = inputs[item.external]
        values = [p for p in parameters if p is not None]
        if len(values) < len(parameters):
            return None
        produced = run_body(body, values)
        if produced is None:
            return None
        return _by_external(body_outputs, [produced[o.result] for o in body_outputs])


OPS: tuple[type, ...] = (TensorIterator, Loop, If)
