"""ONNX sequence values whose length is known at conversion time, lowered to their tensors.

OpenVINO has no sequence type. But the sequences exporters write are mostly built and read
with constant positions (``SequenceConstruct`` then ``ConcatFromSequence``, ``SplitToSequence``
then ``SequenceAt(i)``), so every element is a tensor of the graph: a sequence is carried
during extraction by a ``TensorSequence`` node whose inputs are its elements, in order.
The sequence ops rearrange those inputs (insert, erase) or hand an element to their
consumer; nothing reads the ``TensorSequence`` node itself, so it is dropped with the other
dead nodes before emit. A sequence that reaches a model output or an op that is not a
sequence op stays, and the emitter names it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import extractor, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op, attr
from irconv.types import ElementType
from irconv_opset import Concat, Const, Gather, Split, Squeeze, Unsqueeze, VariadicSplit

from irconv_onnx.extractors._common import et_of_onnx
from irconv_onnx.extractors._optional import HANDLED, with_defaults


@dataclass(eq=False)
class TensorSequence(Op):
    """A sequence of the tensors at its inputs (extraction only: not an opset op)."""

    type = "TensorSequence"
    version = 0

    element_type: ElementType = attr(ElementType.dynamic)

    def infer(self, node: Node) -> None:
        data = node.out_port(0).data
        data.set_shape(None)
        data.set_type(self.element_type)


def _elements(ctx: ExtractContext, idx: int = 0) -> list[OutPort]:
    """The element tensors of the sequence at input ``idx``."""
    producer = ctx.input(idx).node
    if not isinstance(producer.op, TensorSequence):
        raise ConversionError(
            f"{ctx.where()}: input {idx} must be a sequence built in the model (SequenceConstruct, "
            f"SequenceEmpty, SplitToSequence, ...), not {producer.type} {quoted(producer.name)}: "
            "irconv converts sequences whose elements are known at conversion time"
        )
    return [source for port in producer.in_ports() if (source := port.get_source()) is not None]


def _sequence(ctx: ExtractContext, elements: list[OutPort], element_type: ElementType | None = None) -> list[OutPort]:
    et = element_type or (elements[0].data.element_type if elements else ElementType.dynamic)
    return [ctx.op(TensorSequence(element_type=et), *elements, suffix="sequence")]


def _position(ctx: ExtractContext, idx: int, count: int, default: int, what: str) -> int:
    """A constant position input (negative counts from the end), checked against ``count``."""
    if not ctx.has_input(idx):
        return default
    value = ctx.input_value(idx)
    if value is None:
        raise ConversionError(f"{ctx.where()}: the {what} position must be a constant (it is computed at run time)")
    position = int(np.asarray(value).reshape(-1)[0])
    if position < 0:
        position += count
    return position


@extractor("onnx", "SequenceEmpty", versions=(11, None), produces=[TensorSequence])
def _sequence_empty(node: Node, ctx: ExtractContext) -> list[OutPort]:
    dtype = ctx.attrs.int("dtype", 1)  # FLOAT by default
    return _sequence(ctx, [], et_of_onnx(dtype, ctx.where()))


@extractor("onnx", "SequenceConstruct", versions=(11, None), produces=[TensorSequence])
def _sequence_construct(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _sequence(ctx, [ctx.input(i) for i in range(len(ctx.inputs))])


@extractor("onnx", "SequenceInsert", versions=(11, None), produces=[TensorSequence])
@with_defaults({2: HANDLED})
def _sequence_insert(node: Node, ctx: ExtractContext) -> list[OutPort]:
    elements = _elements(ctx)
    at = _position(ctx, 2, len(elements), len(elements), "insert")
    if not 0 <= at <= len(elements):
        raise ConversionError(f"{ctx.where()}: insert position {at} is outside the {len(elements)}-element sequence")
    return _sequence(ctx, [*elements[:at], ctx.input(1), *elements[at:]], ctx.input(0).data.element_type)


@extractor("onnx", "SequenceErase", versions=(11, None), produces=[TensorSequence])
@with_defaults({1: HANDLED})
def _sequence_erase(node: Node, ctx: ExtractContext) -> list[OutPort]:
    elements = _elements(ctx)
    at = _position(ctx, 1, len(elements), len(elements) - 1, "erase")
    if not 0 <= at < len(elements):
        raise ConversionError(f"{ctx.where()}: erase position {at} is outside the {len(elements)}-element sequence")
    return _sequence(ctx, elements[:at] + elements[at + 1:], ctx.input(0).data.element_type)


@extractor("onnx", "SequenceAt", versions=(11, None), produces=[Gather, Concat, Unsqueeze])
def _sequence_at(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A constant position picks the element; a run-time one gathers from the stacked
    elements, which needs them all of one static shape."""
    elements = _elements(ctx)
    if ctx.input_value(1) is not None:
        at = _position(ctx, 1, len(elements), 0, "read")
        if not 0 <= at < len(elements):
            raise ConversionError(f"{ctx.where()}: position {at} is outside the {len(elements)}-element sequence")
        return [elements[at]]
    shapes = {e.data.shape for e in elements}
    shape = next(iter(shapes)) if len(shapes) == 1 else None
    if shape is None or any(d is None for d in shape):
        raise ConversionError(f"{ctx.where()}: a run-time position needs elements of one static shape, "
                              f"these have {sorted(map(str, shapes))}")
    stacked = ctx.op(Concat(axis=0), *[ctx.op(Unsqueeze(), e, i64(ctx, [0]), suffix=f"item{i}")
                                       for i, e in enumerate(elements)], suffix="stacked")
    return [ctx.op(Gather(), stacked, ctx.input(1), i64(ctx, 0))]


