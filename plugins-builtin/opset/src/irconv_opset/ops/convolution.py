"""Convolutions: plain, grouped, transposed (backprop data) and deformable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, attr
from irconv.types import Dim, MaybeShape

from irconv_opset.ops._attrs import CoercedAttrs
from irconv_opset.ops._spatial import (
    AutoPad,
    input_shape,
    input_type,
    merge_dim,
    same_pads,
    set_output,
    window_dims,
)
from irconv_opset.rules import require_at_most, require_rank, require_same_type, require_static_inputs
from irconv_opset.shapes import in_value

if TYPE_CHECKING:
    from irconv.graph import Node

#: The data ranks the runtime convolves: 1-D, 2-D and 3-D spatial, after batch and channels.
_DATA_RANKS = (3, 4, 5)
#: The data rank the runtime's deformable convolution takes: 2-D images only.
_DEFORMABLE_DATA_RANKS = (4,)


def require_convolution_ranks(
    node: Node, kernel_start: int, filters_input: int = 1, data_ranks: tuple[int, ...] = _DATA_RANKS
) -> None:
    """The runtime reads the data as [N, C, *spatial] of one of ``data_ranks``, and the filters
    (input ``filters_input``) as ``kernel_start`` leading dims then one kernel dim per spatial dim."""
    require_rank(node, 0, "data", *data_ranks)
    data = input_shape(node, 0)
    ranks = (len(data) - 2 + kernel_start,) if data is not None else tuple(r - 2 + kernel_start for r in data_ranks)
    require_rank(node, filters_input, "filters", *ranks)


@dataclass(eq=False)
class _ConvolutionBase(CoercedAttrs, Op):
    """Attributes shared by every forward convolution (field order = IR order)."""

    strides: tuple[int, ...] = attr(())
    dilations: tuple[int, ...] = attr(())
    pads_begin: tuple[int, ...] = attr(())
    pads_end: tuple[int, ...] = attr(())
    auto_pad: AutoPad = attr(AutoPad.explicit)

    # Where the spatial kernel dims start in the filters shape, and how the output
    # channel count follows from the filters shape.
    _kernel_start = 2
    _filters_input = 1

    def _out_channels(self, filters: MaybeShape) -> Dim:
        return None if filters is None else filters[0]

    def _spatial_out(self, data: Sequence[Dim], filters: MaybeShape) -> tuple[Dim, ...]:
        """The output's spatial dims; ``infer`` has checked the ranks (``require_convolution_ranks``)."""
        rank = len(data)
        kernel = filters[self._kernel_start :] if filters is not None else (None,) * rank
        if any(k is None for k in kernel):
            # Unknown kernel: only "same" padding gives a size that does not depend on it.
            if self.auto_pad in (AutoPad.same_upper, AutoPad.same_lower):
                return window_dims(data, (1,) * rank, self.strides, None, (), (), self.auto_pad)
            return (None,) * rank
        known_kernel = [int(k) for k in kernel if k is not None]
        return window_dims(
            data, known_kernel, self.strides, self.dilations, self.pads_begin, self.pads_end, self.auto_pad
        )

    def infer(self, node: Node) -> None:
        require_at_most(node, 2)
        require_same_type(node, 0, 1, "filters")
        require_convolution_ranks(node, self._kernel_start)
        data, filters = input_shape(node, 0), input_shape(node, 1)
        if data is None:
            rank = None if filters is None else len(filters) - self._kernel_start + 2
            data = None if rank is None else (None,) * rank
        if data is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        shape = (data[0], self._out_channels(filters), *self._spatial_out(data[2:], filters))
        set_output(node, 0, shape, input_type(node, 0))

    def _in_channels(self, filters: Sequence[Dim]) -> Dim:
        """The input channels the filters expect."""
        return filters[1]

    def check(self, node: Node) -> None:
        """The runtime's rules: the data's channels are the filters' input channels; the CPU
        plugin's kernels take filters of a static shape (weights computed at run time too)."""
        require_static_inputs(node, {self._filters_input: "filters"})
        data, filters = input_shape(node, 0), input_shape(node, self._filters_input)
        if data is None or filters is None or len(data) < 2 or len(filters) < self._kernel_start:
            return
        expected, found = self._in_channels(filters), data[1]
        if expected is not None and found is not None and expected != found:
            raise ConversionError(
                f"node {quoted(node.name)} ({node.op.describe()}): the input has {found} channels but the filters "
                f"expect {expected}; check the shapes given with --input"
            )


