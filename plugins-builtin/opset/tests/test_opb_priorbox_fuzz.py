"""PriorBox-8 and PriorBoxClustered-1 on seeded random attributes: ``evaluate`` (the boxes
constant folding writes into SSD models) against the runtime's own computation."""

from __future__ import annotations

import numpy as np
from irconv_opset import PriorBox, PriorBoxClustered
from irconv.runtime import compile_for_comparison

CONFIGS = 40


def _run(op_type: str, version: int, attrs: dict, layer: np.ndarray, image: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    import openvino as ov
    import openvino.opset14 as ops
    from openvino.utils.node_factory import NodeFactory

    # Shape inputs as Parameters: the CPU kernel computes the boxes, not constant folding.
    layer_in, image_in = ops.parameter([2], np.int64), ops.parameter([2], np.int64)
    node = NodeFactory(f"opset{version}").create(op_type, [layer_in.output(0), image_in.output(0)], attrs)
    try:
        compiled = compile_for_comparison(ov.Model([node.output(0)], [layer_in, image_in]))
        return compiled({0: layer, 1: image})[0]
    except RuntimeError:
        # The CPU plugin runs PriorBox-8 with min_max_aspect_ratios_order=false only folded.
        node = NodeFactory(f"opset{version}").create(
            op_type, [ops.constant(layer).output(0), ops.constant(image).output(0)], attrs
        )
        unused = ops.parameter([1], np.float32)
        compiled = compile_for_comparison(ov.Model([node.output(0)], [unused]))
        return compiled({0: np.zeros(1, np.float32)})[0]


def _random_prior_box(rng: np.random.Generator) -> dict:  # type: ignore[type-arg]
    attrs: dict = {  # type: ignore[type-arg]
        "min_size": [], "max_size": [], "aspect_ratio": [], "fixed_size": [], "fixed_ratio": [], "density": [],
        "flip": bool(rng.integers(0, 2)), "clip": bool(rng.integers(0, 2)),
        "step": float(rng.choice((0.0, 8.0, 16.0, 12.5))), "offset": float(rng.choice((0.5, 0.0, 0.3))),
        "variance": [0.1] if rng.integers(0, 2) else [0.1, 0.1, 0.2, 0.2],
        "scale_all_sizes": True, "min_max_aspect_ratios_order": bool(rng.integers(0, 2)),
    }  # fmt: skip
    sizes = sorted(float(v) for v in np.round(rng.uniform(8, 120, int(rng.integers(1, 3))), 1))
    attrs["min_size"] = sizes
    if rng.integers(0, 2):
        attrs["max_size"] = [s + float(np.round(rng.uniform(5, 60), 1)) for s in sizes]
    attrs["aspect_ratio"] = [float(v) for v in rng.choice((2.0, 3.0, 0.5, 1.0, 2.0), int(rng.integers(0, 4)))]
    if rng.integers(0, 4) == 0:
        # MXNet-style: sizes and step are fractions of the image; the runtime counts no max boxes.
        attrs.update(scale_all_sizes=False, max_size=[], step=float(rng.choice((0.0, 0.25, 0.5))))
        attrs["min_size"] = [float(v) for v in np.round(rng.uniform(0.05, 0.9, len(sizes)), 2)]
    elif rng.integers(0, 4) == 0:
        # Fixed-size boxes on a density grid, alone: the runtime sizes its buffer without the
        # min/max boxes, so combining them overruns it.
        attrs.update(min_size=[], max_size=[])
        attrs["fixed_size"] = [float(v) for v in rng.choice((16.0, 32.0, 48.0), int(rng.integers(1, 3)), replace=False)]
        attrs["density"] = [float(v) for v in rng.integers(1, 4, len(attrs["fixed_size"]))]
        if rng.integers(0, 2):
            # One fixed ratio per aspect ratio keeps the runtime's box count consistent.
            count = len({1.0, *attrs["aspect_ratio"], *[1 / a for a in attrs["aspect_ratio"] if attrs["flip"]]})
            if count <= 4:
                attrs["fixed_ratio"] = [float(v) for v in rng.choice((1.0, 2.0, 0.5, 3.0), count, replace=False)]
    return attrs


def test_random_prior_boxes_match_the_runtime() -> None:
    rng = np.random.default_rng(8)
    mismatches = []
    for _ in range(CONFIGS):
        attrs = _random_prior_box(rng)
        layer = np.array([int(v) for v in rng.integers(1, 12, 2)], np.int64)
        image = layer * int(rng.choice((8, 16, 32))) + np.array([int(v) for v in rng.integers(0, 7, 2)], np.int64)
        op = PriorBox(**{k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items()})
        expected = _run("PriorBox", 8, attrs, layer, image)
        ours = op.evaluate([layer, image])[0]  # type: ignore[index]
        if ours.shape != expected.shape or not np.allclose(ours, expected, rtol=0, atol=1e-6):
            detail = (
                np.abs(ours - expected).max() if ours.shape == expected.shape else f"{ours.shape} vs {expected.shape}"
            )
            mismatches.append(f"{attrs} layer={layer.tolist()} image={image.tolist()}: {detail}")
    assert not mismatches, f"{len(mismatches)} of {CONFIGS} differ:\n" + "\n".join(mismatches[:6])


def test_random_clustered_prior_boxes_match_the_runtime() -> None:
    rng = np.random.default_rng(9)
    mismatches = []
    for _ in range(CONFIGS):
        count = int(rng.integers(1, 5))
        attrs = {
            "width": [float(v) for v in np.round(rng.uniform(4, 90, count), 2)],
            "height": [float(v) for v in np.round(rng.uniform(4, 90, count), 2)],
            "clip": bool(rng.integers(0, 2)),
            "step": 0.0,
            "step_w": float(rng.choice((0.0, 8.0, 16.0))),
            "step_h": float(rng.choice((0.0, 8.0, 16.0))),
            "offset": float(rng.choice((0.5, 0.0))),
            "variance": [0.1] if rng.integers(0, 2) else [0.1, 0.1, 0.2, 0.2],
        }
        layer = np.array([int(v) for v in rng.integers(1, 12, 2)], np.int64)
        image = layer * 16
        op = PriorBoxClustered(**{k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items()})
        expected = _run("PriorBoxClustered", 1, attrs, layer, image)
        ours = op.evaluate([layer, image])[0]  # type: ignore[index]
        if ours.shape != expected.shape or not np.allclose(ours, expected, rtol=0, atol=1e-6):
            detail = (
                np.abs(ours - expected).max() if ours.shape == expected.shape else f"{ours.shape} vs {expected.shape}"
            )
            mismatches.append(f"{attrs} layer={layer.tolist()}: {detail}")
    assert not mismatches, f"{len(mismatches)} of {CONFIGS} differ:\n" + "\n".join(mismatches[:6])
