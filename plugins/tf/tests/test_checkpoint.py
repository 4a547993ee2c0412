"""The checkpoint reader against TensorFlow's own checkpoint reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.errors import ModelFileError
from irconv_tf.checkpoint import Checkpoint


@pytest.fixture(scope="module")
def checkpoint_prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    module = tf.Module()
    # enough entries to span several table blocks, and several dtypes
    module.big = [tf.Variable(rng.standard_normal((17, 5)).astype(np.float32)) for _ in range(300)]
    module.ints = tf.Variable(np.arange(10, dtype=np.int64))
    module.halves = tf.Variable(rng.standard_normal((3, 2)).astype(np.float16))
    module.flag = tf.Variable(np.array([True, False]))
    module.scalar = tf.Variable(np.float64(2.5))
    prefix = tf.train.Checkpoint(m=module).write(str(tmp_path_factory.mktemp("ckpt") / "ckpt"))
    return Path(prefix)


def test_every_variable_matches_tensorflow(checkpoint_prefix: Path) -> None:
    import tensorflow as tf

    reader = tf.train.load_checkpoint(str(checkpoint_prefix))
    ours = Checkpoint(checkpoint_prefix)
    theirs = reader.get_variable_to_dtype_map()
    numeric = {k for k, dt in theirs.items() if dt != tf.string}
    assert numeric <= set(ours.keys())
    for key in numeric:
        want = reader.get_tensor(key)
        got = ours.read(key)
        assert got.dtype == want.dtype, key
        np.testing.assert_array_equal(got, want, err_msg=key)


def test_object_graph_entry_is_readable(checkpoint_prefix: Path) -> None:
    from irconv_tf.proto import object_graph_pb2

    raw = Checkpoint(checkpoint_prefix).read_string("_CHECKPOINTABLE_OBJECT_GRAPH")
    graph = object_graph_pb2.TrackableObjectGraph.FromString(raw)
    keys = {a.checkpoint_key for node in graph.nodes for a in node.attributes}
    assert any(k.endswith("VARIABLE_VALUE") for k in keys)


def test_missing_index_is_a_model_file_error(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="missing"):
        Checkpoint(tmp_path / "nothing")


def test_garbled_index_is_a_model_file_error(checkpoint_prefix: Path, tmp_path: Path) -> None:
    index = Path(f"{checkpoint_prefix}.index").read_bytes()
    bad = tmp_path / "bad"
    Path(f"{bad}.index").write_bytes(index[: len(index) // 2])
    with pytest.raises(ModelFileError, match="corrupt"):
        Checkpoint(bad)
