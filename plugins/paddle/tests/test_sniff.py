"""Which files the Paddle loader claims."""

from __future__ import annotations

import json
from pathlib import Path

from irconv_paddle.sniff import looks_like_paddle


def test_pir_json_is_recognised_by_its_header(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"base_code": {"magic": "pir", "trainable": False, "version": 1}, "program": {}}))
    assert looks_like_paddle(path)


def test_other_json_is_not(tmp_path: Path) -> None:
    path = tmp_path / "model-symbol.json"
    path.write_text(json.dumps({"nodes": [{"op": "null", "name": "data", "inputs": []}], "heads": [[0, 0, 0]]}))
    assert not looks_like_paddle(path)


def test_pdmodel_by_suffix_and_others_turned_down(tmp_path: Path) -> None:
    (tmp_path / "m.pdmodel").write_bytes(b"\x0a\x00")
    (tmp_path / "m.onnx").write_bytes(b"\x08\x07")
    assert looks_like_paddle(tmp_path / "m.pdmodel")
    assert not looks_like_paddle(tmp_path / "m.onnx")


def test_a_folder_with_a_program_beside_its_parameters(tmp_path: Path) -> None:
    (tmp_path / "inference.pdmodel").write_bytes(b"")
    assert not looks_like_paddle(tmp_path)
    (tmp_path / "inference.pdiparams").write_bytes(b"")
    assert looks_like_paddle(tmp_path)


def test_a_pir_program_under_another_name_is_read_as_json(tmp_path: Path) -> None:
    from irconv_paddle.loader import read_program

    path = tmp_path / "model.bin"
    program = {"base_code": {"magic": "pir", "version": 1}, "program": {"regions": [{"blocks": [{"ops": []}]}]}}
    path.write_text(json.dumps(program))
    assert read_program(path).form == "pir"
