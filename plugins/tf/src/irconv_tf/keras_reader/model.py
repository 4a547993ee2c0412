"""A Keras model config as an irconv graph: one source op per layer call.

Functional and Sequential models nested in the model are inlined (their layers become
nodes named ``outer/inner``), so the extractors only ever see leaf layers. The config is
trusted for structure only: anything outside the forms Keras writes is ``NotReadable``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from irconv.errors import quoted, shortened
from irconv.graph import Graph, OutPort
from irconv.graph.budget import PORT_BYTES, declared_size
from irconv.ops import Parameter, Result, SourceOp
from irconv.ops.source import MappingAttributes
from irconv.types import ElementType, MaybeShape

from irconv_tf.keras_reader import FRAMEWORK
from irconv_tf.keras_reader.archive import KerasArchive, NotReadable, weight_groups

MODEL_CLASSES = ("Functional", "Sequential")
_TENSOR = "__keras_tensor__"


@dataclass
class KerasLayer:
    """What an extractor reads of one layer call besides the layer's config (``ctx.attrs``)."""

    name: str
    class_name: str
    #: The layer's arrays by their path in the weights file below the layer (``vars/0``).
    weights: dict[str, np.ndarray]
    #: Which call argument feeds each input port: ``"0"``, ``"1"`` for positional tensors
    #: (lists flattened), the keyword for the others (``"key"``).
    arguments: list[str] = field(default_factory=list)
    #: The call's other keyword arguments (``{"training": False}``).
    call: dict[str, Any] = field(default_factory=dict)
    #: The shapes Keras recorded for the call's outputs (None where no layer reads one).
    output_shapes: list[MaybeShape] = field(default_factory=list)

    def variables(self, under: str = "") -> list[np.ndarray]:
        """The layer's (or a sub-object's, ``under="cell"``) variables in creation order."""
        prefix = f"{under}/vars/" if under else "vars/"
        found = {
            int(k[len(prefix) :]): v
            for k, v in self.weights.items()
            if k.startswith(prefix) and "/" not in k[len(prefix) :]
        }
        return [found[i] for i in sorted(found)]


Ref = tuple[str, int, int]  # (layer name, call index, output index), Keras' keras_history


def _ref(value: Any) -> Ref:
    if not (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)):
        raise NotReadable(f"unexpected tensor reference {shortened(repr(value))}")
    return (value[0], int(value[1]), int(value[2]))


def _refs(value: Any) -> list[Ref]:
    """``input_layers``/``output_layers``: one reference or a list of them."""
    if isinstance(value, list) and value and isinstance(value[0], str):
        return [_ref(value)]
    if isinstance(value, dict):
        return [_ref(v) for v in value.values()]
    if not isinstance(value, list):
        raise NotReadable(f"unexpected model inputs/outputs {shortened(repr(value))}")
    return [_ref(v) for v in value]


def _tensors(value: Any, key: str) -> Iterator[tuple[str, Ref]]:
    """The tensors of a call argument, flattened, with the argument they belong to."""
    for argument, ref, _ in _shaped_tensors(value, key):
        yield argument, ref


def _shaped_tensors(value: Any, key: str) -> Iterator[tuple[str, Ref, MaybeShape]]:
    """As ``_tensors``, with the shape Keras recorded for each tensor."""
    if isinstance(value, dict) and value.get("class_name") == _TENSOR:
        config = value.get("config") or {}
        shape = config.get("shape")
        dims = tuple(None if d is None else int(d) for d in shape) if isinstance(shape, list) else None
        yield key, _ref(config.get("keras_history")), dims
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _shaped_tensors(item, key)


def _has_tensor(value: Any) -> bool:
    return any(True for _ in _tensors(value, ""))


def element_type(dtype: Any, where: str) -> ElementType:
    try:
        return ElementType.parse(str(dtype or "float32"))
    except ValueError:
        raise NotReadable(f"{where}: dtype {shortened(repr(dtype))}") from None


