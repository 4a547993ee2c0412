"""Cases for the image family, checked against the OpenVINO runtime (shapes and types)."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    GridSample,
    Interpolate,
    Interpolate_v1,
    Interpolate_v4,
    PSROIPooling,
    ROIAlign,
    ROIAlign_v3,
    ROIPooling,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(5)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


CASES: list[OpCase] = [
    OpCase(
        Interpolate(mode="nearest", shape_calculation_mode="sizes"),
        [tensor(1, 3, 5, 7), const(i64(10, 14)), const(i64(2, 3))],
        id="interp11_sizes_axes",
    ),
    OpCase(
        Interpolate(mode="linear", shape_calculation_mode="scales", coordinate_transformation_mode="align_corners"),
        [tensor(1, 3, 5, 7), const(f32(0.6, 1.3)), const(i64(2, 3))],
        id="interp11_scales",
        atol=1e-4,
    ),
    OpCase(
        Interpolate(mode="cubic", shape_calculation_mode="scales", pads_begin=(0, 0, 1, 0), pads_end=(0, 0, 1, 2)),
        [tensor(1, 2, 4, 4), const(f32(1.0, 1.0, 2.0, 0.5))],
        id="interp11_pads_all_axes",
    ),
    OpCase(
        Interpolate(mode="bilinear_pillow", shape_calculation_mode="sizes", antialias=True),
        [tensor(1, 2, 8, 8), const(i64(3, 5)), const(i64(2, 3))],
        id="interp11_pillow",
        check_values=False,
    ),
    OpCase(
        Interpolate(mode="nearest", shape_calculation_mode="sizes"),
        [tensor(1, 3, 5, 7), i64(10, 14), const(i64(2, 3))],
        id="interp11_sizes_from_input",
    ),
    OpCase(
        Interpolate_v4(mode="nearest", shape_calculation_mode="sizes", nearest_mode="floor"),
        [tensor(1, 3, 5, 7), const(i64(9, 2)), const(f32(1.0, 1.0)), const(i64(2, 3))],
        id="interp4_sizes",
    ),
    OpCase(
        Interpolate_v4(
            mode="linear_onnx", shape_calculation_mode="scales", coordinate_transformation_mode="asymmetric"
        ),
        [tensor(2, 3, 5, 7), const(i64(1, 1)), const(f32(2.0, 0.7)), const(i64(2, 3))],
        id="interp4_scales",
    ),
    OpCase(
        GridSample(align_corners=True, mode="nearest", padding_mode="border"),
        [tensor(2, 3, 6, 7), rng.uniform(-1, 1, (2, 4, 5, 2)).astype(np.float32)],
        id="grid_sample",
        check_values=False,
    ),
    OpCase(
        ROIAlign(pooled_h=3, pooled_w=2, sampling_ratio=2, spatial_scale=0.5, mode="max", aligned_mode="half_pixel"),
        [tensor(2, 4, 8, 8), const(f32(0, 0, 6, 6, 2, 2, 10, 12).reshape(2, 4)), const(np.array([0, 1], np.int32))],
        id="roi_align",
        check_values=False,
    ),
    OpCase(
        ROIPooling(pooled_h=2, pooled_w=3, spatial_scale=0.25),
        [tensor(1, 4, 8, 8), const(f32(0, 0, 0, 12, 12, 0, 4, 4, 20, 28).reshape(2, 5))],
        id="roi_pooling",
        check_values=False,
    ),
    OpCase(
        PSROIPooling(output_dim=2, group_size=3, spatial_scale=0.5),
        [tensor(1, 18, 8, 8), const(f32(0, 0, 0, 12, 12, 0, 4, 4, 14, 14).reshape(2, 5))],
        id="ps_roi_pooling",
        check_values=False,
        dynamic=False,  # the CPU plugin has no dynamic-shape PSROIPooling
    ),
    OpCase(
        Interpolate_v1(axes=(2, 3), mode="linear"),
        [tensor(1, 3, 5, 7), const(i64(10, 3))],
        id="interp1",
        check_values=False,
    ),
    OpCase(
        ROIAlign_v3(pooled_h=2, pooled_w=2, sampling_ratio=1, spatial_scale=1.0),
        [tensor(2, 3, 6, 6), const(f32(0, 0, 3, 3, 1, 1, 5, 4).reshape(2, 4)), const(np.array([1, 0], np.int64))],
        id="roi_align_v3",
        check_values=False,
    ),
    *(
        OpCase(
            Interpolate(
                mode=mode, shape_calculation_mode=calc, coordinate_transformation_mode=transform, nearest_mode=nearest
            ),
            [tensor(1, 2, 6, 5), const(target), const(i64(2, 3))],
            id=f"interp11_{mode}_{transform}_{nearest}_{calc}",
            atol=1e-4,
        )
        for mode, transform, nearest in (
            ("nearest", "half_pixel", "round_prefer_ceil"),
            ("nearest", "asymmetric", "floor"),
            ("nearest", "tf_half_pixel_for_nn", "ceil"),
            ("nearest", "align_corners", "round_prefer_floor"),
            ("nearest", "pytorch_half_pixel", "simple"),
            ("linear_onnx", "half_pixel", "round_prefer_floor"),
            ("linear_onnx", "align_corners", "round_prefer_floor"),
            ("linear_onnx", "pytorch_half_pixel", "round_prefer_floor"),
            ("linear", "half_pixel", "round_prefer_floor"),
            ("linear", "asymmetric", "round_prefer_floor"),
            ("linear", "tf_half_pixel_for_nn", "round_prefer_floor"),
            ("cubic", "half_pixel", "round_prefer_floor"),
            ("cubic", "asymmetric", "round_prefer_floor"),
        )
        for calc, target in (("scales", f32(2.0, 0.6)), ("sizes", i64(4, 9)))
    ),
]
