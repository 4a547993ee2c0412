"""Interpolate-11 on seeded random configurations: shapes and values against the CPU plugin.

Modes nearest / linear / linear_onnx / cubic, every coordinate transformation and nearest
rounding mode, sizes or scales, random spatial axes of 1-D to 3-D images.
"""

from __future__ import annotations

import numpy as np
from irconv_opset import Interpolate
from irconv.runtime import compile_for_comparison

CONFIGS = 60
MODES = ("nearest", "linear", "linear_onnx", "cubic")
TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")


def test_random_resizes_match_the_runtime() -> None:
    import openvino as ov
    import openvino.opset11 as ops
    from openvino.utils.node_factory import NodeFactory

    rng = np.random.default_rng(2024)
    core = ov.Core()
    mismatches = []
    checked = 0
    for _ in range(CONFIGS):
        rank = int(rng.integers(3, 6))
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), *(int(v) for v in rng.integers(1, 7, rank - 2)))
        # Spatial axes only, unpadded: other layouts crash the CPU plugin's compiler on some
        # configurations (a runtime bug a unit test must not trip over).
        spatial = np.arange(2, rank)
        axes = sorted(int(a) for a in rng.choice(spatial, size=int(rng.integers(1, rank - 1)), replace=False))
        by_sizes = bool(rng.integers(0, 2))
        pads_begin = pads_end = (0,)
        if by_sizes:
            target = np.array([int(v) for v in rng.integers(1, 10, len(axes))], np.int64)
        else:
            target = np.round(rng.uniform(0.3, 3.0, len(axes)), 2).astype(np.float32)
        attrs = dict(
            mode=str(rng.choice(MODES)),
            shape_calculation_mode="sizes" if by_sizes else "scales",
            coordinate_transformation_mode=str(rng.choice(TRANSFORMS)),
            nearest_mode=str(rng.choice(NEAREST)),
            antialias=False,
            pads_begin=list(pads_begin),
            pads_end=list(pads_end),
            cube_coeff=float(np.round(rng.uniform(-0.9, -0.4), 2)),
        )
        op = Interpolate(**{k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items()})
        x = rng.standard_normal(shape).astype(np.float32)
        axes_value = np.array(axes, np.int64)
        data = ops.parameter(list(shape), np.float32)  # run the CPU kernel, not constant folding
        node = NodeFactory("opset11").create(
            "Interpolate",
            [data.output(0), ops.constant(target).output(0), ops.constant(axes_value).output(0)],
            attrs,
        )
        if 0 in tuple(node.get_output_shape(0)):
            continue
        try:
            compiled = compile_for_comparison(ov.Model([node.output(0)], [data]), core=core)
        except RuntimeError:
            continue  # a configuration the CPU plugin does not take
        expected = compiled({0: x})[0]
        checked += 1
        ours = op.evaluate([x, target, axes_value])
        assert ours is not None
        if ours[0].shape != expected.shape or not np.allclose(ours[0], expected, rtol=1e-4, atol=1e-4):
            diff = np.abs(ours[0] - expected).max() if ours[0].shape == expected.shape else "shape"
            mismatches.append(
                f"{attrs} axes={axes} target={target.tolist()} on {shape}: {ours[0].shape} vs {expected.shape}, {diff}"
            )
    assert checked > CONFIGS // 2, f"only {checked} configurations ran"
    assert not mismatches, f"{len(mismatches)} of {checked} differ:\n" + "\n".join(mismatches[:8])
