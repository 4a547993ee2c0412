"""A broken ``.keras`` file is one line naming the layer, not Keras' nested advice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import pytest

keras = pytest.importorskip("keras")
pytest.importorskip("irconv_tf")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keras")
    inputs = keras.Input((8, 8, 1))
    x = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
    x = keras.layers.MaxPooling2D(name="pool")(x)  # named: Keras numbers unnamed layers per process
    path = folder / "net.keras"
    keras.Model(inputs, keras.layers.Flatten()(x)).save(path)
    return path


def _with_config(source, target, edit):
    with zipfile.ZipFile(source) as z:
        files = {name: z.read(name) for name in z.namelist()}
    config = json.loads(files["config.json"])
    edit(config["config"]["layers"])
    files["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(target, "w") as out:
        for name, data in files.items():
            out.writestr(name, data)


def _convert(model, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    return subprocess.run(
        [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(tmp_path / "o.xml"), "-q"],
        capture_output=True,
        text=True,
        env=env,
    )


def test_a_bad_layer_argument_is_one_line_naming_the_layer(saved, tmp_path):
    broken = tmp_path / "broken.keras"
    _with_config(saved, broken, lambda layers: layers[2]["config"].update(pool_size="big"))
    done = _convert(broken, tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "layer 'pool' (MaxPooling2D)" in lines[0] and "pool_size" in lines[0]
    assert "from_config" not in lines[0]
    assert not (tmp_path / "o.xml").exists()


def test_an_unknown_layer_class_is_one_line(saved, tmp_path):
    broken = tmp_path / "unknown.keras"
    _with_config(saved, broken, lambda layers: layers[1].update(class_name="Conv2DX"))
    done = _convert(broken, tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Conv2DX" in lines[0], done.stderr


def test_a_required_argument_set_to_null_is_one_line_naming_the_layer(saved, tmp_path):
    broken = tmp_path / "null.keras"
    _with_config(saved, broken, lambda layers: layers[2]["config"].update(pool_size=None))
    done = _convert(broken, tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "'pool'" in lines[0] and "pool_size" in lines[0], done.stderr
    assert "bug" not in lines[0]
    assert not (tmp_path / "o.xml").exists()