class GraphBuilder:
    """Adds the layers of a model config (and of the models nested in it) to a graph."""

    def __init__(self, graph: Graph, archive: KerasArchive) -> None:
        self.graph = graph
        self.archive = archive
        #: Keras' shapes of the current Functional container's tensors.
        self.shapes: dict[Ref, MaybeShape] = {}

    def model(
        self,
        spec: dict[str, Any],
        prefix: str,
        weight_path: str,
        inputs: list[OutPort] | None,
        output_shapes: list[MaybeShape] | None = None,
    ) -> list[OutPort]:
        """The output tensors of a Functional/Sequential config; ``inputs`` None makes
        its input layers model Parameters. ``output_shapes``: what the enclosing model
        recorded for the outputs (a nested model's own config does not say)."""
        config = spec.get("config")
        if not isinstance(config, dict) or not isinstance(config.get("layers"), list):
            raise NotReadable(f"model {shortened(repr(spec.get('class_name')))} has no layer list")
        outer = self.shapes
        try:
            if spec.get("class_name") == "Sequential":
                return self._sequential(config, prefix, weight_path, inputs, output_shapes or [])
            return self._functional(config, prefix, weight_path, inputs, output_shapes or [])
        finally:
            self.shapes = outer

    # ------------------------------------------------------------------ containers
    def _sequential(
        self,
        config: dict[str, Any],
        prefix: str,
        weight_path: str,
        inputs: list[OutPort] | None,
        output_shapes: list[MaybeShape],
    ) -> list[OutPort]:
        layers = config["layers"]
        first = layers[0] if layers else None
        if first is not None and first.get("class_name") == "InputLayer":
            layers = layers[1:]
        if inputs is None:
            if first is None or first.get("class_name") != "InputLayer":
                shape = config.get("build_input_shape") or (config.get("build_config") or {}).get("input_shape")
                if shape is None:
                    raise NotReadable("a Sequential model without an input shape")
                first = {"class_name": "InputLayer", "config": {"name": "input", "batch_shape": shape}}
            inputs = [self._parameter(first)]
        if len(inputs) != 1:
            raise NotReadable("a Sequential model called with several tensors")
        current = inputs
        self.shapes = {}
        for layer, after in zip(layers, layers[1:], strict=False):  # a layer's output: the next one's build input
            shape = (after.get("build_config") or {}).get("input_shape")
            if isinstance(shape, list) and all(d is None or isinstance(d, int) for d in shape):
                self.shapes[(_name(layer), 0, 0)] = tuple(shape)
        if layers and output_shapes:
            self.shapes[(_name(layers[-1]), 0, 0)] = output_shapes[0]
        # Sequential.layers leaves the InputLayer out: so does the weights file's numbering
        groups = weight_groups([layer.get("class_name", "") for layer in layers])
        for layer, group in zip(layers, groups, strict=True):
            current = self._call(layer, f"{weight_path}/{group}", prefix, 0, current, ["0"], {}, 1)
            if len(current) != 1:
                raise NotReadable(f"layer {shortened(repr(layer.get('name')))} of a Sequential model gives several outputs")
        return current

    def _functional(
        self,
        config: dict[str, Any],
        prefix: str,
        weight_path: str,
        inputs: list[OutPort] | None,
        output_shapes: list[MaybeShape],
    ) -> list[OutPort]:
        layers = config["layers"]
        input_refs = _refs(config.get("input_layers", []))
        output_refs = _refs(config.get("output_layers", []))
        if inputs is not None and len(inputs) != len(input_refs):
            raise NotReadable(f"a nested model with {len(input_refs)} inputs called with {len(inputs)}")
        classes = [layer.get("class_name", "") for layer in layers]
        groups = dict(zip((id(layer) for layer in layers), weight_groups(classes), strict=True))
        counts = _output_counts(layers, output_refs)
        self.shapes = _recorded_shapes(layers)
        for ref, shape in zip(output_refs, output_shapes, strict=False):
            self.shapes.setdefault(ref, shape)
        produced: dict[Ref, OutPort] = {}
        pending: list[tuple[dict[str, Any], int, dict[str, Any]]] = []
        for layer in layers:
            name = _name(layer)
            if layer.get("class_name") == "InputLayer":
                position = [i for i, ref in enumerate(input_refs) if ref[0] == name]
                if inputs is not None and position:
                    produced[(name, 0, 0)] = inputs[position[0]]
                else:
                    produced[(name, 0, 0)] = self._parameter(layer)
                continue
            for index, inbound in enumerate(layer.get("inbound_nodes") or []):
                pending.append((layer, index, inbound))
        while pending:
            waiting = []
            for layer, index, inbound in pending:
                arguments, refs, call = _call_arguments(inbound, _name(layer))
                if any(ref not in produced for ref in refs):
                    waiting.append((layer, index, inbound))
                    continue
                name = _name(layer)
                outs = self._call(
                    layer,
                    f"{weight_path}/{groups[id(layer)]}",
                    prefix,
                    index,
                    [produced[r] for r in refs],
                    arguments,
                    call,
                    counts.get((name, index), 1),
                )
                for i, port in enumerate(outs):
                    produced[(name, index, i)] = port
            if len(waiting) == len(pending):
                missing = next(r for _, _, inb in waiting for r in _call_arguments(inb, "")[1] if r not in produced)
                raise NotReadable(f"layer {shortened(repr(_name(waiting[0][0])))} reads tensor {shortened(repr(missing))}, which no layer makes")
            pending = waiting
        try:
            return [produced[ref] for ref in output_refs]
        except KeyError as exc:
            raise NotReadable(f"model output {shortened(repr(exc.args[0]))} is made by no layer") from None

    # ------------------------------------------------------------------ nodes
    def _parameter(self, layer: dict[str, Any]) -> OutPort:
        config = layer.get("config") or {}
        name = _name(layer)
        shape = config.get("batch_shape") or config.get("batch_input_shape")
        if not isinstance(shape, list):
            raise NotReadable(f"input layer {shortened(repr(name))} has no batch_shape")
        if config.get("sparse") or config.get("ragged"):
            raise NotReadable(f"input layer {shortened(repr(name))} is sparse or ragged")
        dims: MaybeShape = tuple(None if d is None else int(d) for d in shape)
        node = self.graph.add_node(Parameter(dims, element_type(config.get("dtype"), f"input {shortened(repr(name))}")), name)
        node.origin = name
        port = node.out_port(0)
        port.data.add_name(name)
        return port

    def _call(
        self,
        layer: dict[str, Any],
        weight_path: str,
        prefix: str,
        index: int,
        inputs: list[OutPort],
        arguments: list[str],
        call: dict[str, Any],
        n_outputs: int,
    ) -> list[OutPort]:
        class_name = layer.get("class_name")
        name = _name(layer)
        if not isinstance(class_name, str):
            raise NotReadable(f"layer {shortened(repr(name))} has no class name")
        call_name = f"{prefix}{name}" + (f"_{index}" if index else "")
        shapes = [self.shapes.get((name, index, i)) for i in range(n_outputs)]
        if class_name in MODEL_CLASSES:
            return self.model(layer, f"{call_name}/", f"{weight_path}/layers", inputs, shapes)
        config = layer.get("config")
        if not isinstance(config, dict):
            raise NotReadable(f"layer {shortened(repr(name))} has no config")
        record = KerasLayer(name, class_name, self.archive.weights.under(weight_path), arguments, call, shapes)
        op = SourceOp(
            framework=FRAMEWORK,
            op_type=class_name,
            n_outputs=n_outputs,
            source=record,
            attributes=MappingAttributes(config),
        )
        node = self.graph.add_node(op, call_name, inputs)
        node.origin = node.name
        return [node.out_port(i) for i in range(n_outputs)]


