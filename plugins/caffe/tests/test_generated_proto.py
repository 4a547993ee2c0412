"""The committed caffe_pb2.py must be what tools/vendored_proto.py makes from caffe.proto."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "src" / "irconv_caffe" / "proto" / "caffe.proto"
MODULE = PROTO.with_name("caffe_pb2.py")
TOOL = ROOT.parents[1] / "tools" / "vendored_proto.py"


def test_module_was_generated_from_this_proto() -> None:
    """Cheap check without protoc: the digest recorded in the module's header."""
    digest = hashlib.sha256(PROTO.read_bytes()).hexdigest()
    header = MODULE.read_text().splitlines()[:3]
    assert f"# caffe.proto sha256: {digest}" in header, (
        "caffe.proto changed since caffe_pb2.py was generated: run python tools/vendored_proto.py plugins/caffe/src/irconv_caffe/proto/caffe.proto"
    )


@pytest.mark.skipif(importlib.util.find_spec("grpc_tools") is None, reason="grpcio-tools (protoc) is not installed")
def test_regenerating_gives_the_committed_module() -> None:
    result = subprocess.run([sys.executable, str(TOOL), str(PROTO), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_schema_package_is_our_own() -> None:
    from irconv_caffe.proto import caffe_pb2

    assert caffe_pb2.DESCRIPTOR.package == "irconv_caffe"
    assert caffe_pb2.DESCRIPTOR.name == "irconv_caffe/proto/caffe.proto"


def test_ssd_field_numbers_follow_weiliu89() -> None:
    from irconv_caffe.proto import caffe_pb2

    fields = caffe_pb2.LayerParameter.DESCRIPTOR.fields_by_name
    numbers = {
        name: fields[name].number
        for name in ("permute_param", "prior_box_param", "detection_output_param", "norm_param")
    }
    assert numbers == {"permute_param": 202, "prior_box_param": 203, "detection_output_param": 204, "norm_param": 206}
    assert caffe_pb2.PoolingParameter.DESCRIPTOR.fields_by_name["ceil_mode"].number == 13


def test_docs_layer_table_is_current() -> None:
    """docs/caffe.md lists exactly the layers the extractors handle."""
    from irconv_caffe.layer_table import render

    document = ROOT.parents[1] / "docs" / "caffe.md"
    if not document.exists():
        pytest.skip("docs/caffe.md is not part of this checkout")
    assert document.read_text() == render(document.read_text()), "run: python -m irconv_caffe.layer_table docs/caffe.md"
