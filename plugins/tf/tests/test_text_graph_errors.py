"""A text GraphDef (.pbtxt) protobuf cannot parse: one short line naming the file, the line
and the column, with the text protobuf quotes from the file cut."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from irconv.cli.main import main

HEAD = """node {
  name: "x"
  op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 1 } dim { size: 512 } } } }
}
node {
  name: "w"
  op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 512 } } tensor_content: \""""


def test_a_file_cut_inside_a_tensor_content_string(tmp_path: Path, capsys) -> None:
    content = "".join(f"\\{byte:03o}" for byte in np.arange(512, dtype=np.float32).tobytes()[:1400])
    model = tmp_path / "cut.pbtxt"
    model.write_text(HEAD + content)
    assert main(["convert", str(model), "-o", str(tmp_path / "out" / "m.xml")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    line = err[0]
    assert len(line) < 1000, line
    assert line.startswith(f"irconv: error: {model}:11:") and "not a valid GraphDef text file" in line
    assert "String missing ending quote" in line and "characters)" in line
    assert not (tmp_path / "out").exists()
