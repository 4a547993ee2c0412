"""Large constants of a frozen GraphDef are mapped from the file, not copied by the parse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.tf.conftest import freeze


def _weights(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def test_large_constants_are_mapped_and_the_results_match_tensorflow(tf_check, tmp_path: Path) -> None:
    import tensorflow as tf
    from irconv_tf.loaders import _parse_leaving_weights_on_disk

    rng = np.random.default_rng(0)
    big = _weights(rng, (512, 256))  # 512 KiB: stays in the file
    wide = _weights(rng, (256, 300), np.float64)  # 600 KiB of f64
    small = _weights(rng, (256,))

    def fn(x: Any) -> Any:
        y = tf.matmul(x, tf.constant(big)) + tf.constant(small)
        return tf.matmul(y, tf.cast(tf.constant(wide), tf.float32))

    frozen = tf_check(fn, [_weights(rng, (2, 512))], op="MatMul", atol=1e-3, rtol=1e-4)
    parsed = _parse_leaving_weights_on_disk(frozen.path)
    assert parsed is not None
    _, values = parsed
    assert sorted((v.shape, v.dtype) for v in values.values()) == [((256, 300), np.float64), ((512, 256), np.float32)]
    for value in values.values():
        assert not value.flags.writeable and value.base is not None  # a view of the file's mapping
    assert any(np.array_equal(v, big) for v in values.values())


def test_a_graph_def_the_pass_does_not_expect_is_parsed_whole(tmp_path: Path) -> None:
    import tensorflow as tf
    from irconv.errors import ModelFileError
    from irconv_tf.loaders import _parse_leaving_weights_on_disk, load_frozen
    from irconv_tf.wire import without_large_constants

    big = _weights(np.random.default_rng(1), (512, 256))
    frozen = freeze(lambda x: tf.matmul(x, tf.constant(big)), [np.ones((1, 512), np.float32)], tmp_path / "m.pb")
    data = frozen.path.read_bytes()
    assert without_large_constants(memoryview(data)) is not None
    assert without_large_constants(memoryview(data[:-300_000])) is None  # cut inside the weights
    frozen.path.write_bytes(data[:-300_000])
    assert _parse_leaving_weights_on_disk(frozen.path) is None
    with pytest.raises(ModelFileError):  # the ordinary parse's clean error
        load_frozen(frozen.path, None)  # type: ignore[arg-type]
