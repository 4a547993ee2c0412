"""Build an irconv graph from a ``.tflite`` model.

Quantized models are represented in the float domain, the form OpenVINO's low-precision
pipeline turns back into int8: every quantized activation tensor is the float output of
its operator followed by a ``QUANTIZED_TENSOR`` node (a FakeQuantize on the tensor's
grid); quantized constants become their real values (weights are stored as int8 again by
``tflite.int8_weights``); an int8/uint8 model input is dequantized after its Parameter
and an int8/uint8 model output quantized before its Result. These three pseudo-operators
(domain ``irconv.tflite``) are made here and extracted like any operator.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from irconv import MetaKey
from irconv.errors import ModelFileError, quoted
from irconv.graph import Graph, OutPort
from irconv.ops import Const, Parameter, Result, SourceOp
from irconv.ops.source import MappingAttributes
from irconv.types import ElementType

from irconv_tflite import FRAMEWORK
from irconv_tflite.attributes import builtin_attributes, custom_attributes
from irconv_tflite.model import Operator, Quantization, Subgraph, Tensor, TfliteModel, read_tflite
from irconv_tflite.schema import tflite_generated as fb

#: Domain of the loader's own pseudo-operators; custom operators use ``custom``.
PSEUDO = "irconv.tflite"
CUSTOM = "custom"

MODEL: MetaKey[TfliteModel] = MetaKey("tflite.model", TfliteModel, doc="keeps the .tflite file mapped")

#: Tensor types whose quantized values are integers on a grid (activations and weights).
QUANTIZED_TYPES = {fb.TensorType.INT8: ElementType.i8, fb.TensorType.UINT8: ElementType.u8,
                   fb.TensorType.INT16: ElementType.i16}
#: Types of quantized constants: also the int32 biases of int8 models, int64 of int16 ones.
_GRID_TYPES = (*QUANTIZED_TYPES, fb.TensorType.INT32, fb.TensorType.INT64)
ELEMENT_TYPES = {
    fb.TensorType.FLOAT32: ElementType.f32, fb.TensorType.FLOAT16: ElementType.f16,
    fb.TensorType.INT32: ElementType.i32, fb.TensorType.INT64: ElementType.i64,
    fb.TensorType.BOOL: ElementType.boolean, **QUANTIZED_TYPES,
}


@dataclass(frozen=True, slots=True)
class OperatorSource:
    """What an extractor may need beyond the options: the tensors the operator reads and
    writes, with their types and quantization."""

    operator_index: int
    inputs: tuple[Tensor | None, ...]
    outputs: tuple[Tensor, ...]
    subgraph: Subgraph


def quantized(tensor: Tensor) -> Quantization | None:
    """The tensor's quantization when its integers stand for real values on a grid."""
    if tensor.quantization is None or tensor.type not in _GRID_TYPES:
        return None
    scale = tensor.quantization.scale
    positive = (scale > 0).all() or tensor.type not in QUANTIZED_TYPES  # (int32/64 tensors may carry a 0)
    if not (np.isfinite(scale).all() and positive):
        # A grid step of 0, below 0 or not a number maps no integer to a real value (a
        # division by it is NaN): the file is damaged.
        raise ModelFileError(
            f"tensor {quoted(tensor.name)} is quantized with the scale(s) {scale.reshape(-1)[:4].tolist()}; "
            "a scale must be a positive finite number (the file is damaged: convert the model again)"
        )
    return tensor.quantization


def dequantized(tensor: Tensor) -> np.ndarray:
    """A quantized constant's real values (``scale * (q - zero_point)``) in f32."""
    assert tensor.data is not None and tensor.quantization is not None
    q = tensor.quantization
    data = tensor.data
    scale, zero = q.scale.astype(np.float32), q.zero_point.astype(np.float32)
    if q.per_channel:
        shape = [1] * data.ndim
        shape[q.axis] = -1
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    elif data.ndim == 0:  # a scalar constant: its grid's one value, 0-d too (in place needs it)
        scale, zero = scale.reshape(()), zero.reshape(())
    real = data.astype(np.float32)  # one array: every step in place
    real -= zero
    real *= scale
    return real


def load_tflite(path: Path) -> Graph:
    model = read_tflite(path)
    graph = Graph(path.stem, FRAMEWORK)
    graph.meta[MODEL] = model
    signature = model.signatures[0] if model.signatures else None
    main = model.subgraphs[signature.subgraph if signature else 0]
    _GraphBuilder(graph, model, main).build()
    return graph


