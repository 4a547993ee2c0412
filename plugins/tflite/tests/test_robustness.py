"""Broken and hostile .tflite files: each gives one clear error (a UserError naming the
file), never a crash, a hang or a huge allocation; no output file is written."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest
from irconv.api import convert_model
from irconv.errors import ModelFileError, UserError
from tiny_models import CONSTANT, TensorSpec, add_model, build, while_model


def _write(tmp_path: Path, data: bytes, name: str = "model.tflite") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _error(path: Path) -> str:
    with pytest.raises(UserError) as caught:
        convert_model(path)
    message = str(caught.value)
    assert str(path) in message or path.name in message, message
    return message


def test_the_valid_model_converts(tmp_path: Path) -> None:
    from irconv.testing.runtime import emit_ir, run_ir

    graph = convert_model(_write(tmp_path, build(add_model())))
    xml = emit_ir(graph, tmp_path / "add.xml")
    x = np.array([[-5, 0, 1, -1]], np.float32)
    np.testing.assert_array_equal(run_ir(xml, {"x": x})["y"], np.maximum(x + CONSTANT, 0))


@pytest.mark.parametrize("length", [0, 3, 7, 8, 16, 40, 100, 200])
def test_truncated_file(length: int, tmp_path: Path) -> None:
    data = build(add_model())
    assert length < len(data)
    _error(_write(tmp_path, data[:length]))


def test_not_a_tflite_file(tmp_path: Path) -> None:
    assert "TFL3" in _error(_write(tmp_path, b"\x10\x00\x00\x00ONNXsomething else entirely"))


def test_wrong_schema_version(tmp_path: Path) -> None:
    spec = add_model()
    spec.version = 2
    assert "schema version 2" in _error(_write(tmp_path, build(spec)))


def test_buffer_index_out_of_range(tmp_path: Path) -> None:
    spec = add_model()
    spec.subgraphs[0].tensors[1].buffer = 99
    assert "buffer 99" in _error(_write(tmp_path, build(spec)))


def test_operator_input_out_of_range(tmp_path: Path) -> None:
    spec = add_model()
    spec.subgraphs[0].operators[0].inputs = [0, 50]
    assert "tensor 50" in _error(_write(tmp_path, build(spec)))


def test_operator_code_out_of_range(tmp_path: Path) -> None:
    spec = add_model()
    spec.subgraphs[0].operators[0].opcode_index = 9
    assert "operator code 9" in _error(_write(tmp_path, build(spec)))


def test_constant_of_the_wrong_size(tmp_path: Path) -> None:
    spec = add_model()
    spec.buffers[1] = spec.buffers[1][:8]
    assert "needs 16 bytes" in _error(_write(tmp_path, build(spec)))


@pytest.mark.parametrize("shape", [[2**31 - 1] * 4, [1, -7, 4]])
def test_huge_or_negative_declared_shape(shape: list[int], tmp_path: Path) -> None:
    spec = add_model()
    spec.subgraphs[0].tensors[2] = TensorSpec("y", shape)
    assert "declares the shape" in _error(_write(tmp_path, build(spec)))


def test_cyclic_subgraph_reference(tmp_path: Path) -> None:
    assert "cycle" in _error(_write(tmp_path, build(while_model(body_index=0))))


def test_subgraph_reference_out_of_range(tmp_path: Path) -> None:
    assert "sub-graph 5" in _error(_write(tmp_path, build(while_model(body_index=5))))


def test_offset_past_the_end(tmp_path: Path) -> None:
    """The root table offset (the file's first 4 bytes) pointing past the end."""
    data = bytearray(build(add_model()))
    data[0:4] = (len(data) + 1000).to_bytes(4, "little")
    assert isinstance(_error(_write(tmp_path, bytes(data))), str)


def test_random_corruption_never_crashes(tmp_path: Path) -> None:
    """Flipped bytes anywhere: the model converts, or fails with one user error."""
    from irconv.plugins.manager import PluginHost

    host = PluginHost()  # one registry for every trial
    data = build(add_model())
    rng = np.random.default_rng(0)
    for trial in range(300):
        broken = bytearray(data)
        for position in rng.integers(8, len(data), size=3):
            broken[position] = int(rng.integers(0, 256))
        path = _write(tmp_path, bytes(broken), f"broken{trial}.tflite")
        with contextlib.suppress(UserError):  # an error is fine; any other exception fails
            convert_model(path, host=host)


def test_no_output_written_for_a_broken_model(tmp_path: Path) -> None:
    from irconv.cli.main import main

    path = _write(tmp_path, build(add_model())[:50])
    out = tmp_path / "out"
    code = main(["convert", str(path), "-o", str(out / "model.xml")])
    assert code != 0
    assert not out.exists() or not any(out.iterdir())


def test_error_type_is_a_model_file_error(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError):
        convert_model(_write(tmp_path, build(add_model())[:20]))


def test_constants_are_views_of_the_mapped_file(tmp_path: Path) -> None:
    from irconv.ops import Const
    from irconv_tflite.loader import MODEL, load_tflite

    graph = load_tflite(_write(tmp_path, build(add_model())))
    mapped = np.frombuffer(graph.meta[MODEL].mapping, dtype=np.uint8)
    constants = [node.op.value for node in graph.nodes() if isinstance(node.op, Const)]
    assert constants
    for value in constants:
        assert np.shares_memory(value, mapped)
        assert not value.flags.writeable