@dataclass(eq=False)
class Convolution(_ConvolutionBase):
    """Convolution-1: data [N, C_in, *spatial], filters [C_out, C_in, *kernel]."""

    type = "Convolution"
    version = 1
    arity = (2, 2)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        data, filters = inputs[0], inputs[1]
        return [_conv_nd(data, filters[np.newaxis], self)]


@dataclass(eq=False)
class GroupConvolution(_ConvolutionBase):
    """GroupConvolution-1: filters [G, C_out/G, C_in/G, *kernel]."""

    type = "GroupConvolution"
    version = 1
    arity = (2, 2)
    _kernel_start = 3

    def _out_channels(self, filters: MaybeShape) -> Dim:
        if filters is None or filters[0] is None or filters[1] is None:
            return None
        return filters[0] * filters[1]

    def _in_channels(self, filters: Sequence[Dim]) -> Dim:
        return None if filters[0] is None or filters[2] is None else filters[0] * filters[2]

    def infer(self, node: Node) -> None:
        filters = input_shape(node, 1)
        if filters is None or any(d is None for d in filters):
            # OpenVINO's CPU plugin refuses it ("Doesn't support dynamic weights shape").
            raise ConversionError(
                f"node {quoted(node.name)} ({self.describe()}): the filters' shape must be static, found "
                f"{'unknown rank' if filters is None else ['?' if d is None else d for d in filters]}; "
                "give the model inputs static shapes with --input"
            )
        super().infer(node)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        return [_conv_nd(inputs[0], inputs[1], self)]


@dataclass(eq=False)
class DeformableConvolution_v1(_ConvolutionBase):
    """DeformableConvolution-1: data, offsets, filters [C_out, C_in/group, *kernel]."""

    type = "DeformableConvolution"
    version = 1
    arity = (3, 3)

    group: int = attr(1)
    deformable_group: int = attr(1)
    _filters_input = 2  # data, offsets, filters

    def _in_channels(self, filters: Sequence[Dim]) -> Dim:
        return None if filters[1] is None else filters[1] * self.group

    def infer(self, node: Node) -> None:
        require_convolution_ranks(node, self._kernel_start, self._filters_input, _DEFORMABLE_DATA_RANKS)
        require_rank(node, 1, "offsets", *_DEFORMABLE_DATA_RANKS)
        require_rank(node, 3, "mask", *_DEFORMABLE_DATA_RANKS)  # DeformableConvolution-8's optional input
        data, offsets, filters = input_shape(node, 0), input_shape(node, 1), input_shape(node, 2)
        if data is None and filters is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        rank = len(data) if data is not None else len(filters or ())
        data = data if data is not None else (None,) * rank
        spatial = self._spatial_out(data[2:], filters)
        if offsets is not None:
            # The offsets tensor already has the output's spatial size.
            if any(a is not None and b is not None and a != b for a, b in zip(spatial, offsets[2:], strict=False)):
                raise ConversionError(
                    f"node {quoted(node.name)} ({self.describe()}): the offsets' spatial dims {list(offsets[2:])} are not "
                    f"the output's {list(spatial)}"
                )
            spatial = tuple(merge_dim(a, b) for a, b in zip(spatial, offsets[2:], strict=False))
        shape = (merge_dim(data[0], offsets[0] if offsets else None), self._out_channels(filters), *spatial)
        set_output(node, 0, shape, input_type(node, 0))


@dataclass(eq=False)
class DeformableConvolution(DeformableConvolution_v1):
    """DeformableConvolution-8: adds an optional modulation mask input and ``bilinear_interpolation_pad``."""

    type = "DeformableConvolution"
    version = 8
    arity = (3, 4)

    bilinear_interpolation_pad: bool = attr(False)


