"""Issue 19: graphs irconv once converted into IRs that computed something else, crashed the
CPU plugin or were refused by it. Each case is checked against TensorFlow itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv.runtime import compile_for_comparison

R = np.random.default_rng(19)


def f32(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (R.uniform(-1, 1, shape) * scale).astype(np.float32)


# ------------------------------------------------------------- wrong numbers
@pytest.mark.parametrize("size", [(7, 5), (16, 12), (3, 2), (8, 8)])
@pytest.mark.parametrize("mode", ["half_pixel_centers", "align_corners", "asymmetric"])
def test_resize_nearest_coordinate_modes(size: tuple[int, int], mode: str, tf_check: Any) -> None:
    """Nearest resizing picks floor((y + 0.5) * in / out) with half_pixel_centers."""
    import tensorflow as tf

    flags = {"half_pixel_centers": mode == "half_pixel_centers", "align_corners": mode == "align_corners"}
    tf_check(
        lambda x: tf.raw_ops.ResizeNearestNeighbor(images=x, size=np.array(size, np.int32), **flags),
        [f32(1, 8, 8, 3, scale=5.0)],
        op="ResizeNearestNeighbor",
    )


def test_resize_bilinear_of_uint8_images_is_float(tf_check: Any) -> None:
    import tensorflow as tf

    tf_check(
        lambda x: tf.raw_ops.ResizeBilinear(images=x, size=np.array([5, 7], np.int32), half_pixel_centers=True),
        [R.integers(0, 255, (1, 4, 4, 3)).astype(np.uint8)],
        op="ResizeBilinear",
        atol=1e-4,
    )


def test_slice_with_computed_size_minus_one(tf_check: Any) -> None:
    """size = [rows, -1] computed from an input: -1 still means "to the end"."""
    import tensorflow as tf

    tf_check(lambda x, n: tf.slice(x, tf.stack([0, n]), tf.stack([2, n - 2])), [f32(2, 4), np.int32(1)], op="Slice")


def test_int8_matmul_with_int32_output(tf_check: Any) -> None:
    """int8 x int8 -> int32 (Tout): products up to 127 * 127 * k must not saturate."""
    import tensorflow as tf

    a = R.integers(-128, 127, (3, 8)).astype(np.int8)
    b = R.integers(-128, 127, (8, 2)).astype(np.int8)
    frozen = tf_check(lambda x, y: tf.raw_ops.BatchMatMulV3(x=x, y=y, Tout=tf.int32), [a, b], op="BatchMatMulV3")
    assert np.abs(frozen.expected[0]).max() > 127


# --------------------------------------------------------------- crashes
@pytest.mark.parametrize("version", [3, 4, 5])
def test_nms_with_max_output_size_zero_runs_and_is_empty(version: int, tf_check: Any) -> None:
    import tensorflow as tf

    raw = tf.raw_ops
    common = {"max_output_size": 0, "iou_threshold": 0.5, "score_threshold": np.float32(0.0)}

    def nms(boxes: Any, scores: Any) -> Any:
        if version == 3:
            return raw.NonMaxSuppressionV3(boxes=boxes, scores=scores, **common)
        if version == 4:
            return raw.NonMaxSuppressionV4(boxes=boxes, scores=scores, pad_to_max_output_size=True, **common)
        return raw.NonMaxSuppressionV5(boxes=boxes, scores=scores, soft_nms_sigma=np.float32(0.0), **common)

    corners = R.uniform(0, 0.5, (6, 2)).astype(np.float32)
    frozen = tf_check(
        nms,
        [np.concatenate([corners, corners + 0.4], 1), R.random(6).astype(np.float32)],
        op=f"NonMaxSuppressionV{version}",
    )
    assert frozen.expected[0].shape == (0,)


def test_nms_with_nothing_above_the_score_threshold(tf_check: Any) -> None:
    """Empty only at run time: the extractor must not gather from the empty selection."""
    import tensorflow as tf

    corners = R.uniform(0, 0.5, (6, 2)).astype(np.float32)
    frozen = tf_check(
        lambda b, s: tf.raw_ops.NonMaxSuppressionV5(
            boxes=b,
            scores=s,
            max_output_size=4,
            iou_threshold=0.5,
            score_threshold=np.float32(2.0),
            soft_nms_sigma=np.float32(0.0),
        ),
        [np.concatenate([corners, corners + 0.4], 1), R.random(6).astype(np.float32)],
        op="NonMaxSuppressionV5",
    )
    assert frozen.expected[0].shape == (0,)


# ---------------------------------------------------------- refused IRs
@pytest.mark.parametrize(
    ("shape", "block", "crops"),
    [((8, 3, 5), [2, 2], [[0, 1], [1, 1]]), ((4, 3), [2], [[1, 0]]), ((4, 2, 3, 2, 2), [2, 1], [[0, 0], [1, 0]])],
    ids=["3d_two_block_dims", "2d", "5d_trailing_dims"],
)
def test_batch_to_space_and_back_any_rank(
    shape: tuple[int, ...], block: list[int], crops: list[list[int]], tf_check: Any
) -> None:
    import tensorflow as tf

    tf_check(
        lambda x: tf.raw_ops.BatchToSpaceND(
            input=x, block_shape=np.array(block, np.int32), crops=np.array(crops, np.int32)
        ),
        [f32(*shape)],
        op="BatchToSpaceND",
    )


def test_space_to_batch_on_3d_input(tf_check: Any) -> None:
    import tensorflow as tf

    tf_check(
        lambda x: tf.raw_ops.SpaceToBatchND(
            input=x, block_shape=np.array([2, 3], np.int32), paddings=np.array([[0, 2], [1, 2]], np.int32)
        ),
        [f32(2, 4, 3)],
        op="SpaceToBatchND",
    )


@pytest.mark.parametrize("axis", [[1], [-1], [0]])
def test_expand_dims_with_a_one_element_list_axis(axis: list[int], tf_check: Any) -> None:
    import tensorflow as tf

    tf_check(lambda x: tf.raw_ops.ExpandDims(input=x, axis=np.array(axis, np.int32)), [f32(2, 3)], op="ExpandDims")


@pytest.mark.parametrize("axis", [1, -1, -3])
def test_expand_dims_with_a_computed_axis(axis: int, tf_check: Any) -> None:
    import tensorflow as tf

    tf_check(
        lambda x, a: tf.raw_ops.ExpandDims(input=x, axis=tf.reshape(a, [1])),
        [f32(2, 3), np.int32(axis)],
        op="ExpandDims",
    )


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_half_data_float_statistics(data_format: str, tf_check: Any) -> None:
    import tensorflow as tf

    shape = (1, 4, 4, 3) if data_format == "NHWC" else (1, 3, 4, 4)
    stats = [f32(3, scale=0.5) + 1.0, f32(3), f32(3), f32(3, scale=0.5) + 1.0]
    tf_check(
        lambda x: tf.raw_ops.FusedBatchNormV3(
            x=x,
            scale=stats[0],
            offset=stats[1],
            mean=stats[2],
            variance=stats[3],
            epsilon=0.001,
            is_training=False,
            data_format=data_format,
        )[0],
        [f32(*shape).astype(np.float16)],
        op="FusedBatchNormV3",
        atol=2e-3,
        rtol=2e-3,
    )


def test_fused_batch_norm_training_mode_uses_batch_statistics(tf_check: Any) -> None:
    """is_training=True normalises with the batch's own statistics (the attribute is honoured)."""
    import tensorflow as tf

    tf_check(
        lambda x: tf.raw_ops.FusedBatchNormV3(
            x=x,
            scale=f32(3) + 1.5,
            offset=f32(3),
            mean=np.zeros(0, np.float32),
            variance=np.zeros(0, np.float32),
            epsilon=0.001,
            is_training=True,
        )[:3],
        [f32(2, 4, 5, 3)],
        op="FusedBatchNormV3",
        atol=1e-4,
    )


