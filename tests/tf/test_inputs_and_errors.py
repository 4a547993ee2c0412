"""Input forms (Keras files, MetaGraph + checkpoint, .pbtxt) and clear errors on bad input."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest


def _small_keras_model() -> Any:
    import tensorflow as tf

    tf.keras.utils.set_random_seed(3)
    inp = tf.keras.Input((12, 12, 3), name="image")
    y = tf.keras.layers.Conv2D(6, 3, padding="same", activation="relu")(inp)
    y = tf.keras.layers.BatchNormalization()(y)
    y = tf.keras.layers.AveragePooling2D(2)(y)
    y = tf.keras.layers.Flatten()(y)
    y = tf.keras.layers.Dense(4)(y)
    return tf.keras.Model(inp, y)


@pytest.fixture(scope="module")
def keras_model() -> Any:
    return _small_keras_model()


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_keras_file(suffix: str, keras_model: Any, run_converted: Any, tmp_path: Path) -> None:
    path = tmp_path / f"model{suffix}"
    keras_model.save(str(path))
    x = np.random.default_rng(0).random((1, 12, 12, 3), dtype=np.float32)
    (got,), _ = run_converted(path, [x], tmp_path)
    np.testing.assert_allclose(got, np.asarray(keras_model(x, training=False)), atol=1e-5)


def test_pbtxt_graph(run_converted: Any, tmp_path: Path) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    fn = tf.function(lambda x: tf.nn.relu(tf.matmul(x, np.eye(3, dtype=np.float32) * 2.0) - 0.5))
    frozen = convert_variables_to_constants_v2(fn.get_concrete_function(tf.TensorSpec([2, 3], tf.float32, name="x")))
    tf.io.write_graph(frozen.graph.as_graph_def(), str(tmp_path), "model.pbtxt", as_text=True)
    x = np.random.default_rng(0).random((2, 3), dtype=np.float32)
    (got,), _ = run_converted(tmp_path / "model.pbtxt", [x], tmp_path)
    np.testing.assert_allclose(got, np.maximum(x * 2.0 - 0.5, 0), atol=1e-6)


def test_meta_graph_with_checkpoint(run_converted: Any, tmp_path: Path) -> None:
    """A TF1-style MetaGraph with VariableV2 nodes and a V2 checkpoint beside it."""
    import tensorflow as tf

    v1 = tf.compat.v1
    graph = tf.Graph()
    rng = np.random.default_rng(5)
    w_value = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 3], name="x")
        w = v1.Variable(w_value, name="w", use_resource=False)
        b = v1.Variable(np.arange(4, dtype=np.float32), name="b", use_resource=False)
        tf.identity(tf.nn.tanh(tf.matmul(x, w) + b), name="y")
        saver = v1.train.Saver()
        with v1.Session(graph=graph) as session:
            session.run(v1.global_variables_initializer())
            saver.save(session, str(tmp_path / "model"))
    x_value = rng.random((2, 3), dtype=np.float32)
    (got,), _ = run_converted(tmp_path / "model.meta", [x_value], tmp_path, outputs=["y"])
    np.testing.assert_allclose(got, np.tanh(x_value @ w_value + np.arange(4)), atol=1e-5)


# ---------------------------------------------------------------------------- bad input
def _irconv(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "irconv", "convert", *args], capture_output=True, text=True, timeout=120
    )


def _frozen(fn: Any, spec_shape: list[int], path: Path) -> Path:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    concrete = tf.function(fn).get_concrete_function(tf.TensorSpec(spec_shape, tf.float32, name="x"))
    path.write_bytes(convert_variables_to_constants_v2(concrete).graph.as_graph_def().SerializeToString())
    return path


def test_unknown_op_is_one_clear_error(tmp_path: Path) -> None:
    import tensorflow as tf

    model = _frozen(lambda x: tf.raw_ops.Bitcast(input=x, type=tf.int32) + 1, [4], tmp_path / "model.pb")
    out = tmp_path / "out" / "model.xml"
    result = _irconv(str(model), "-o", str(out))
    assert result.returncode != 0
    assert "Bitcast" in result.stderr and "Traceback" not in result.stderr
    assert not out.parent.exists() or not any(out.parent.iterdir())


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import tensorflow as tf

    path = tmp_path_factory.mktemp("sm") / "saved_model"
    module = tf.Module()
    module.w = tf.Variable(np.ones((3, 3), np.float32))
    serve = tf.function(lambda x: tf.matmul(x, module.w), input_signature=[tf.TensorSpec([1, 3], tf.float32)])
    tf.saved_model.save(module, str(path), signatures={"serving_default": serve})
    return path


def test_signature_and_tags_as_keywords(saved_model: Path, tmp_path: Path) -> None:
    """The TF plugin's options keep the keywords users wrote before they moved out of the core."""
    from irconv.api import convert_model

    graph = convert_model(saved_model, signature="serving_default", saved_model_tags="serve")
    assert graph.parameters()
    with pytest.raises(Exception, match="no MetaGraph tagged \\['gpu', 'serve'\\]"):
        convert_model(saved_model, saved_model_tags=["serve", "gpu"])