class _GraphBuilder:
    """Adds one TFLite sub-graph's operators to ``graph``: as the model itself (``build``:
    Parameters and Results), or inlined over given input ports (``inline``), which is how
    control-flow bodies and WHILE conditions are made."""

    def __init__(self, graph: Graph, model: TfliteModel, subgraph: Subgraph) -> None:
        self.graph = graph
        self.model = model
        self.subgraph = subgraph
        self.signature = model.signature_for(subgraph.index)
        self.producers: dict[int, OutPort] = {}

    def build(self) -> None:
        for index in self.subgraph.inputs:
            self._add_input(self.subgraph.tensors[index])
        for index, port in zip(self.subgraph.outputs, self._run(), strict=True):
            self._add_output(self.subgraph.tensors[index], port)

    def inline(self, inputs: list[OutPort]) -> list[OutPort]:
        """The sub-graph's outputs computed from ``inputs`` (its inputs, in order)."""
        if len(inputs) != len(self.subgraph.inputs):
            raise ModelFileError(f"{self.model.path}: sub-graph {quoted(self.subgraph.name)} takes "
                                 f"{len(self.subgraph.inputs)} inputs, its caller gives {len(inputs)}")
        self.producers.update(zip(self.subgraph.inputs, inputs, strict=True))
        return self._run()

    def _run(self) -> list[OutPort]:
        for op in self.subgraph.operators:
            self._add_operator(op)
        if not self.subgraph.outputs:
            raise ModelFileError(f"{self.model.path}: sub-graph {quoted(self.subgraph.name)} declares no outputs")
        return [self._source(self.subgraph.tensors[index]) for index in self.subgraph.outputs]

    def _body(self, index: int, name: str, then: int | None = None) -> Graph:
        """Sub-graph ``index`` as a body graph: a Parameter per input, a Result per output;
        with ``then``, sub-graph ``then`` (a WHILE condition) runs on those outputs and its
        result comes first."""
        sub = self.model.subgraphs[index]
        body = Graph(f"{self.graph.name}/{name}", FRAMEWORK)
        params = []
        for tensor_index in sub.inputs:
            tensor = sub.tensors[tensor_index]
            element = ElementType.f32 if quantized(tensor) is not None else ELEMENT_TYPES.get(tensor.type)
            if element is None:
                raise ModelFileError(f"{self.model.path}: sub-graph {quoted(sub.name)} input {quoted(tensor.name)} has type "
                                     f"{tensor.type_name}, which irconv cannot pass")
            params.append(body.add_node(Parameter(tensor.shape, element), tensor.name).out_port(0))
        outputs = _GraphBuilder(body, self.model, sub).inline(params)
        if then is not None:
            outputs = _GraphBuilder(body, self.model, self.model.subgraphs[then]).inline(outputs)[:1] + outputs
        for i, port in enumerate(outputs):
            body.add_node(Result(), f"{body.name}/out{i}", [port])
        return body

    # ------------------------------------------------------------------ names
    def _alias(self, tensor: Tensor, aliases: dict[int, str] | None) -> str:
        return aliases.get(tensor.index, tensor.name) if aliases else tensor.name

    # ------------------------------------------------------------------ inputs and outputs
    def _add_input(self, tensor: Tensor) -> None:
        element = ELEMENT_TYPES.get(tensor.type)
        if element is None:
            raise ModelFileError(f"{self.model.path}: input {quoted(tensor.name)} has type {tensor.type_name}, "
                                 "which irconv cannot feed")
        name = self._alias(tensor, self.signature.inputs if self.signature else None)
        node = self.graph.add_node(Parameter(tensor.shape, element), name)
        port = node.out_port(0)
        port.data.add_name(name)
        if name != tensor.name:
            port.data.add_name(tensor.name)
        if quantized(tensor) is not None and tensor.type in QUANTIZED_TYPES:
            port = self._pseudo("DEQUANTIZE_INPUT", tensor, port)
        self.producers[tensor.index] = port

    def _add_output(self, tensor: Tensor, port: OutPort) -> None:
        name = self._alias(tensor, self.signature.outputs if self.signature else None)
        if quantized(tensor) is not None and tensor.type in QUANTIZED_TYPES:
            port = self._pseudo("QUANTIZE_OUTPUT", tensor, port)
        port.data.add_name(name)
        port.data.add_name(tensor.name)
        self.graph.add_node(Result(), f"{name}/sink", [port])

    # ------------------------------------------------------------------ tensors
    def _source(self, tensor: Tensor) -> OutPort:
        found = self.producers.get(tensor.index)
        if found is not None:
            return found
        if tensor.data is None and tensor.is_variable:
            return self._initial_state(tensor)
        if tensor.data is None:
            raise ModelFileError(f"{self.model.path}: tensor {quoted(tensor.name)} is read before any operator "
                                 "writes it and holds no data")
        value = dequantized(tensor) if quantized(tensor) is not None else tensor.data
        node = self.graph.add_node(Const(value), tensor.name)
        node.out_port(0).data.set_value(value)
        self.producers[tensor.index] = node.out_port(0)
        return node.out_port(0)

    def _initial_state(self, tensor: Tensor) -> OutPort:
        """A variable tensor without data (an LSTM's or RNN's state): TFLite starts it at
        zeros on every fresh interpreter, and the model's operators read that value."""
        element = ELEMENT_TYPES.get(tensor.type)
        if tensor.shape is None or None in tensor.shape or element is None:
            raise ModelFileError(f"{self.model.path}: variable tensor {quoted(tensor.name)} needs a static shape and a "
                                 f"numeric type to start from zeros (it has {tensor.shape}, {tensor.type_name})")
        dtype = np.float32 if quantized(tensor) is not None else element.numpy
        value = np.zeros([int(d) for d in tensor.shape if d is not None], dtype)
        node = self.graph.add_node(Const(value), tensor.name)
        node.out_port(0).data.set_value(value)
        self.producers[tensor.index] = node.out_port(0)
        return node.out_port(0)

    def _pseudo(self, op_type: str, tensor: Tensor, port: OutPort) -> OutPort:
        """One of the loader's quantization pseudo-operators on ``port`` (for ``tensor``)."""
        q = tensor.quantization
        assert q is not None
        attributes = MappingAttributes({
            "scale": q.scale, "zero_point": q.zero_point, "axis": q.axis,
            "element_type": QUANTIZED_TYPES[tensor.type].value,
        })
        source = OperatorSource(-1, (tensor,), (tensor,), self.subgraph)
        op = SourceOp(framework=FRAMEWORK, op_type=op_type, domain=PSEUDO, source=source, attributes=attributes)
        return self.graph.add_node(op, f"{tensor.name}/{op_type.lower()}", [port]).out_port(0)

    # ------------------------------------------------------------------ operators
    def _add_operator(self, op: Operator) -> None:
        tensors = self.subgraph.tensors
        inputs = tuple(None if i < 0 else tensors[i] for i in op.inputs)
        outputs = tuple(tensors[i] for i in op.outputs)
        for tensor in outputs:
            if tensor.index in self.producers:
                raise ModelFileError(f"{self.model.path}: tensor {quoted(tensor.name)} is written twice "
                                     f"(operator {op.index}, {op.op_type})")
        ports = [None if t is None else self._source(t) for t in inputs]
        attributes = (custom_attributes(op.op_type, op.custom_options) if op.custom
                      else builtin_attributes(op.options_type, op.options))
        bodies: dict[str, Graph] = {}
        if op.op_type == "IF":
            bodies = {"then": self._body(attributes.get("then_subgraph_index"), f"{outputs[0].name}/then"),
                      "else": self._body(attributes.get("else_subgraph_index"), f"{outputs[0].name}/else")}
        elif op.op_type == "WHILE":
            cond, body = attributes.get("cond_subgraph_index"), attributes.get("body_subgraph_index")
            # the first test runs before the loop: the condition inlined over the initial values
            carried = [p for p in ports if p is not None]
            first = _GraphBuilder(self.graph, self.model, self.model.subgraphs[cond]).inline(carried)[:1]
            ports = [*first, *carried]
            bodies = {"body": self._body(body, f"{outputs[0].name}/body", then=cond)}
        source_op = SourceOp(
            framework=FRAMEWORK,
            op_type=op.op_type,
            domain=CUSTOM if op.custom else "",
            opset_version=op.version,
            n_outputs=len(outputs),
            source=OperatorSource(op.index, inputs, outputs, self.subgraph),
            attributes=attributes,
            **({"bodies": bodies} if bodies else {}),
        )
        name = outputs[0].name if outputs else f"{op.op_type}_{op.index}"
        node = self.graph.add_node(source_op, name, ports)
        for idx, tensor in enumerate(outputs):
            port = node.out_port(idx)
            if quantized(tensor) is not None and tensor.type in QUANTIZED_TYPES:
                port = self._pseudo("QUANTIZED_TENSOR", tensor, port)
            port.data.add_name(tensor.name)
            self.producers[tensor.index] = port
