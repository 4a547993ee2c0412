"""Image ops: resizing (Interpolate), grid sampling and region-of-interest pooling."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, attr
from irconv.types import Dim, MaybeShape

from irconv_opset.ops import _resize
from irconv_opset.ops._attrs import CoercedAttrs
from irconv_opset.ops._spatial import input_shape, input_type, merge_dim, set_output
from irconv_opset.rules import require_float, require_integer, require_static_inputs
from irconv_opset.shapes import in_value

if TYPE_CHECKING:
    from irconv.graph import Node


class InterpolateMode(str, enum.Enum):
    nearest = "nearest"
    linear = "linear"
    linear_onnx = "linear_onnx"
    cubic = "cubic"
    bilinear_pillow = "bilinear_pillow"  # Interpolate-11 only
    bicubic_pillow = "bicubic_pillow"  # Interpolate-11 only


class ShapeCalculationMode(str, enum.Enum):
    sizes = "sizes"
    scales = "scales"


class CoordinateTransformationMode(str, enum.Enum):
    half_pixel = "half_pixel"
    pytorch_half_pixel = "pytorch_half_pixel"
    asymmetric = "asymmetric"
    tf_half_pixel_for_nn = "tf_half_pixel_for_nn"
    align_corners = "align_corners"


class NearestMode(str, enum.Enum):
    round_prefer_floor = "round_prefer_floor"
    round_prefer_ceil = "round_prefer_ceil"
    floor = "floor"
    ceil = "ceil"
    simple = "simple"


# The runtime adds this before flooring ``size * scale`` so that 0.6 * 5 gives 3.
_SCALE_EPSILON = 1.0e-5


class InterpolateV1Mode(str, enum.Enum):
    nearest = "nearest"
    linear = "linear"
    cubic = "cubic"
    area = "area"


@dataclass(eq=False)
class Interpolate_v1(CoercedAttrs, Op):
    """Interpolate-1: input 1 gives the new sizes of the ``axes``."""

    type = "Interpolate"
    version = 1
    arity = (2, 2)

    axes: tuple[int, ...] = attr(())
    #: ``area`` too in the specification; the CPU plugin has no kernel for it
    mode: InterpolateV1Mode = attr(InterpolateV1Mode.nearest, choices=("nearest", "linear", "cubic"))
    align_corners: bool = attr(False)
    antialias: bool = attr(False)
    pads_begin: tuple[int, ...] = attr((0,))
    pads_end: tuple[int, ...] = attr((0,))

    def infer(self, node: Node) -> None:
        data = input_shape(node, 0)
        if data is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        sizes = in_value(node, 1)
        out: list[Dim] = list(data)
        for i, axis in enumerate(self.axes):
            out[axis] = None if sizes is None else int(np.asarray(sizes).reshape(-1)[i])
        set_output(node, 0, tuple(out), input_type(node, 0))


@dataclass(eq=False)
class _InterpolateBase(CoercedAttrs, Op):
    mode: InterpolateMode = attr(InterpolateMode.nearest)
    shape_calculation_mode: ShapeCalculationMode = attr(ShapeCalculationMode.sizes)
    coordinate_transformation_mode: CoordinateTransformationMode = attr(CoordinateTransformationMode.half_pixel)
    nearest_mode: NearestMode = attr(NearestMode.round_prefer_floor)
    antialias: bool = attr(False)
    pads_begin: tuple[int, ...] = attr((0,))
    pads_end: tuple[int, ...] = attr((0,))
    cube_coeff: float = attr(-0.75)

    def _input_roles(self) -> tuple[int, int | None]:
        """Index of the input holding the target (sizes or scales) and of ``axes`` (or None)."""
        raise NotImplementedError

    def infer(self, node: Node) -> None:
        data = input_shape(node, 0)
        if data is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        rank = len(data)
        padded = [
            None if d is None else d + _pad(self.pads_begin, i) + _pad(self.pads_end, i) for i, d in enumerate(data)
        ]
        target_idx, axes_idx = self._input_roles()
        if self.shape_calculation_mode is ShapeCalculationMode.scales:
            require_float(node, target_idx, "scales")
        else:
            require_integer(node, target_idx, "sizes")
        target = in_value(node, target_idx)
        axes_known = True
        if axes_idx is not None and node.num_inputs() > axes_idx and node.has_input(axes_idx):
            axes_value = in_value(node, axes_idx)
            if axes_value is None:
                axes_known = False
                axes: list[int] = []
            else:
                axes = [int(a) + rank if a < 0 else int(a) for a in np.asarray(axes_value).reshape(-1)]
        else:
            axes = list(range(rank))
        if not axes_known:
            set_output(node, 0, (None,) * rank, input_type(node, 0))
            return
        out: list[Dim] = list(padded)
        for i, axis in enumerate(axes):
            if target is None:
                out[axis] = None
            elif self.shape_calculation_mode is ShapeCalculationMode.sizes:
                out[axis] = int(np.asarray(target).reshape(-1)[i])
            else:
                scale = float(np.asarray(target, np.float32).reshape(-1)[i])
                size = padded[axis]
                out[axis] = None if size is None else math.floor(size * scale + _SCALE_EPSILON)
        set_output(node, 0, tuple(out), input_type(node, 0))

    def _target_and_axes(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, list[int]]:
        """The sizes or scales (per ``shape_calculation_mode``) and the axes they apply to."""
        target_idx, axes_idx = self._input_roles()
        rank = np.asarray(inputs[0]).ndim
        if axes_idx is not None and len(inputs) > axes_idx:
            axes = [int(a) + rank if a < 0 else int(a) for a in np.asarray(inputs[axes_idx]).reshape(-1)]
        else:
            axes = list(range(rank))
        return np.asarray(inputs[target_idx]).reshape(-1), axes

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        sampler = self._sampler()
        if sampler is None or self.antialias:
            return None  # pillow modes and antialiasing: not folded
        data = np.asarray(inputs[0])
        pads = [(_pad(self.pads_begin, i), _pad(self.pads_end, i)) for i in range(data.ndim)]
        padded = np.pad(data, pads)
        target, axes = self._target_and_axes(inputs)
        plan = []
        for i, axis in enumerate(axes):
            length = padded.shape[axis]
            if self.shape_calculation_mode is ShapeCalculationMode.sizes:
                size = int(target[i])
                scale = np.float32(size) / np.float32(length)
            else:
                scale = np.float32(target[i])
                size = math.floor(length * float(scale) + _SCALE_EPSILON)
            if size != length:  # the runtime copies an axis whose length does not change
                plan.append((axis, size, scale))
        return [_resize.resize(padded, plan, sampler).astype(data.dtype)]

    def _sampler(self) -> _resize.Sampler | None:
        transform = self.coordinate_transformation_mode.value
        if self.mode is InterpolateMode.nearest:
            nearest = self.nearest_mode.value

            def pick(data: np.ndarray, axis: int, size: int, scale: np.float32) -> tuple[np.ndarray, None]:
                length = data.shape[axis]
                coords = _resize.source_coordinates(transform, size, length, scale)
                return _resize.nearest_indices(nearest, coords, length, scale), None

            return pick
        # Without antialiasing the runtime's triangle-filter ``linear`` is plain bilinear too.
        if self.mode in (InterpolateMode.linear_onnx, InterpolateMode.linear):

            def blend(data: np.ndarray, axis: int, size: int, scale: np.float32) -> tuple[np.ndarray, np.ndarray]:
                length = data.shape[axis]
                return _resize.linear_weights(_resize.source_coordinates(transform, size, length, scale), length)

            return blend
        if self.mode is InterpolateMode.cubic:
            a = self.cube_coeff

            def cubic(data: np.ndarray, axis: int, size: int, scale: np.float32) -> tuple[np.ndarray, np.ndarray]:
                length = data.shape[axis]
                return _resize.cubic_weights(_resize.source_coordinates(transform, size, length, scale), length, a)

            return cubic
        return None


def _pad(pads: Sequence[int], axis: int) -> int:
    return pads[axis] if axis < len(pads) else 0


@dataclass(eq=False)
class Interpolate_v4(_InterpolateBase):
    """Interpolate-4: inputs data, sizes, scales, optional axes."""

    type = "Interpolate"
    version = 4
    arity = (3, 4)

    #: the ``*_pillow`` modes came with Interpolate-11
    mode: InterpolateMode = attr(InterpolateMode.nearest, choices=("nearest", "linear", "linear_onnx", "cubic"))

    def _input_roles(self) -> tuple[int, int | None]:
        return (1 if self.shape_calculation_mode is ShapeCalculationMode.sizes else 2), 3


@dataclass(eq=False)
class Interpolate(_InterpolateBase):
    """Interpolate-11: inputs data, scales_or_sizes, optional axes."""

    type = "Interpolate"
    version = 11
    arity = (2, 3)

    def _input_roles(self) -> tuple[int, int | None]:
        return 1, 2


class GridSampleMode(str, enum.Enum):
    bilinear = "bilinear"
    bicubic = "bicubic"
    nearest = "nearest"


class GridSamplePadding(str, enum.Enum):
    zeros = "zeros"
    border = "border"
    reflection = "reflection"


@dataclass(eq=False)
class GridSample(CoercedAttrs, Op):
    """GridSample-9: data [N, C, H, W] sampled at grid [N, H_out, W_out, 2] (x, y in [-1, 1])."""

    type = "GridSample"
    version = 9
    arity = (2, 2)

    align_corners: bool = attr(False)
    mode: GridSampleMode = attr(GridSampleMode.bilinear)
    padding_mode: GridSamplePadding = attr(GridSamplePadding.zeros)

    def infer(self, node: Node) -> None:
        data, grid = input_shape(node, 0), input_shape(node, 1)
        batch = merge_dim(data[0] if data else None, grid[0] if grid else None)
        channels = data[1] if data else None
        spatial: tuple[Dim, Dim] = (grid[1], grid[2]) if grid else (None, None)
        set_output(node, 0, (batch, channels, *spatial), input_type(node, 0))


class ROIAlignMode(str, enum.Enum):
    avg = "avg"
    max = "max"


class ROIAlignAlignedMode(str, enum.Enum):
    asymmetric = "asymmetric"
    half_pixel_for_nn = "half_pixel_for_nn"
    half_pixel = "half_pixel"


def _rois_count(node: Node, *inputs: int) -> Dim:
    count: Dim = None
    for idx in inputs:
        shape = input_shape(node, idx)
        if shape is not None and shape:
            count = merge_dim(count, shape[0])
    return count


def _channels(data: MaybeShape) -> Dim:
    return data[1] if data is not None and len(data) > 1 else None


@dataclass(eq=False)
class ROIAlign_v3(CoercedAttrs, Op):
    """ROIAlign-3: data [N, C, H, W], rois [R, 4], batch_indices [R] -> [R, C, pooled_h, pooled_w]."""

    type = "ROIAlign"
    version = 3
    arity = (3, 3)

    pooled_h: int = attr(1)
    pooled_w: int = attr(1)
    sampling_ratio: int = attr(0)
    spatial_scale: float = attr(1.0)
    mode: ROIAlignMode = attr(ROIAlignMode.avg)

    def infer(self, node: Node) -> None:
        shape = (_rois_count(node, 1, 2), _channels(input_shape(node, 0)), self.pooled_h, self.pooled_w)
        set_output(node, 0, shape, input_type(node, 0))


@dataclass(eq=False)
class ROIAlign(ROIAlign_v3):
    """ROIAlign-9: adds ``aligned_mode`` (pixel-centre conventions)."""

    type = "ROIAlign"
    version = 9

    aligned_mode: ROIAlignAlignedMode = attr(ROIAlignAlignedMode.asymmetric)


class ROIPoolingMethod(str, enum.Enum):
    max = "max"
    bilinear = "bilinear"


@dataclass(eq=False)
class ROIPooling(CoercedAttrs, Op):
    """ROIPooling-2: data [N, C, H, W], rois [R, 5] (batch, x1, y1, x2, y2) -> [R, C, pooled_h, pooled_w]."""

    type = "ROIPooling"
    version = 2
    arity = (2, 2)

    pooled_h: int = attr(1)
    pooled_w: int = attr(1)
    spatial_scale: float = attr(1.0)
    method: ROIPoolingMethod = attr(ROIPoolingMethod.max)

    def infer(self, node: Node) -> None:
        shape = (_rois_count(node, 1), _channels(input_shape(node, 0)), self.pooled_h, self.pooled_w)
        set_output(node, 0, shape, input_type(node, 0))


class PSROIPoolingMode(str, enum.Enum):
    average = "average"
    bilinear = "bilinear"


@dataclass(eq=False)
class PSROIPooling(CoercedAttrs, Op):
    """PSROIPooling-1: position-sensitive ROI pooling -> [R, output_dim, group_size, group_size]."""

    type = "PSROIPooling"
    version = 1
    arity = (2, 2)

    output_dim: int = attr(1)
    group_size: int = attr(1)
    spatial_scale: float = attr(1.0)
    spatial_bins_x: int = attr(1)
    spatial_bins_y: int = attr(1)
    mode: PSROIPoolingMode = attr(PSROIPoolingMode.average)

    def infer(self, node: Node) -> None:
        data = input_shape(node, 0)
        bins = (
            self.group_size**2 if self.mode is PSROIPoolingMode.average else self.spatial_bins_x * self.spatial_bins_y
        )
        if data is not None and len(data) > 1 and data[1] is not None and data[1] != self.output_dim * bins:
            raise ConversionError(
                f"node {quoted(node.name)} ({self.describe()}): the input has {data[1]} channels; mode={self.mode.value} "
                f"needs output_dim x {bins} = {self.output_dim * bins}"
            )
        shape = (_rois_count(node, 1), self.output_dim, self.group_size, self.group_size)
        set_output(node, 0, shape, input_type(node, 0))

    def check(self, node: Node) -> None:
        require_static_inputs(node, {0: "data", 1: "boxes"})


OPS: tuple[type[Op], ...] = (
    Interpolate_v1,
    Interpolate_v4,
    Interpolate,
    GridSample,
    ROIAlign_v3,
    ROIAlign,
    ROIPooling,
    PSROIPooling,
)
