"""What the Keras extractor families share: registration, the layer's variables, Keras'
integer-or-tuple arguments, data formats and the bias/activation every layer may end with."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, shortened
from irconv.frontend import f32
from irconv.graph import OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import Convert
from irconv_opset.lowering.convolution import channel_bias
from irconv_opset.lowering.layout import LayoutMark
from irconv_opset.lowering.layout import laid_out as shared_laid_out

from irconv_tf.keras_reader.extractors.activation_functions import activate
from irconv_tf.keras_reader.model import KerasLayer


def layer(ctx: ExtractContext) -> KerasLayer:
    """The Keras layer being extracted (its variables, recorded output shapes)."""
    return ctx.source_as(KerasLayer)


def spatial_rank(ctx: ExtractContext) -> int:
    """The spatial rank a layer class names (``Conv2D``: 2, ``GlobalMaxPooling3D``: 3), which
    the layers of one family of 1D/2D/3D classes share an extractor by."""
    found = re.search(r"([123])D", ctx.source_op.op_type)
    if found is None:
        raise ConversionError(f"{ctx.where()}: the layer class names no spatial rank (1D, 2D or 3D)")
    return int(found.group(1))


def variables(ctx: ExtractContext, count: int, under: str = "") -> list[np.ndarray]:
    """The layer's (or its sub-object ``under``'s) variables, which must be ``count``: a
    config whose switches (use_bias, center, scale) disagree with the weights is refused
    rather than read with its variables shifted."""
    found = layer(ctx).variables(under)
    if len(found) != count:
        where = f" under {shortened(repr(under))}" if under else ""
        raise ConversionError(
            f"{ctx.where()}: the weights file holds {len(found)} variable(s){where}, the layer's config needs {count}: "
            "is model.weights.h5 from this model?"
        )
    return found


def int_tuple(ctx: ExtractContext, name: str, length: int, default: int | None = None) -> tuple[int, ...]:
    """Keras' ``int or tuple of ints`` argument, as ``length`` ints (``default`` for each
    when the config leaves it out; without a default it is required)."""
    if name not in ctx.attrs and default is not None:
        return (default,) * length
    value = ctx.attrs.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * length
    values = ctx.attrs.ints(name)  # a list of ints, or the error naming the layer and the argument
    if len(values) != length:
        raise ctx.attrs.bad(name, values, f"expected {length} values")
    return tuple(values)


def channels_last(ctx: ExtractContext) -> bool:
    return ctx.attrs.choice("data_format", ["channels_last", "channels_first"], "channels_last") == "channels_last"


def layout_mark(ctx: ExtractContext, rank: int) -> LayoutMark | None:
    """The layout plugin's mark for a channels-last op of this rank, or None."""
    return LayoutMark.for_rank(rank) if channels_last(ctx) else None


def as_float32(ctx: ExtractContext, port: OutPort) -> OutPort:
    """``port`` in float32, the compute dtype of a float32 policy, for the layers that cast
    their input to it (Rescaling, Normalization: uint8 images, float64 data)."""
    if port.data.element_type in (ElementType.f32, ElementType.dynamic):
        return port
    return ctx.op(Convert(destination_type=ElementType.f32), port, suffix="as_float32")


def laid_out(
    ctx: ExtractContext, op: Op, inputs: Sequence[OutPort | None], mark: LayoutMark | None, *, last: bool = True
) -> OutPort:
    """Add ``op`` marked with the layout ``mark``. Until the layout plugin wraps it, a
    channels-last op's inferred facts read its input in the op's own (channels-first)
    order: its output gets the shape Keras recorded instead (unknown when none was), so
    the layers after it see their input as Keras does. ``last``: the op makes the layer's
    output (up to elementwise ops), whose shape Keras recorded."""
    y = shared_laid_out(ctx, op, inputs, mark).out_port(0)
    if mark is not None:
        recorded = layer(ctx).output_shapes
        y.data.set_shape(recorded[0] if recorded and last else None)
        y.data.set_type(ElementType.f32)
    return y


def add_bias(ctx: ExtractContext, x: OutPort, bias: np.ndarray, rank: int, channel_axis: int) -> OutPort:
    """x + bias along ``channel_axis`` (the last axis needs no reshaping)."""
    return channel_bias(ctx, x, f32(ctx, bias, "bias"), rank, channel_axis)


def finish(ctx: ExtractContext, x: OutPort, bias: np.ndarray | None, rank: int, channel_axis: int) -> list[OutPort]:
    """The optional bias then the ``activation`` argument, the end of Dense/Conv layers."""
    if bias is not None:
        x = add_bias(ctx, x, bias, rank, channel_axis)
    return [activate(ctx, x, ctx.attrs.get("activation", "linear"), "activation")]