@extractor("onnx", "SequenceLength", versions=(11, None), produces=[Const])
def _sequence_length(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [i64(ctx, len(_elements(ctx)), "length")]


@extractor("onnx", "ConcatFromSequence", versions=(11, None), produces=[Concat, Unsqueeze])
def _concat_from_sequence(node: Node, ctx: ExtractContext) -> list[OutPort]:
    a = ctx.attrs
    elements = _elements(ctx)
    if not elements:
        raise ConversionError(f"{ctx.where()}: the sequence is empty, there is nothing to concatenate")
    axis = a.int("axis")
    if a.int("new_axis", 0):
        rank = elements[0].data.shape
        if axis < 0 and rank is None:
            raise ConversionError(f"{ctx.where()}: a negative new axis needs the elements' rank")
        new = axis + len(rank) + 1 if axis < 0 and rank is not None else axis
        elements = [ctx.op(Unsqueeze(), e, i64(ctx, [new]), suffix=f"item{i}") for i, e in enumerate(elements)]
        axis = new
    return [ctx.op(Concat(axis=axis), *elements)]


@extractor("onnx", "SplitToSequence", versions=(11, None), produces=[Split, VariadicSplit, Squeeze, TensorSequence])
@with_defaults({1: HANDLED})
def _split_to_sequence(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Split, or VariadicSplit with the lengths given (a scalar length: equal chunks, the
    last one shorter). The number of parts must be known: from the split input's length,
    or from a static dimension."""
    a = ctx.attrs
    rank = require_rank(ctx, 0)
    axis = normalize_axis(ctx, a.int("axis", 0), rank)
    shape = ctx.input_shape(0)
    dim = shape[axis] if shape is not None else None
    axis_port = i64(ctx, axis, "axis")
    if not ctx.has_input(1):
        if dim is None:
            raise ConversionError(f"{ctx.where()}: splitting into single items needs a static dimension {axis}")
        split = ctx.add(Split(num_splits=dim), [ctx.input(0), axis_port], "split") if dim else None
        parts = [split.out_port(i) for i in range(dim)] if split is not None else []
        if not a.int("keepdims", 1):
            parts = [ctx.op(Squeeze(), p, i64(ctx, [axis]), suffix=f"item{i}") for i, p in enumerate(parts)]
        return _sequence(ctx, parts, ctx.input_type(0))
    lengths_shape = ctx.input_shape(1)
    value = ctx.input_value(1)
    if lengths_shape == ():
        if value is None or dim is None:
            raise ConversionError(f"{ctx.where()}: a scalar split needs a constant length and a static dimension {axis}")
        size = int(np.asarray(value))
        lengths = i64(ctx, [size] * (dim // size) + ([dim % size] if dim % size else []), "lengths")
        count = -(-dim // size)
    elif lengths_shape is not None and len(lengths_shape) == 1 and lengths_shape[0] is not None:
        lengths, count = ctx.input(1), lengths_shape[0]
    else:
        raise ConversionError(f"{ctx.where()}: the number of parts must be known (split of a static length)")
    split = ctx.add(VariadicSplit(), [ctx.input(0), axis_port, lengths], "split")
    return _sequence(ctx, [split.out_port(i) for i in range(count)], ctx.input_type(0))
