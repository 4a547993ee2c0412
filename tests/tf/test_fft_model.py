"""A small audio classifier on FFT features (framed signal -> STFT -> log magnitude -> Dense),
with seeded random weights, frozen and converted; and a complex model output refused clearly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest


def _classifier() -> Any:
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    signal = tf.keras.Input((1024,), name="signal")
    spectrum = tf.keras.layers.Lambda(
        lambda s: tf.signal.stft(s, frame_length=128, frame_step=64, fft_length=128, window_fn=tf.signal.hann_window)
    )(signal)
    features = tf.keras.layers.Lambda(lambda z: tf.math.log(tf.math.abs(z) + 1e-3))(spectrum)  # [B, 15, 65]
    x = tf.keras.layers.Dense(32, activation="relu")(features)
    x = tf.keras.layers.GlobalAveragePooling1D()(x)
    return tf.keras.Model(signal, tf.keras.layers.Dense(5)(x))


def test_stft_log_magnitude_classifier(tf_check: Any) -> None:
    model = _classifier()
    t = np.arange(1024, dtype=np.float32) / 8000.0
    rng = np.random.default_rng(0)
    x = np.stack([np.sin(2 * np.pi * f * t) for f in (440.0, 1250.0)]) + 0.1 * rng.standard_normal((2, 1024))
    frozen = tf_check(lambda s: model(s, training=False), [x.astype(np.float32)], op="RFFT", atol=1e-4, rtol=1e-4)
    assert "ComplexAbs" in frozen.ops


def test_spectral_filter_round_trip(tf_check: Any) -> None:
    """rfft -> a complex gain applied through Real/Imag and Complex -> irfft; and the magnitude of
    a 2-D FFT of the filtered signal."""
    import tensorflow as tf

    rng = np.random.default_rng(1)
    gain_re = rng.uniform(0.5, 1.5, (33,)).astype(np.float32)
    gain_im = rng.uniform(-0.5, 0.5, (33,)).astype(np.float32)

    def fn(x: Any) -> Any:
        z = tf.signal.rfft(x)  # [B, 4, 33]
        re, im = tf.math.real(z), tf.math.imag(z)
        filtered = tf.complex(re * gain_re - im * gain_im, re * gain_im + im * gain_re)
        smoothed = tf.signal.irfft(filtered)  # [B, 4, 64]
        energy = tf.math.abs(tf.signal.fft2d(tf.complex(smoothed, tf.zeros_like(smoothed))))
        return smoothed, tf.reduce_mean(energy, axis=-1)

    tf_check(fn, [rng.standard_normal((2, 4, 64)).astype(np.float32)], op="IRFFT", atol=1e-4, rtol=1e-4)


def test_complex_model_output_is_refused(tmp_path: Path) -> None:
    import tensorflow as tf
    from irconv.api import convert_model
    from irconv.errors import ConversionError

    from tests.tf.conftest import freeze

    frozen = freeze(lambda x: tf.signal.rfft(x), [np.zeros((2, 16), np.float32)], tmp_path / "model.pb")
    with pytest.raises(ConversionError, match="complex output is a model output"):
        convert_model(frozen.path)


def test_other_ops_on_complex_values_are_refused(tmp_path: Path) -> None:
    """A Mul of complex tensors would multiply the [..., 2] pairs element-wise: refused."""
    import tensorflow as tf
    from irconv.api import convert_model
    from irconv.errors import ConversionError

    from tests.tf.conftest import freeze

    def fn(x: Any) -> Any:
        z = tf.signal.rfft(x)
        return tf.math.real(z * z)

    frozen = freeze(fn, [np.ones((2, 16), np.float32)], tmp_path / "model.pb")
    with pytest.raises(ConversionError, match=r"read by node .*\(Mul\), which irconv cannot run on complex"):
        convert_model(frozen.path)


def test_complex_model_input_is_refused(tmp_path: Path) -> None:
    import tensorflow as tf
    from irconv.api import convert_model
    from irconv.errors import ConversionError

    from tests.tf.conftest import freeze

    frozen = freeze(lambda z: tf.math.abs(z), [np.ones((2, 4), np.complex64)], tmp_path / "model.pb")
    with pytest.raises(ConversionError, match="DT_COMPLEX64.*not supported here"):
        convert_model(frozen.path)
