"""WHILE and IF sub-graphs as OpenVINO Loop and If, against the LiteRT interpreter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_support import ModelCache, assert_close, compare


def _while(x: Any) -> Any:
    """Five rounds, or fewer when the sum passes 200 (the condition reads the carried values)."""
    import tensorflow as tf

    def body(i: Any, value: Any) -> Any:
        return i + 1, value * 1.5 + 1.0

    def cond(i: Any, value: Any) -> Any:
        return tf.logical_and(i < 5, tf.reduce_sum(value) < 200.0)

    return tf.while_loop(cond, body, [tf.constant(0), x])[1]


def _if(x: Any, flag: Any) -> Any:
    import tensorflow as tf

    return tf.cond(flag[0] > 0, lambda: tf.nn.relu(x) * 2.0, lambda: x - 3.0)


@pytest.mark.parametrize("start", [0.1, 5.0])
def test_while(start: float, tflite_models: ModelCache, tmp_path: Path) -> None:
    made = tflite_models.from_function("while", _while, [np.ones((2, 3), np.float32)])
    x = np.full((2, 3), start, np.float32)
    compared = compare(made.path, [x], tmp_path)
    assert_close(compared)
    assert "Loop" in compared.op_types()


@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_if(flag: float, tflite_models: ModelCache, tmp_path: Path) -> None:
    x = np.random.default_rng(3).uniform(-2, 2, (2, 3)).astype(np.float32)
    made = tflite_models.from_function("if", _if, [x, np.array([1.0], np.float32)])
    compared = compare(made.path, [x, np.array([flag], np.float32)], tmp_path)
    assert_close(compared)
    assert "If" in compared.op_types()