@dataclass(eq=False)
class _BackpropBase(CoercedAttrs, Op):
    """Transposed convolution; an optional third input gives the output spatial shape."""

    strides: tuple[int, ...] = attr(())
    dilations: tuple[int, ...] = attr(())
    pads_begin: tuple[int, ...] = attr(())
    pads_end: tuple[int, ...] = attr(())
    auto_pad: AutoPad = attr(AutoPad.explicit)
    output_padding: tuple[int, ...] = attr(())

    _kernel_start = 2

    def _out_channels(self, filters: MaybeShape) -> Dim:
        return None if filters is None else filters[1]

    def infer(self, node: Node) -> None:
        require_convolution_ranks(node, self._kernel_start)
        data, filters = input_shape(node, 0), input_shape(node, 1)
        rank = None
        if data is not None:
            rank = len(data)
        elif filters is not None:
            rank = len(filters) - self._kernel_start + 2
        if rank is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        data = data if data is not None else (None,) * rank
        spatial_rank = rank - 2
        if node.num_inputs() > 2 and node.has_input(2):
            spatial = self._given_spatial(node, spatial_rank)
        else:
            kernel = filters[self._kernel_start :] if filters is not None else (None,) * spatial_rank
            spatial = tuple(self._spatial_dim(i, data[2 + i], kernel[i]) for i in range(spatial_rank))
        set_output(node, 0, (data[0], self._out_channels(filters), *spatial), input_type(node, 0))

    def _given_spatial(self, node: Node, spatial_rank: int) -> tuple[Dim, ...]:
        value = in_value(node, 2)
        if value is not None:
            return tuple(int(v) for v in np.asarray(value).reshape(-1))
        return (None,) * spatial_rank

    def _spatial_dim(self, axis: int, size: Dim, kernel: Dim) -> Dim:
        if size is None:
            return None
        stride = self.strides[axis]
        out_pad = self.output_padding[axis] if self.output_padding else 0
        if kernel is None:
            return None
        dilation = self.dilations[axis] if self.dilations else 1
        begin = end = 0
        # Without an output_shape input the runtime pads nothing under auto_pad != explicit.
        if self.auto_pad is AutoPad.explicit and self.pads_begin:
            begin, end = self.pads_begin[axis], self.pads_end[axis]
        out = stride * (size - 1) + (kernel - 1) * dilation + 1 - begin - end + out_pad
        if out < 0:
            raise ValueError(f"the pads leave an empty output on spatial axis {axis} (size {out})")
        return out

    def _transposed(self, data: np.ndarray, filters: np.ndarray, output_shape: np.ndarray | None) -> np.ndarray:
        """Grouped transposed convolution; filters are [G, C_in/G, C_out/G, *kernel]."""
        rank = data.ndim - 2
        kernel = filters.shape[3:]
        dilations = self.dilations or (1,) * rank
        out_pad = self.output_padding or (0,) * rank
        # Un-cropped output: every input cell spreads its kernel footprint.
        full_sizes = [
            (data.shape[2 + i] - 1) * self.strides[i] + (kernel[i] - 1) * dilations[i] + 1 for i in range(rank)
        ]
        if output_shape is not None:
            # The size is given: explicit pads still say where the crop starts; "same" splits
            # the surplus, the larger half in front for same_upper (the mirror of Convolution).
            sizes = [int(v) for v in np.asarray(output_shape).reshape(-1)]
            if self.auto_pad in (AutoPad.same_upper, AutoPad.same_lower):
                begins = []
                for i in range(rank):
                    total = full_sizes[i] + out_pad[i] - sizes[i]
                    half = -(-total // 2) if self.auto_pad is AutoPad.same_upper else total // 2
                    begins.append(max(half, 0))
            else:
                begins = list(self.pads_begin) if self.pads_begin else [0] * rank
        else:
            explicit = self.auto_pad is AutoPad.explicit and self.pads_begin
            begins = list(self.pads_begin) if explicit else [0] * rank
            ends = list(self.pads_end) if explicit else [0] * rank
            sizes = [full_sizes[i] - begins[i] - ends[i] + out_pad[i] for i in range(rank)]
        batch, groups = data.shape[0], filters.shape[0]
        in_per_group, out_per_group = filters.shape[1], filters.shape[2]
        grouped = data.reshape(batch, groups, in_per_group, *data.shape[2:]).astype(np.float64)
        full = np.zeros((batch, groups, out_per_group, *full_sizes))
        for offset in np.ndindex(*kernel):
            target = tuple(
                slice(
                    offset[i] * dilations[i],
                    offset[i] * dilations[i] + (data.shape[2 + i] - 1) * self.strides[i] + 1,
                    self.strides[i],
                )
                for i in range(rank)
            )
            weights = filters[(slice(None), slice(None), slice(None), *offset)].astype(np.float64)  # [G, Cin/G, Cout/G]
            full[(slice(None), slice(None), slice(None), *target)] += np.einsum("ngc...,gco->ngo...", grouped, weights)
        # Crop pads_begin off the front; cells past the un-cropped end (output_padding) are zeros.
        window = []
        for i in range(rank):
            before = max(-begins[i], 0)
            after = max(begins[i] + sizes[i] - full_sizes[i], 0)
            window.append((before, after))
        full = np.pad(full, [(0, 0)] * 3 + window)
        crop = tuple(slice(begins[i] + window[i][0], begins[i] + window[i][0] + sizes[i]) for i in range(rank))
        result = full[(slice(None), slice(None), slice(None), *crop)]
        return result.reshape(batch, groups * out_per_group, *sizes).astype(data.dtype)


@dataclass(eq=False)
class ConvolutionBackpropData(_BackpropBase):
    """ConvolutionBackpropData-1: data [N, C_in, ...], filters [C_in, C_out, *kernel]."""

    type = "ConvolutionBackpropData"
    version = 1
    arity = (2, 3)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        output_shape = inputs[2] if len(inputs) > 2 else None
        return [self._transposed(inputs[0], inputs[1][np.newaxis], output_shape)]


@dataclass(eq=False)
class GroupConvolutionBackpropData(_BackpropBase):
    """GroupConvolutionBackpropData-1: filters [G, C_in/G, C_out/G, *kernel]."""

    type = "GroupConvolutionBackpropData"
    version = 1
    arity = (2, 3)
    _kernel_start = 3

    def _out_channels(self, filters: MaybeShape) -> Dim:
        if filters is None or filters[0] is None or filters[2] is None:
            return None
        return filters[0] * filters[2]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        output_shape = inputs[2] if len(inputs) > 2 else None
        return [self._transposed(inputs[0], inputs[1], output_shape)]


def _conv_nd(data: np.ndarray, filters: np.ndarray, op: _ConvolutionBase) -> np.ndarray:
    """Grouped N-d convolution in NumPy; filters are [G, C_out/G, C_in/G, *kernel]."""
    spatial_rank = data.ndim - 2
    kernel = filters.shape[3:]
    strides = op.strides
    dilations = op.dilations or (1,) * spatial_rank
    if op.auto_pad in (AutoPad.same_upper, AutoPad.same_lower):
        pads = [
            same_pads(data.shape[2 + i], kernel[i], strides[i], dilations[i], op.auto_pad is AutoPad.same_upper)
            for i in range(spatial_rank)
        ]
    elif op.auto_pad is AutoPad.valid or not op.pads_begin:
        pads = [(0, 0)] * spatial_rank
    else:
        pads = list(zip(op.pads_begin, op.pads_end, strict=False))
    padded = np.pad(data, [(0, 0), (0, 0), *pads])
    groups, out_per_group, in_per_group = filters.shape[:3]
    out_spatial = [
        (padded.shape[2 + i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1 for i in range(spatial_rank)
    ]
    batch = data.shape[0]
    result = np.zeros((batch, groups, out_per_group, *out_spatial), dtype=np.float64)
    grouped = padded.reshape(batch, groups, in_per_group, *padded.shape[2:]).astype(np.float64)
    for offset in np.ndindex(*kernel):
        window = tuple(
            slice(
                offset[i] * dilations[i], offset[i] * dilations[i] + (out_spatial[i] - 1) * strides[i] + 1, strides[i]
            )
            for i in range(spatial_rank)
        )
        patch = grouped[(slice(None), slice(None), slice(None), *window)]  # [N, G, Cin/G, *out]
        weights = filters[(slice(None), slice(None), slice(None), *offset)].astype(np.float64)  # [G, Cout/G, Cin/G]
        result += np.einsum("ngc...,goc->ngo...", patch, weights)
    return result.reshape(batch, groups * out_per_group, *out_spatial).astype(data.dtype)


OPS: tuple[type[Op], ...] = (
    Convolution,
    GroupConvolution,
    ConvolutionBackpropData,
    GroupConvolutionBackpropData,
    DeformableConvolution_v1,
    DeformableConvolution,
)
