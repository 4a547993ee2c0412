"""Importing irconv or a front end must not pull in networkx, TensorFlow or OpenVINO; a
conversion imports only the plugin modules it uses, and no package its format does not need.

The graph has its own adjacency structure (networkx is no dependency; nothing may bring it
back in), TensorFlow loads only for Keras files, and OpenVINO never (it is a test
dependency). Each import runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
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
        "irconv_jax.extractors",
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


# --------------------------------------------------------------- what a format may import
# A conversion of each format, in a fresh interpreter, may leave in sys.modules only the
# standard library, irconv's own distributions, what every conversion uses, and what its
# format needs. The allow-lists name packages (a module is allowed when its dotted name
# starts with an entry), so a new import of onnx, ml_dtypes, tensorflow, torch, scipy, ...
# on a path that does not need it fails here whatever it costs on this machine.
# Import time is measured in bench/import_cost.py.
EVERY_CONVERSION = (
    "irconv", "numpy", "google.protobuf", "google._upb", "pluggy", "packaging",
    # on older Pythons, backports the packages above may use
    "importlib_metadata", "zipp", "typing_extensions", "tomli", "exceptiongroup",
    # interpreter machinery (what site's .pth hooks import at start-up is allowed besides, see
    # the startup_modules fixture: virtualenv, setuptools, editable installs, coverage)
    "__main__", "_sysconfigdata_",
)
FORMAT_NEEDS: dict[str, tuple[str, ...]] = {
    "onnx": (),
    "onnx_bf16": (),  # bf16 initializers and Casts: irconv's own bf16, no ml_dtypes
    "tf_frozen": (),
    "tf_bf16": (),
    "saved_model": ("google_crc32c",),  # checksums of the variables bundle
    "keras": ("h5py", "_cython_", "cython_runtime"),  # the weights file is HDF5
    "tflite": ("flatbuffers",),
    "caffe": (),
    "ir": (),
    # a .pt2 may import whatever torch.export.load imports (FRAMEWORK_BASELINE)
    "pt2": (),
}
#: Code whose imports (in a fresh interpreter) are allowed for a format: the framework
#: reading the same file. ``{model}`` is the model's path.
FRAMEWORK_BASELINE = {"pt2": "import torch\ntorch.export.load({model!r})\n"}
NAMES = (
    "import json, sys\n"
    "print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] not in sys.stdlib_module_names)))\n"
)


def _modules(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code + NAMES], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _run(script: str, *args: str) -> None:
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]


MAKE_TF_MODELS = """
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras, tensorflow as tf
folder = sys.argv[1]
inputs = keras.Input((8, 8, 3), batch_size=1)
x = keras.layers.Conv2D(4, 3, activation="relu")(inputs)
x = keras.layers.GlobalAveragePooling2D()(x)
model = keras.Model(inputs, keras.layers.Dense(2)(x))
model.save(os.path.join(folder, "m.keras"))
model.export(os.path.join(folder, "saved"), verbose=False)
converter = tf.lite.TFLiteConverter.from_saved_model(os.path.join(folder, "saved"))
open(os.path.join(folder, "m.tflite"), "wb").write(converter.convert())
"""
MAKE_PT2 = """
import sys, torch
module = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
torch.export.save(torch.export.export(module, (torch.randn(1, 3, 8, 8),)), sys.argv[1])
"""
CAFFE_PROTOTXT = """
name: "tiny"
input: "data"
input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 4 kernel_size: 3 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
"""


@pytest.fixture(scope="module")
def startup_modules() -> set[str]:
    """What a bare interpreter of this environment has imported before running anything."""
    return set(_modules(""))


@pytest.fixture(scope="module")
def tf_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Keras file, its SavedModel export and TFLite conversion, made by TensorFlow once."""
    pytest.importorskip("tensorflow")
    folder = tmp_path_factory.mktemp("tf_models")
    _run(MAKE_TF_MODELS, str(folder))
    return folder


