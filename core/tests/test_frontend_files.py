"""irconv.frontend.opens_like and extractors_of: a loader's sniff and a plugin's extract_op answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from irconv.frontend import extractors_of, opens_like


def _magic(head: bytes) -> bool:
    return head[:4] == b"MAGI"


def test_a_file_with_the_suffix_is_taken_unread(tmp_path: Path) -> None:
    path = tmp_path / "model.MDL"
    path.write_bytes(b"")
    assert opens_like(path, (".mdl",), 4, _magic)


def test_another_file_is_judged_by_its_first_bytes(tmp_path: Path) -> None:
    seen: list[bytes] = []
    good, bad = tmp_path / "a.bin", tmp_path / "b.bin"
    good.write_bytes(b"MAGIC and the rest")
    bad.write_bytes(b"MAG")
    assert opens_like(good, (".mdl",), 4, lambda head: seen.append(head) or _magic(head))
    assert seen == [b"MAGI"]  # no more than ``size`` bytes read
    assert not opens_like(bad, (".mdl",), 4, _magic)


def test_a_directory_is_no_model_file(tmp_path: Path) -> None:
    folder = tmp_path / "saved.mdl"
    folder.mkdir()
    assert not opens_like(folder, (".mdl",), 4, _magic)


def test_extractors_of_another_framework_leaves_the_module_unimported() -> None:
    name = "irconv_test_never_imported_extractors"
    assert extractors_of("onnx", "caffe", name) == []
    assert name not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        extractors_of("caffe", "caffe", name)  # asked for its own framework: imported


def test_extractors_of_its_own_framework_or_every_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    module = types.ModuleType("irconv_test_fake_extractors")
    module.all_extractors = lambda: ("a record",)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert extractors_of("toy", "toy", module.__name__) == ["a record"]
    assert extractors_of(None, "toy", module.__name__) == ["a record"]
