"""Write small .tflite files with the flatbuffers builder and the generated schema module,
so the reader's tests (valid and deliberately broken files) need no TensorFlow."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import flatbuffers
import numpy as np
from irconv_tflite.schema import tflite_generated as fb


@dataclass
class TensorSpec:
    name: str
    shape: list[int]
    type: int = fb.TensorType.FLOAT32
    buffer: int = 0
    is_variable: bool = False
    #: (scales, zero points): a quantized tensor (one of each: per tensor)
    quantization: tuple[list[float], list[int]] | None = None
    #: sparsity parameters traversing the dimensions in order, each DENSE with these sizes
    dense_sizes: list[int] | None = None


@dataclass
class OpSpec:
    opcode_index: int
    inputs: list[int]
    outputs: list[int]
    #: (BuiltinOptions type code, function writing the options table and returning its offset)
    options: tuple[int, Callable[[flatbuffers.Builder], int]] | None = None
    custom_options: bytes | None = None


@dataclass
class SubgraphSpec:
    tensors: list[TensorSpec]
    inputs: list[int]
    outputs: list[int]
    operators: list[OpSpec]
    name: str = "main"


@dataclass
class ModelSpec:
    subgraphs: list[SubgraphSpec]
    builtin_codes: list[int | str]  # a string: a custom operator's code
    buffers: list[bytes] = field(default_factory=lambda: [b""])
    version: int = 3


def _ints(builder: flatbuffers.Builder, values: list[int], dtype: Any = np.int32) -> int:
    return builder.CreateNumpyVector(np.asarray(values, dtype=dtype))


def _tables(builder: flatbuffers.Builder, offsets: list[int]) -> int:
    builder.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return builder.EndVector()


def _quantization(builder: flatbuffers.Builder, scales: list[float], zero_points: list[int]) -> int:
    scale = builder.CreateNumpyVector(np.asarray(scales, np.float32))
    zero = builder.CreateNumpyVector(np.asarray(zero_points, np.int64))
    fb.QuantizationParametersStart(builder)
    fb.QuantizationParametersAddScale(builder, scale)
    fb.QuantizationParametersAddZeroPoint(builder, zero)
    return fb.QuantizationParametersEnd(builder)


def _dense_sparsity(builder: flatbuffers.Builder, sizes: list[int]) -> int:
    levels = []
    for size in sizes:
        fb.DimensionMetadataStart(builder)
        fb.DimensionMetadataAddFormat(builder, fb.DimensionType.DENSE)
        fb.DimensionMetadataAddDenseSize(builder, size)
        levels.append(fb.DimensionMetadataEnd(builder))
    metadata = _tables(builder, levels)
    order = _ints(builder, list(range(len(sizes))))
    fb.SparsityParametersStart(builder)
    fb.SparsityParametersAddTraversalOrder(builder, order)
    fb.SparsityParametersAddDimMetadata(builder, metadata)
    return fb.SparsityParametersEnd(builder)


def _tensor(builder: flatbuffers.Builder, spec: TensorSpec) -> int:
    sparsity = None if spec.dense_sizes is None else _dense_sparsity(builder, spec.dense_sizes)
    name = builder.CreateString(spec.name)
    shape = _ints(builder, spec.shape)
    quantization = None if spec.quantization is None else _quantization(builder, *spec.quantization)
    fb.TensorStart(builder)
    fb.TensorAddShape(builder, shape)
    fb.TensorAddType(builder, spec.type)
    fb.TensorAddBuffer(builder, spec.buffer)
    fb.TensorAddName(builder, name)
    fb.TensorAddHasRank(builder, True)
    if quantization is not None:
        fb.TensorAddQuantization(builder, quantization)
    if spec.is_variable:
        fb.TensorAddIsVariable(builder, True)
    if sparsity is not None:
        fb.TensorAddSparsity(builder, sparsity)
    return fb.TensorEnd(builder)


def _operator(builder: flatbuffers.Builder, spec: OpSpec) -> int:
    options = spec.options[1](builder) if spec.options else None
    inputs, outputs = _ints(builder, spec.inputs), _ints(builder, spec.outputs)
    custom = builder.CreateByteVector(spec.custom_options) if spec.custom_options else None
    fb.OperatorStart(builder)
    fb.OperatorAddOpcodeIndex(builder, spec.opcode_index)
    fb.OperatorAddInputs(builder, inputs)
    fb.OperatorAddOutputs(builder, outputs)
    if spec.options and options is not None:
        fb.OperatorAddBuiltinOptionsType(builder, spec.options[0])
        fb.OperatorAddBuiltinOptions(builder, options)
    if custom is not None:
        fb.OperatorAddCustomOptions(builder, custom)
    return fb.OperatorEnd(builder)


def _subgraph(builder: flatbuffers.Builder, spec: SubgraphSpec) -> int:
    tensors = _tables(builder, [_tensor(builder, t) for t in spec.tensors])
    operators = _tables(builder, [_operator(builder, o) for o in spec.operators])
    inputs, outputs = _ints(builder, spec.inputs), _ints(builder, spec.outputs)
    name = builder.CreateString(spec.name)
    fb.SubGraphStart(builder)
    fb.SubGraphAddTensors(builder, tensors)
    fb.SubGraphAddInputs(builder, inputs)
    fb.SubGraphAddOutputs(builder, outputs)
    fb.SubGraphAddOperators(builder, operators)
    fb.SubGraphAddName(builder, name)
    return fb.SubGraphEnd(builder)


def _buffer(builder: flatbuffers.Builder, data: bytes) -> int:
    vector = builder.CreateByteVector(data) if data else None
    fb.BufferStart(builder)
    if vector is not None:
        fb.BufferAddData(builder, vector)
    return fb.BufferEnd(builder)


def _code(builder: flatbuffers.Builder, code: int | str) -> int:
    custom = builder.CreateString(code) if isinstance(code, str) else None
    builtin = fb.BuiltinOperator.CUSTOM if isinstance(code, str) else code
    fb.OperatorCodeStart(builder)
    fb.OperatorCodeAddDeprecatedBuiltinCode(builder, min(builtin, 127))
    fb.OperatorCodeAddBuiltinCode(builder, builtin)
    if custom is not None:
        fb.OperatorCodeAddCustomCode(builder, custom)
    fb.OperatorCodeAddVersion(builder, 1)
    return fb.OperatorCodeEnd(builder)


def build(spec: ModelSpec) -> bytes:
    builder = flatbuffers.Builder(1024)
    buffers = _tables(builder, [_buffer(builder, b) for b in spec.buffers])
    subgraphs = _tables(builder, [_subgraph(builder, s) for s in spec.subgraphs])
    codes = _tables(builder, [_code(builder, c) for c in spec.builtin_codes])
    fb.ModelStart(builder)
    fb.ModelAddVersion(builder, spec.version)
    fb.ModelAddOperatorCodes(builder, codes)
    fb.ModelAddSubgraphs(builder, subgraphs)
    fb.ModelAddBuffers(builder, buffers)
    builder.Finish(fb.ModelEnd(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


CONSTANT = np.arange(4, dtype=np.float32).reshape(1, 4)


def add_model() -> ModelSpec:
    """y = relu(x + [0, 1, 2, 3]) for x of shape [1, 4]."""

    def relu_options(builder: flatbuffers.Builder) -> int:
        fb.AddOptionsStart(builder)
        fb.AddOptionsAddFusedActivationFunction(builder, fb.ActivationFunctionType.RELU)
        return fb.AddOptionsEnd(builder)

    main = SubgraphSpec(
        tensors=[TensorSpec("x", [1, 4]), TensorSpec("c", [1, 4], buffer=1), TensorSpec("y", [1, 4])],
        inputs=[0],
        outputs=[2],
        operators=[OpSpec(0, [0, 1], [2], (fb.BuiltinOptions.AddOptions, relu_options))],
    )
    return ModelSpec([main], [fb.BuiltinOperator.ADD], [b"", CONSTANT.tobytes()])


def while_model(body_index: int) -> ModelSpec:
    """The main graph runs WHILE with condition and body ``body_index`` (a cycle when it
    names the main graph itself)."""

    def while_options(builder: flatbuffers.Builder) -> int:
        fb.WhileOptionsStart(builder)
        fb.WhileOptionsAddCondSubgraphIndex(builder, body_index)
        fb.WhileOptionsAddBodySubgraphIndex(builder, body_index)
        return fb.WhileOptionsEnd(builder)

    main = SubgraphSpec([TensorSpec("x", [1]), TensorSpec("y", [1])], [0], [1],
                        [OpSpec(0, [0], [1], (fb.BuiltinOptions.WhileOptions, while_options))])
    return ModelSpec([main], [fb.BuiltinOperator.WHILE])


def detection_model(anchors: np.ndarray, classes: int, options: dict[str, Any]) -> ModelSpec:
    """TFLite_Detection_PostProcess on box encodings [1, N, 4] and scores [1, N, 1 + classes]
    (inputs), with constant anchors [N, 4]; ``options`` its FlexBuffer map."""
    from flatbuffers import flexbuffers

    boxes = len(anchors)
    detections = int(options["max_detections"])
    tensors = [
        TensorSpec("box_encodings", [1, boxes, 4]),
        TensorSpec("class_predictions", [1, boxes, classes + 1]),
        TensorSpec("anchors", [boxes, 4], buffer=1),
        TensorSpec("detection_boxes", [1, detections, 4]),
        TensorSpec("detection_classes", [1, detections]),
        TensorSpec("detection_scores", [1, detections]),
        TensorSpec("num_detections", [1]),
    ]
    op = OpSpec(0, [0, 1, 2], [3, 4, 5, 6], custom_options=bytes(flexbuffers.Dumps(options)))
    main = SubgraphSpec(tensors, [0, 1], [3, 4, 5, 6], [op])
    return ModelSpec([main], ["TFLite_Detection_PostProcess"], [b"", np.asarray(anchors, np.float32).tobytes()])


@dataclass
class Operand:
    """One input of ``single_op_model``: a model input (``value`` None, ``shape`` given), a
    constant (``value``), or a variable tensor starting at zeros (``variable``)."""

    name: str
    shape: list[int]
    value: np.ndarray | None = None
    variable: bool = False
    type: int = fb.TensorType.FLOAT32


#: The NumPy type of a constant's bytes, by TensorType.
NUMPY_TYPES = {fb.TensorType.FLOAT32: np.float32, fb.TensorType.INT32: np.int32, fb.TensorType.INT64: np.int64}


def single_op_model(code: int, operands: list[Operand | None], outputs: dict[str, list[int]],
                    options: tuple[int, Callable[[flatbuffers.Builder], int]] | None = None,
                    output_types: dict[str, int] | None = None) -> ModelSpec:
    """One builtin operator over ``operands`` (None: an optional input left out, index -1)
    writing ``outputs`` (name -> shape; float unless ``output_types`` says otherwise); the
    model's inputs are the operands without a value that are not variables."""
    tensors: list[TensorSpec] = []
    buffers = [b""]
    indices: list[int] = []
    for operand in operands:
        if operand is None:
            indices.append(-1)
            continue
        buffer = 0
        if operand.value is not None:
            buffers.append(np.ascontiguousarray(operand.value, NUMPY_TYPES[operand.type]).tobytes())
            buffer = len(buffers) - 1
        indices.append(len(tensors))
        tensors.append(TensorSpec(operand.name, operand.shape, operand.type, buffer, operand.variable))
    inputs = [indices[k] for k, o in enumerate(operands) if o is not None and o.value is None and not o.variable]
    first_output = len(tensors)
    types = output_types or {}
    tensors += [TensorSpec(name, shape, types.get(name, fb.TensorType.FLOAT32)) for name, shape in outputs.items()]
    output_indices = list(range(first_output, len(tensors)))
    main = SubgraphSpec(tensors, inputs, output_indices, [OpSpec(0, indices, output_indices, options)])
    return ModelSpec([main], [code], buffers)