def _name(layer: dict[str, Any]) -> str:
    name = layer.get("name") or (layer.get("config") or {}).get("name")
    if not isinstance(name, str):
        raise NotReadable("a layer without a name")
    return name


def _call_arguments(inbound: Any, layer: str) -> tuple[list[str], list[Ref], dict[str, Any]]:
    """A call's tensors (argument names, references) and its other keyword arguments."""
    if not isinstance(inbound, dict):
        raise NotReadable(f"layer {shortened(repr(layer))}: inbound node in an older Keras form")
    arguments: list[str] = []
    refs: list[Ref] = []
    for value in inbound.get("args") or []:
        if value is not None and not _has_tensor(value):
            raise NotReadable(f"layer {shortened(repr(layer))} is called with {shortened(repr(value))} as a positional argument")
        for _, ref in _tensors(value, ""):
            arguments.append(str(len(arguments)))  # positional tensors, lists flattened
            refs.append(ref)
    call = {}
    for key, value in (inbound.get("kwargs") or {}).items():
        if _has_tensor(value):
            for argument, ref in _tensors(value, key):
                arguments.append(argument)
                refs.append(ref)
        else:
            call[key] = value
    return arguments, refs, call


def _recorded_shapes(layers: list[dict[str, Any]]) -> dict[Ref, MaybeShape]:
    found: dict[Ref, MaybeShape] = {}
    for layer in layers:
        for inbound in layer.get("inbound_nodes") or []:
            if isinstance(inbound, dict):
                for value in [*(inbound.get("args") or []), *(inbound.get("kwargs") or {}).values()]:
                    for _, ref, shape in _shaped_tensors(value, ""):
                        found[ref] = shape
    return found


def _output_counts(layers: list[dict[str, Any]], outputs: list[Ref]) -> dict[tuple[str, int], int]:
    """How many outputs each layer call has, from the references to them."""
    counts: dict[tuple[str, int], int] = {}
    refs = list(outputs)
    for layer in layers:
        for inbound in layer.get("inbound_nodes") or []:
            refs += _call_arguments(inbound, _name(layer))[1]
    for name, index, tensor in refs:
        # the reference's output index is a count the file declares: each output becomes a graph port
        last = declared_size(
            tensor,
            field="keras_history output index",
            where=f"layer {quoted(name)} call {index}",
            unit_bytes=PORT_BYTES,
        )
        counts[(name, index)] = max(counts.get((name, index), 1), last + 1)
    return counts


def build_graph(archive: KerasArchive, name: str) -> Graph:
    """The graph of the archive's model: Parameters, one source op per layer call, Results
    named after the output layers."""
    spec = archive.config
    if spec.get("class_name") not in MODEL_CLASSES:
        raise NotReadable(f"the file holds a {shortened(repr(spec.get('class_name')))}, not a Functional or Sequential model")
    graph = Graph(name, FRAMEWORK)
    outputs = GraphBuilder(graph, archive).model(spec, "", "layers", None)
    for port in outputs:
        label = port.node.name if port.idx == 0 else f"{port.node.name}:{port.idx}"
        port.data.add_name(label)
        graph.add_node(Result(), f"{label}/sink", [port])
    return graph
