"""The vendored ONNX schema: generated from onnx_ml.proto, our own package, ONNX's field numbers."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "src" / "irconv_onnx" / "proto" / "onnx_ml.proto"
MODULE = PROTO.with_name("onnx_ml_pb2.py")
TOOL = ROOT.parents[1] / "tools" / "vendored_proto.py"


def test_module_was_generated_from_this_proto() -> None:
    """Cheap check without protoc: the digest recorded in the module's header."""
    digest = hashlib.sha256(PROTO.read_bytes()).hexdigest()
    header = MODULE.read_text().splitlines()[:3]
    assert f"# onnx_ml.proto sha256: {digest}" in header, (
        "onnx_ml.proto changed since onnx_ml_pb2.py was generated: run python tools/vendored_proto.py plugins/onnx/src/irconv_onnx/proto/onnx_ml.proto"
    )


@pytest.mark.skipif(importlib.util.find_spec("grpc_tools") is None, reason="grpcio-tools (protoc) is not installed")
def test_regenerating_gives_the_committed_module() -> None:
    result = subprocess.run([sys.executable, str(TOOL), str(PROTO), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_schema_package_is_our_own() -> None:
    from irconv_onnx.proto import onnx_ml_pb2

    assert onnx_ml_pb2.DESCRIPTOR.package == "irconv_onnx"
    assert onnx_ml_pb2.DESCRIPTOR.name == "irconv_onnx/proto/onnx_ml.proto"


def _fields(descriptor) -> dict[str, tuple[int, int, str]]:
    """Every field of every message (nested too), by full name without the package."""
    found: dict[str, tuple[int, int, str]] = {}
    stack = list(descriptor.message_types_by_name.values())
    while stack:
        message = stack.pop()
        stack.extend(message.nested_types)
        prefix = message.full_name.split(".", 1)[1]
        for field in message.fields:
            kind = field.message_type.full_name.split(".", 1)[1] if field.message_type else ""
            found[f"{prefix}.{field.name}"] = (field.number, field.type, kind)
    return found


def test_fields_match_the_onnx_package() -> None:
    """Each of our fields has the number and type the onnx package's schema gives it (the
    onnx package may be newer and know more fields: those are not required here)."""
    onnx_ml_pb2 = pytest.importorskip("onnx.onnx_ml_pb2")
    from irconv_onnx.proto import onnx_ml_pb2 as ours

    theirs = _fields(onnx_ml_pb2.DESCRIPTOR)
    mine = _fields(ours.DESCRIPTOR)
    assert len(mine) > 120
    assert {name: spec for name, spec in mine.items() if theirs.get(name) != spec} == {}


def test_a_model_reads_the_same_through_both_schemas() -> None:
    onnx = pytest.importorskip("onnx")
    from irconv_onnx.proto.onnx_ml_pb2 import ModelProto

    model = onnx.load(str(ROOT.parents[1] / "examples" / "tiny_cnn.onnx"))
    data = model.SerializeToString()
    ours = ModelProto.FromString(data)
    assert ours.SerializeToString(deterministic=True) == model.SerializeToString(deterministic=True)
    assert [n.op_type for n in ours.graph.node] == [n.op_type for n in model.graph.node]