@pytest.mark.parametrize(
    "flags", [["--saved-model-tags", "serve,gpu"], ["--saved-model-tags", "serve", "--saved-model-tags", "gpu"]]
)
def test_saved_model_tags_flag_comma_separated_or_repeated(flags: list[str], saved_model: Path, tmp_path: Path) -> None:
    result = _irconv(str(saved_model), "-o", str(tmp_path / "model.xml"), *flags)
    assert result.returncode != 0
    assert "['gpu', 'serve']" in result.stderr and "available: [['serve']]" in result.stderr
    assert "Traceback" not in result.stderr


def test_options_listed_under_the_plugin() -> None:
    result = _irconv("--help")
    assert "--saved-model-tags" in result.stdout and "--signature" in result.stdout


def test_missing_signature_is_one_clear_error(saved_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "model.xml"
    result = _irconv(str(saved_model), "-o", str(out), "--signature", "predict")
    assert result.returncode != 0
    assert "predict" in result.stderr and "serving_default" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists() and not out.with_suffix(".bin").exists()


def test_corrupt_checkpoint_is_one_clear_error(saved_model: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(saved_model, broken)
    index = broken / "variables" / "variables.index"
    data = bytearray(index.read_bytes())
    data[-8:] = b"\0" * 8  # the table footer's magic number
    index.write_bytes(bytes(data))
    out = tmp_path / "model.xml"
    result = _irconv(str(broken), "-o", str(out))
    assert result.returncode != 0
    assert "corrupt" in result.stderr and "variables.index" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists() and not out.with_suffix(".bin").exists()


def test_truncated_checkpoint_data_is_one_clear_error(saved_model: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(saved_model, broken)
    shard = next((broken / "variables").glob("variables.data-*"))
    shard.write_bytes(shard.read_bytes()[:10])
    out = tmp_path / "model.xml"
    result = _irconv(str(broken), "-o", str(out))
    assert result.returncode != 0
    assert "corrupt" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_graph_conversion_does_not_import_tensorflow(saved_model: Path, tmp_path: Path) -> None:
    code = (
        "import sys; from irconv.api import convert_model, save_model; "
        f"save_model(convert_model({str(saved_model)!r}), {str(tmp_path / 'm.xml')!r}); "
        "print('tensorflow' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_an_axis_of_several_values_is_named(tmp_path: Path) -> None:
    # ConcatV2's axis edited from a scalar to [0, 0]: int() of the array raised a TypeError
    # inside the extractor (a plugin fault, exit 6) before input_scalar named it.
    import tensorflow as tf
    from tensorflow.core.framework import graph_pb2

    model = _frozen(lambda x: tf.concat([x, x], axis=0), [4], tmp_path / "model.pb")
    graph = graph_pb2.GraphDef.FromString(model.read_bytes())
    concat = next(n for n in graph.node if n.op == "ConcatV2")
    axis = next(n for n in graph.node if n.name == concat.input[2])
    axis.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.zeros(2, np.int32)))
    model.write_bytes(graph.SerializeToString())
    out = tmp_path / "out" / "model.xml"
    result = _irconv(str(model), "-o", str(out))
    assert result.returncode == 1, result.stderr
    assert "axis (input 2) must be one value, got shape [2]" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not out.exists()