# ------------------------------------------------------ PlaceholderWithDefault
def _placeholder_graph(path: Path) -> tuple[Path, np.ndarray]:
    import tensorflow as tf

    default = f32(2, 3)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        bias = tf.compat.v1.placeholder_with_default(default, [2, 3], name="bias")
        tf.identity(x * 2.0 + bias, name="y")
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path, default


def _tensorflow_run(path: Path, feed: dict[str, np.ndarray]) -> np.ndarray:
    import tensorflow as tf

    graph_def = tf.compat.v1.GraphDef.FromString(path.read_bytes())
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return np.asarray(session.run("y:0", {f"{k}:0": v for k, v in feed.items()}))


def test_placeholder_with_default_stays_an_input(run_converted: Any, tmp_path: Path) -> None:
    """A value fed to a PlaceholderWithDefault counts, as in TensorFlow."""
    model, _ = _placeholder_graph(tmp_path / "model.pb")
    feed = {"x": f32(2, 3), "bias": f32(2, 3)}
    (got,), ir = run_converted(model, feed, tmp_path)
    assert {n for port in ir.inputs for n in port.get_names()} >= {"x", "bias"}
    np.testing.assert_allclose(got, _tensorflow_run(model, feed), atol=1e-6)


def test_placeholder_with_default_frozen_on_request_and_named(tmp_path: Path) -> None:
    model, default = _placeholder_graph(tmp_path / "model.pb")
    kept = subprocess.run(
        [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(tmp_path / "kept.xml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert kept.returncode == 0, kept.stderr
    assert "PlaceholderWithDefault kept as model input(s)" in kept.stdout and "bias" in kept.stdout
    frozen = subprocess.run(
        [
            sys.executable,
            "-m",
            "irconv",
            "convert",
            str(model),
            "-o",
            str(tmp_path / "frozen.xml"),
            "--freeze-placeholder-with-default",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert frozen.returncode == 0, frozen.stderr
    assert "PlaceholderWithDefault frozen to its default value: bias" in frozen.stdout
    import openvino as ov

    core = ov.Core()
    compiled = compile_for_comparison(tmp_path / "frozen.xml", core=core)
    assert [sorted(p.get_names()) for p in compiled.inputs] == [["x", "x:0"]]
    x = f32(2, 3)
    got = compiled([x])[compiled.outputs[0]]
    np.testing.assert_allclose(got, _tensorflow_run(model, {"x": x}), atol=1e-3)  # fp16 weights by default
