"""Per-op cases for the TF extractors in ``irconv_tf.extractors.sampling``: Multinomial.

OpenVINO's generator is not TensorFlow's, so the case's logits leave one class per row all
the probability: both draw it every time. ``test_sampling.py`` compares distributions."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}


def one_class_per_row(classes: list[int], count: int) -> np.ndarray:
    """Logits [len(classes), count]: 0 at each row's class, -1e4 (probability 0) elsewhere."""
    logits = np.full((len(classes), count), -1e4, np.float32)
    logits[np.arange(len(classes)), classes] = 0.0
    return logits


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops
    return {
        "Multinomial": case_type(
            lambda logits, n: (
                raw.Multinomial(logits=logits, num_samples=n, seed=5, seed2=7),
                raw.Multinomial(logits=logits * 2.0, num_samples=3, output_dtype=tf.int32),
            ),
            [one_class_per_row([2, 0, 4], 5), np.int32(6)],
        ),
    }
