"""The vendored protobuf modules match their .proto sources and never clash with TensorFlow's."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import irconv_tf.proto
import pytest

PROTO_DIR = Path(irconv_tf.proto.__file__).parent
TOOL = Path(__file__).resolve().parents[1] / "tools" / "generate_protos.py"
MARK = "# irconv-source-sha256: "


def _load_tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("generate_protos", TOOL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_source_has_a_current_module() -> None:
    tool = _load_tool()
    sources = tool.proto_sources()
    assert sources, "no .proto sources found"
    for proto in sources:
        module = PROTO_DIR / f"{proto.stem}_pb2.py"
        assert module.exists(), f"{module.name} is missing: run {TOOL}"
        first = module.read_text().splitlines()[0]
        assert first == MARK + tool.source_digest(proto), f"{module.name} is stale: run {TOOL}"


def test_regenerated_modules_are_identical() -> None:
    pytest.importorskip("grpc_tools")
    tool = _load_tool()
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in tool.generate(Path(tmp)).items():
            assert (PROTO_DIR / name).read_text() == text, f"{name} differs from protoc's output: run {TOOL}"


def test_coexists_with_tensorflow_protos() -> None:
    """Both schema sets load into one process's default descriptor pool."""
    pytest.importorskip("tensorflow")
    code = (
        "from tensorflow.core.framework import graph_pb2 as theirs\n"
        "from irconv_tf.proto import graph_pb2 as ours, saved_model_pb2\n"
        "g = theirs.GraphDef(); n = g.node.add(); n.name = 'a'; n.op = 'Relu'\n"
        "print(ours.GraphDef.FromString(g.SerializeToString()).node[0].op)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Relu"