def _model(fmt: str, folder: Path, request: pytest.FixtureRequest) -> list[str]:
    """The ``irconv convert`` arguments of a small model of format ``fmt``, made in ``folder``."""
    if fmt == "onnx":
        return [str(Path(__file__).parents[1] / "examples" / "tiny_cnn.onnx")]
    if fmt == "onnx_bf16":
        path = folder / "bf16.onnx"
        path.write_bytes(bf16_onnx_model().SerializeToString())
        return [str(path)]
    if fmt in ("tf_frozen", "tf_bf16"):
        from google.protobuf import text_format
        from irconv_tf.proto import graph_pb2

        path = folder / f"{fmt}.pb"
        text = TINY_GRAPH_DEF if fmt == "tf_frozen" else BF16_GRAPH_DEF
        path.write_bytes(text_format.Parse(text, graph_pb2.GraphDef()).SerializeToString())
        return [str(path)]
    if fmt in ("saved_model", "keras", "tflite"):
        made = request.getfixturevalue("tf_models")
        return [str(made / {"saved_model": "saved", "keras": "m.keras", "tflite": "m.tflite"}[fmt])]
    if fmt == "pt2":
        pytest.importorskip("torch")
        path = folder / "m.pt2"
        _run(MAKE_PT2, str(path))
        return [str(path)]
    if fmt == "caffe":
        from irconv_caffe.testing import write_random_caffemodel

        prototxt = folder / "deploy.prototxt"
        prototxt.write_text(CAFFE_PROTOTXT)
        write_random_caffemodel(prototxt, folder / "tiny.caffemodel", seed=1)
        return [str(prototxt), "--weights", str(folder / "tiny.caffemodel")]
    if fmt == "ir":  # irconv's own IR, read back (f16 weights and all)
        source = _model("onnx", folder, request)
        _run("import sys\nfrom irconv.cli.main import main\nsys.exit(main(['convert', *sys.argv[1:], '-q']))",
             *source, "-o", str(folder / "source.xml"))
        return [str(folder / "source.xml")]
    raise AssertionError(fmt)


BF16_WEIGHTS = np.random.default_rng(3).standard_normal((6, 5)).astype(np.float32)
#: bf16 bit patterns of a few values (1.0, -2.5, 0.3 rounded, 3e38 rounded), as TF's half_val holds them.
BF16_CODES = (0x3F80, 0xC020, 0x3E9A, 0x7F62)
BF16_GRAPH_DEF = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } dim { size: 4 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_BFLOAT16 } }
       attr { key: "value" value { tensor { dtype: DT_BFLOAT16 tensor_shape { dim { size: 4 } }
                                            half_val: %s } } } }
node { name: "xb" op: "Cast" input: "x" attr { key: "SrcT" value { type: DT_FLOAT } }
       attr { key: "DstT" value { type: DT_BFLOAT16 } } }
node { name: "m" op: "Mul" input: "xb" input: "w" attr { key: "T" value { type: DT_BFLOAT16 } } }
node { name: "y" op: "Cast" input: "m" attr { key: "SrcT" value { type: DT_BFLOAT16 } }
       attr { key: "DstT" value { type: DT_FLOAT } } }
