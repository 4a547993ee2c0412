"""Importing irconv or a front end must not pull in networkx, TensorFlow or OpenVINO, and a
conversion imports only the plugin modules it uses.

The graph has its own adjacency structure (networkx is no dependency; nothing may bring it
back in), TensorFlow loads only for Keras files, and OpenVINO never (it is a test
dependency). Each import runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


# A conversion imports the plugin code it uses, nothing more: the other front ends'
# extractor modules (extract_op is asked for the model's framework only), the verifiers
# (without --verify) and the renderers stay unimported.
OTHER_FRONT_ENDS = {
    "tf": (
        "irconv_onnx.extractors",
        "irconv_caffe.extractors",
        "irconv_caffe.proto",
        "irconv_mxnet.extractors",
        "irconv_ir.reader",
        "irconv_ir.extractors",
    ),
    "onnx": (
        "irconv_tf.extractors",
        "irconv_tf.loaders",
        "irconv_caffe.extractors",
        "irconv_caffe.proto",
        "irconv_mxnet.extractors",
        "irconv_ir.reader",
        "irconv_ir.extractors",
    ),
}
UNUSED_FEATURES = ("irconv_onnx.verify", "irconv_tf.verify", "irconv_caffe.verify", "irconv_viz.html", "irconv_viz.dot")
TINY_GRAPH_DEF = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } } }
node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
"""


@pytest.mark.parametrize("framework", ["tf", "onnx"])
def test_a_conversion_imports_only_its_own_front_end(framework: str, tmp_path) -> None:
    if framework == "tf":
        model = tmp_path / "relu.pbtxt"
        model.write_text(TINY_GRAPH_DEF)
    else:
        model = Path(__file__).parents[1] / "examples" / "tiny_cnn.onnx"
    own = f"irconv_{framework}.extractors"
    watched = (own, *OTHER_FRONT_ENDS[framework], *UNUSED_FEATURES)
    code = (
        "import contextlib, io, json, sys\n"
        "from irconv.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"  # not quiet: the header is printed too
        f"    code = main(['convert', {str(model)!r}, '-o', {str(tmp_path / 'out.xml')!r}])\n"
        f"print(json.dumps([code, [m for m in {watched!r} if m in sys.modules]]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == [0, [own]], out.stderr
