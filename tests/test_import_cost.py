"""Importing irconv or a front end must not pull in networkx, TensorFlow or OpenVINO.

The graph has its own adjacency structure (networkx is no dependency; nothing may bring it
back in), TensorFlow loads only for Keras files, and OpenVINO never (it is a test
dependency). Each import runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("networkx", "tensorflow", "openvino")
MODULES = ["irconv", "irconv.cli.main", "irconv_onnx", "irconv_onnx.plugin", "irconv_tf", "irconv_tf.plugin",
           "irconv_caffe", "irconv_caffe.plugin"]


@pytest.mark.parametrize("module", MODULES)
def test_import_does_not_load_heavy_modules(module: str) -> None:
    code = f"import json, sys, {module}; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == []


def test_listing_plugins_does_not_load_heavy_modules() -> None:
    code = (
        "import json, sys\n"
        "from irconv.cli.main import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['plugins'])\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == []
