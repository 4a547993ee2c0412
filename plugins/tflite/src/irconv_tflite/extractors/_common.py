"""What the TFLite extractors share: fused activations, padding,
the NHWC mark for the layout plugin, and the record of int8 weights."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError
from irconv.frontend import require_rank
from irconv.types import ElementType
from irconv_opset import Clamp, ReLU, Tanh
from irconv_opset.lowering import layout

from irconv_tflite.loader import ELEMENT_TYPES, OperatorSource, quantized
from irconv_tflite.model import TYPE_NAMES
from irconv_tflite.schema.tflite_generated import TensorType
from irconv_tflite.weights import QUANTIZED_WEIGHTS, WeightGrid

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import Node, OutPort
    from irconv.ops import Op

    from irconv_tflite.model import Tensor


def source(ctx: ExtractContext) -> OperatorSource:
    return ctx.source_as(OperatorSource)


def input_tensor(ctx: ExtractContext, idx: int) -> Tensor | None:
    inputs = source(ctx).inputs
    return inputs[idx] if idx < len(inputs) else None


def output_type(ctx: ExtractContext, idx: int = 0) -> ElementType:
    """The element type TFLite declares for output ``idx`` (quantized tensors are f32 here)."""
    outputs = source(ctx).outputs
    if idx >= len(outputs):
        raise ConversionError(f"{ctx.where()}: the operator declares {len(outputs)} output(s); it needs output {idx}")
    tensor = outputs[idx]
    found = ELEMENT_TYPES.get(tensor.type)
    if found is None:
        raise ctx.attrs.bad("output type", TYPE_NAMES.get(tensor.type, tensor.type), "irconv cannot compute it")
    return ElementType.f32 if tensor.quantization is not None and not found.is_float else found


def input_dtype(ctx: ExtractContext, idx: int) -> np.dtype:
    """The NumPy type of input ``idx``'s values: the inferred element type, or the type
    TFLite declares when inference has none yet (quantized tensors are f32 here)."""
    inferred = ctx.input_type(idx)
    if inferred is not ElementType.dynamic:
        return np.dtype(inferred.numpy)
    tensor = input_tensor(ctx, idx)
    declared = None if tensor is None else ELEMENT_TYPES.get(tensor.type)
    if tensor is None or declared is None or (tensor.quantization is not None and not declared.is_float):
        return np.dtype(np.float32)
    return np.dtype(declared.numpy)


def is_complex(ctx: ExtractContext, idx: int) -> bool:
    """Whether input ``idx`` is a complex tensor: carried with its real and imaginary parts in
    a trailing axis of size 2 (as OpenVINO's DFT ops make them), which shape operators keep."""
    tensor = input_tensor(ctx, idx)
    return tensor is not None and tensor.type in (TensorType.COMPLEX64, TensorType.COMPLEX128)


def declared_shape(ctx: ExtractContext, idx: int) -> tuple[int | None, ...] | None:
    """Input ``idx``'s shape as the model declares it. While extraction runs, nodes marked
    NHWC still infer as NCHW (the layout plugin wraps them afterwards), so an extractor
    reads the data's channels here, not from the inferred shape."""
    tensor = input_tensor(ctx, idx)
    return None if tensor is None else tensor.shape


def known_rank(ctx: ExtractContext, idx: int = 0) -> int:
    """Input ``idx``'s rank: the inferred one, or the one the model declares when inference
    has none (the inferred shapes of NHWC-marked operators are provisional while
    extraction runs, and a broadcast against them can fail until the layout plugin has
    wrapped them; every TFLite tensor declares its rank)."""
    rank = ctx.input_rank(idx)
    if rank is not None:
        return rank
    shape = declared_shape(ctx, idx)
    return len(shape) if shape is not None else require_rank(ctx, idx)


#: What ``fused_activation`` may add: every extractor calling it lists these in ``produces``.
FUSED_ACTIVATION_OPS: tuple[type[Op], ...] = (ReLU, Clamp, Tanh)


def whole(ctx: ExtractContext, op: Op) -> list[OutPort]:
    """``op`` reading the operator's inputs as they are: an operator that is one opset op."""
    return [ctx.op(op, *ctx.inputs)]


def fused_activation(ctx: ExtractContext, port: OutPort) -> OutPort:
    """``port`` through the operator's ``fused_activation_function``."""
    kind = ctx.attrs.choice("fused_activation_function", ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH"], "NONE")
    if kind == "RELU":
        return ctx.op(ReLU(), port, suffix="relu")
    if kind == "RELU6":
        return ctx.op(Clamp(min=0.0, max=6.0), port, suffix="relu6")
    if kind == "RELU_N1_TO_1":
        return ctx.op(Clamp(min=-1.0, max=1.0), port, suffix="relu_n1_to_1")
    if kind == "TANH":
        return ctx.op(Tanh(), port, suffix="tanh")
    return port


def auto_pad(ctx: ExtractContext) -> str:
    return "same_upper" if ctx.attrs.choice("padding", ["SAME", "VALID"]) == "SAME" else "valid"


def laid_out(ctx: ExtractContext, op: Op, inputs: Sequence[OutPort | None],
             mark: layout.LayoutMark = layout.LayoutMark.NHWC) -> Node:
    """Add ``op``, whose input 0 and output 0 are channels-last (NHWC unless ``mark`` says
    otherwise: TFLite's data is always channels-last): the layout plugin wraps it."""
    return layout.laid_out(ctx, op, inputs, mark)


def record_int8_weights(ctx: ExtractContext, node: Node, tensor: Tensor | None, scale_shape: tuple[int, ...],
                        integer: bool = False) -> None:
    """Note that ``node``'s weights (input 1) are int8/uint8 values on a grid (a quantized
    model), so ``tflite.int8_weights`` stores them as such; ``scale_shape`` broadcasts the
    per-channel scale against the weights in the layout ``node`` reads them. ``integer``:
    the node reads the integers less their zero point (a grid of scale 1)."""
    grid = None if tensor is None else quantized(tensor)
    if grid is None or tensor is None or tensor.type not in (TensorType.UINT8, TensorType.INT8):
        return
    scale = np.asarray(grid.scale, np.float32)
    zero = np.asarray(grid.zero_point, np.float32)
    if grid.per_channel:
        scale, zero = scale.reshape(scale_shape), zero.reshape(scale_shape)
    if integer:
        scale = np.ones_like(scale)
    signed = tensor.type == TensorType.INT8
    ctx.graph.meta.setdefault(QUANTIZED_WEIGHTS)[node.id] = WeightGrid(scale, zero, signed)
