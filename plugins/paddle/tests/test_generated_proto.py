"""The committed framework_pb2.py must be what tools/vendored_proto.py makes from framework.proto."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "src" / "irconv_paddle" / "proto" / "framework.proto"
MODULE = PROTO.with_name("framework_pb2.py")
TOOL = ROOT.parents[1] / "tools" / "vendored_proto.py"


def test_module_was_generated_from_this_proto() -> None:
    """Cheap check without protoc: the digest recorded in the module's header."""
    digest = hashlib.sha256(PROTO.read_bytes()).hexdigest()
    header = MODULE.read_text().splitlines()[:3]
    assert f"# framework.proto sha256: {digest}" in header, (
        "framework.proto changed since framework_pb2.py was generated: run python tools/vendored_proto.py plugins/paddle/src/irconv_paddle/proto/framework.proto"
    )


@pytest.mark.skipif(importlib.util.find_spec("grpc_tools") is None, reason="grpcio-tools (protoc) is not installed")
def test_regenerating_gives_the_committed_module() -> None:
    result = subprocess.run([sys.executable, str(TOOL), str(PROTO), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_schema_package_is_our_own() -> None:
    from irconv_paddle.proto import framework_pb2

    assert framework_pb2.DESCRIPTOR.package == "irconv_paddle"
    assert framework_pb2.DESCRIPTOR.name == "irconv_paddle/proto/framework.proto"


def test_field_numbers_follow_paddle() -> None:
    """A few numbers a .pdmodel depends on (Paddle's own numbering)."""
    from irconv_paddle.proto import framework_pb2

    op = framework_pb2.OpDesc.DESCRIPTOR.fields_by_name
    assert {name: op[name].number for name in ("inputs", "outputs", "type", "attrs")} == {
        "inputs": 1, "outputs": 2, "type": 3, "attrs": 4}
    attr = framework_pb2.OpDesc.Attr.DESCRIPTOR.fields_by_name
    assert (attr["b"].number, attr["longs"].number, attr["scalar"].number) == (10, 15, 20)
    assert framework_pb2.VarType.FP32 == 5 and framework_pb2.VarType.DENSE_TENSOR == 7
