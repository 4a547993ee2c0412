"""5,000-character names from a Paddle program or its parameters: the error shows each cut, with
its length and its end, on one short line (programs written here with the vendored schema,
without Paddle)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from irconv.cli.main import main
from irconv.errors import ModelFileError
from irconv_paddle.params import read_params
from irconv_paddle.proto import framework_pb2 as pb

#: A name from the file: 5,000 characters whose end differs from its start.
LONG = "n" * 4990 + "_tail_name"


def _legacy_program_reading(missing: str, path: Path) -> None:
    """A legacy program: feed ``x``, then a relu named by its output reading ``missing``,
    which no operator, input or parameter makes."""
    program = pb.ProgramDesc()
    block = program.blocks.add(idx=0, parent_idx=-1)
    for name in ("x", "y"):
        var = block.vars.add(name=name)
        var.type.type = pb.VarType.DENSE_TENSOR
        var.type.dense_tensor.tensor.data_type = pb.VarType.FP32
        var.type.dense_tensor.tensor.dims.extend([1, 4])
    feed = block.ops.add(type="feed")
    feed.outputs.add(parameter="Out", arguments=["x"])
    feed.attrs.add(name="col", type=pb.INT, i=0)
    relu = block.ops.add(type="relu")
    relu.inputs.add(parameter="X", arguments=[missing])
    relu.outputs.add(parameter="Out", arguments=["y"])
    fetch = block.ops.add(type="fetch")
    fetch.inputs.add(parameter="X", arguments=["y"])
    fetch.attrs.add(name="col", type=pb.INT, i=0)
    path.write_bytes(program.SerializeToString())


def test_a_5000_character_value_name_is_quoted_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "m.pdmodel"
    _legacy_program_reading(LONG, program)
    out = tmp_path / "out"
    assert main(["convert", str(program), "-o", str(out / "m.xml")]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("irconv: error: ") and len(line) < 1000, line
    assert "reads 'nnn" in line and "_tail_name' (5,000 characters), which no operator" in line, line
    assert not out.exists()


def test_a_5000_character_parameter_name_is_quoted_cut(tmp_path: Path) -> None:
    path = tmp_path / "m.pdiparams"
    path.write_bytes(struct.pack("<I", 3) + bytes(40))  # tensor format version 3
    with pytest.raises(ModelFileError) as error:
        read_params(path, [LONG])
    message = str(error.value)
    assert len(message) < 1000 and "\n" not in message, message
    assert "_tail_name' (5,000 characters) has tensor format version 3" in message, message


def test_a_short_name_reads_whole(tmp_path: Path) -> None:
    path = tmp_path / "m.pdiparams"
    path.write_bytes(struct.pack("<I", 3) + np.zeros(10, np.uint32).tobytes())
    with pytest.raises(ModelFileError, match=r"parameter 'conv1_weights' has tensor format version 3"):
        read_params(path, ["conv1_weights"])