""" % " half_val: ".join(str(c) for c in BF16_CODES)


def bf16_onnx_model():  # type: ignore[no-untyped-def]
    """x -> Cast(bf16) -> Cast(f32) -> MatMul with a bf16 initializer cast to f32, rounded to
    bf16 and back, + another bf16 initializer (onnxruntime computes nothing in bf16 but Cast)."""
    from onnx import TensorProto, helper

    def bf16(name: str, values: np.ndarray):  # type: ignore[no-untyped-def]
        codes = _bf16_codes(values)
        return helper.make_tensor(name, TensorProto.BFLOAT16, values.shape, codes.tobytes(), raw=True)

    nodes = [
        helper.make_node("Cast", ["x"], ["xb"], to=TensorProto.BFLOAT16),
        helper.make_node("Cast", ["xb"], ["x32"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["w"], ["w32"], to=TensorProto.FLOAT),
        helper.make_node("MatMul", ["x32", "w32"], ["m"]),
        helper.make_node("Cast", ["m"], ["mb"], to=TensorProto.BFLOAT16),
        helper.make_node("Cast", ["mb"], ["m32"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["b"], ["b32"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["m32", "b32"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "bf16", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
                              [bf16("w", BF16_WEIGHTS), bf16("b", BF16_WEIGHTS[0] * 4)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _unexpected(modules: list[str], allowed: tuple[str, ...], baseline: set[str]) -> list[str]:
    """The modules neither allowed (an entry starts them, or they are an entry's namespace
    parent, like ``google`` of ``google.protobuf``) nor imported by the baseline."""
    return [m for m in modules if m not in baseline and not m.startswith(allowed)
            and not any(a.startswith(m + ".") for a in allowed)]


@pytest.mark.parametrize("fmt", list(FORMAT_NEEDS))
def test_a_conversion_imports_nothing_its_format_does_not_need(
    fmt: str, tmp_path: Path, request: pytest.FixtureRequest, startup_modules: set[str]
) -> None:
    args = _model(fmt, tmp_path, request)
    baseline = set(startup_modules)
    if fmt in FRAMEWORK_BASELINE:
        baseline |= set(_modules(FRAMEWORK_BASELINE[fmt].format(model=args[0])))
    converted = _modules(
        "import contextlib, io\n"
        "from irconv.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['convert', *{args!r}, '-o', {str(tmp_path / 'out' / 'm.xml')!r}])\n"
        "assert code == 0, code\n"
    )
    assert (tmp_path / "out" / "m.xml").is_file()
    assert _unexpected(converted, EVERY_CONVERSION + FORMAT_NEEDS[fmt], baseline) == []


def test_the_guard_sees_a_stray_import() -> None:
    """The allow-list check itself: onnx, ml_dtypes or torch on a path that does not need them."""
    modules = ["irconv.api", "numpy.linalg", "google", "google.protobuf.message", "google.cloud", "onnx.defs",
               "ml_dtypes", "torch", "scipy"]
    assert _unexpected(modules, EVERY_CONVERSION, {"torch"}) == ["google.cloud", "onnx.defs", "ml_dtypes", "scipy"]


@pytest.mark.parametrize("fmt", ["onnx_bf16", "tf_bf16"])
def test_bf16_models_match_their_framework(fmt: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The bf16 models of the guard above, converted, give in OpenVINO what onnxruntime or
    TensorFlow give (rounding to bf16 where the model does, as both runtimes do)."""
    from irconv.cli.main import main
    from irconv.runtime import compile_for_comparison, rounds_to_bf16

    args = _model(fmt, tmp_path, request)
    xml = tmp_path / "out" / "m.xml"
    assert main(["convert", *args, "-o", str(xml), "-q"]) == 0
    assert '"bf16"' in xml.read_text()  # a bf16 Convert or constant
    rng = np.random.default_rng(4)
    if fmt == "onnx_bf16":
        ort = pytest.importorskip("onnxruntime")
        x = rng.standard_normal((2, 6)).astype(np.float32)
        session = ort.InferenceSession(args[0], providers=["CPUExecutionProvider"])
        expected = session.run(None, {"x": x})[0]
    else:
        tf = pytest.importorskip("tensorflow")
        from google.protobuf import text_format

        x = rng.standard_normal((2, 4)).astype(np.float32)
        graph_def = text_format.Parse(BF16_GRAPH_DEF, tf.compat.v1.GraphDef())
        with tf.Graph().as_default() as graph:
            tf.import_graph_def(graph_def, name="")
            with tf.compat.v1.Session(graph=graph) as session:
                expected = session.run("y:0", {"x:0": x})
    got = compile_for_comparison(xml)({"x": x})[0]
    if fmt == "onnx_bf16" and not rounds_to_bf16():
        # this CPU's plugin runs bf16 as f32 (irconv.runtime.rounds_to_bf16): the Casts of x and
        # of the product to bf16 round nothing, the bf16 initializers are exact either way
        expected = x @ _bf16_truncated(BF16_WEIGHTS) + _bf16_truncated(BF16_WEIGHTS[0] * 4)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        return
    # bf16 keeps 8 significant bits: the runtimes may round the f32 product differently by one step
    np.testing.assert_allclose(got, expected, rtol=2**-7, atol=1e-6)


def _bf16_codes(values: np.ndarray) -> np.ndarray:
    """The bf16 bit patterns of ``values`` truncated (exact in bf16), as ``bf16_onnx_model`` stores them."""
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _bf16_truncated(values: np.ndarray) -> np.ndarray:
    """``values`` truncated to bf16 (``_bf16_codes``), as f32."""
    return (_bf16_codes(values).astype(np.uint32) << 16).view(np.float32)
