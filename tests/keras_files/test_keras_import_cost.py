"""Converting a .keras file imports neither TensorFlow nor Keras (the reader parses the zip's
config and HDF5 weights itself); the conversion runs in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

keras = pytest.importorskip("keras")


def test_converting_a_keras_file_imports_no_tensorflow(tmp_path: Path) -> None:
    inputs = keras.Input((8, 8, 3))
    x = keras.layers.Conv2D(4, 3, activation="relu")(inputs)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    keras.Model(inputs, keras.layers.Dense(2)(x)).save(tmp_path / "m.keras")
    code = (
        "import json, sys\n"
        "from irconv.api import convert_model, save_model\n"
        f"graph = convert_model({str(tmp_path / 'm.keras')!r})\n"
        f"save_model(graph, {str(tmp_path / 'm.xml')!r})\n"
        "print(json.dumps([m for m in ('tensorflow', 'keras') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    assert (tmp_path / "m.xml").is_file()
