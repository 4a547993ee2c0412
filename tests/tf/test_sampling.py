"""Multinomial draws from TensorFlow's distribution (its random stream cannot be matched):
class frequencies of many draws against TensorFlow's own, per row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def test_multinomial_class_frequencies_match_tensorflow(tmp_path: Path, run_converted: Any) -> None:
    import tensorflow as tf

    from tests.tf.conftest import freeze

    probabilities = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    logits = np.log(np.maximum(probabilities, 1e-30)).astype(np.float32)
    draws = 20000
    frozen = freeze(
        lambda x: tf.raw_ops.Multinomial(logits=x, num_samples=draws, seed=1, seed2=2), [logits], tmp_path / "m.pb"
    )
    (got,), _ = run_converted(frozen.path, frozen.inputs, tmp_path)
    (expected,) = frozen.expected
    assert got.dtype == expected.dtype and got.shape == expected.shape == (2, draws)
    for row in range(2):
        ours = np.bincount(got[row], minlength=3) / draws
        theirs = np.bincount(expected[row], minlength=3) / draws
        np.testing.assert_allclose(ours, theirs, atol=0.02)  # ~6 standard deviations of the difference
    assert not np.any(got[1] == 1)  # a class of probability 0 is never drawn
