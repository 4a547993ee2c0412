"""A symbol whose op name is 5,000 characters long: the unsupported-op report (exit 5)
shows it cut, with its length, instead of echoing it whole."""

from __future__ import annotations

import json
from pathlib import Path

from irconv.cli.main import main

OP = "Conv" + "x" * 4996


def test_a_5000_character_op_name_is_reported_short(tmp_path: Path, capsys) -> None:
    symbol = {
        "nodes": [{"op": "null", "name": "data", "inputs": []},
                  {"op": OP, "name": "layer", "inputs": [[0, 0, 0]]}],
        "arg_nodes": [0],
        "heads": [[1, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    }
    model = tmp_path / "net-symbol.json"
    model.write_text(json.dumps(symbol))
    assert main(["convert", str(model), "--input", "data[1,3]", "-o", str(tmp_path / "out" / "m.xml")]) == 5
    err = capsys.readouterr().err
    assert len(err) < 1000, err
    assert "mxnet Convxxx" in err and "xxx (5,000 characters) x1: layer" in err
    assert not (tmp_path / "out").exists()
