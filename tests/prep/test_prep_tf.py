"""TensorFlow (channels-last) models with the preparation options, against TensorFlow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

MEANS = np.array([123.7, 116.3, 103.5], np.float32)
SCALES = np.array([58.4, 57.1, 57.4], np.float32)


@pytest.fixture(scope="module")
def tf() -> Any:
    return pytest.importorskip("tensorflow")


def conv_net(tf: Any, padding: str) -> Any:
    rng = np.random.default_rng(5)
    kernel = tf.constant(rng.normal(0, 0.3, (3, 3, 3, 6)).astype(np.float32))
    bias = tf.constant(rng.normal(0, 0.3, (6,)).astype(np.float32))

    def fn(x: Any) -> Any:
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, kernel, strides=1, padding=padding), bias))

    return fn


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_mean_scale_reverse_on_a_channels_last_input(kit: Any, tf: Any, tmp_path: Path, padding: str) -> None:
    fn = conv_net(tf, padding)
    model = tmp_path / "conv.pb"
    frozen = kit.freeze_tf(fn, [("in0", (1, 9, 9, 3), tf.float32)], model)
    plain, out = tmp_path / "plain.xml", tmp_path / "prep.xml"
    assert kit.convert(model, plain) == 0
    given = [
        "--mean-values",
        f"in0[{','.join(map(str, MEANS))}]",
        "--scale-values",
        f"in0[{','.join(map(str, SCALES))}]",
    ]
    assert kit.convert(model, out, *given, "--reverse-input-channels") == 0
    if padding == "VALID":
        assert kit.layer_types(out) == kit.layer_types(plain)  # all folded
    bgr = kit.rgb_image((1, 9, 9, 3))
    got = next(iter(kit.run(out, {"in0": bgr}).values()))
    prepared = (bgr[..., ::-1] - MEANS) / SCALES
    expected = np.asarray(frozen(tf.constant(prepared.astype(np.float32)))[0])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


def test_freeze_placeholder_with_value(kit: Any, tf: Any, tmp_path: Path) -> None:
    def fn(x: Any, rate: Any) -> Any:
        return x * rate + tf.reduce_sum(rate)

    model = tmp_path / "rate.pb"
    frozen = kit.freeze_tf(fn, [("in0", (2, 4), tf.float32), ("in1", (), tf.float32)], model)
    out = tmp_path / "frozen.xml"
    assert kit.convert(model, out, "--freeze-placeholder-with-value", "in1->0.25") == 0
    assert "Parameter" in kit.layer_types(out) and kit.layer_types(out).count("Parameter") == 1
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    got = next(iter(kit.run(out, {"in0": x}).values()))
    expected = np.asarray(frozen(tf.constant(x), tf.constant(np.float32(0.25)))[0])
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_nchw_input_batch_and_scale_for_a_channels_last_model(kit: Any, tf: Any, tmp_path: Path) -> None:
    """--layout in0(nhwc->nchw) --batch 2 --scale 255 on a dynamic-batch NHWC graph."""
    import openvino as ov

    fn = conv_net(tf, "SAME")
    model = tmp_path / "conv.pb"
    frozen = kit.freeze_tf(fn, [("in0", (None, 9, 9, 3), tf.float32)], model)
    plain, out = tmp_path / "plain.xml", tmp_path / "prep.xml"
    assert kit.convert(model, plain, "--layout", "in0(nhwc->nchw)", "--batch", "2") == 0
    assert kit.convert(model, out, "--layout", "in0(nhwc->nchw)", "--batch", "2", "--scale", "255") == 0
    assert kit.layer_types(out) == kit.layer_types(plain)  # the scale went into the weights
    assert list(ov.Core().read_model(str(out)).input(0).get_partial_shape().to_shape()) == [2, 3, 9, 9]
    nchw = kit.rgb_image((2, 3, 9, 9), seed=6)
    got = next(iter(kit.run(out, {"in0": nchw}).values()))
    expected = np.asarray(frozen(tf.constant(nchw.transpose(0, 2, 3, 1) / 255))[0])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))
