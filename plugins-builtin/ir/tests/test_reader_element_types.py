"""irconv reads back every element type it writes: 4-bit (packed two a byte), bf16 and f8
constants, in IRs it emitted itself and in IRs written with weight compression."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from irconv import Const, float8
from irconv.pipeline.infer import infer_graph
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir, run_ir
from irconv.types import ElementType
from irconv_ir.reader import unpack_nibbles
from irconv_opset import Add, Convert

RNG = np.random.default_rng(11)
#: Bit patterns (one a byte for 4-bit types) of each type's test constant: every code, an odd count.
CODES = {
    ElementType.i4: np.array([-8, -7, -1, 0, 1, 6, 7, 3, -2], np.int8),
    ElementType.u4: np.array([0, 1, 7, 8, 9, 14, 15, 4, 2], np.uint8),
    ElementType.bf16: np.array([0x3F80, 0xBF40, 0x7F7F, 0x0001, 0x4049, 0xC2F7, 0x0000, 0x8000, 0x3E20], np.uint16),
    ElementType.f8e4m3: np.array([0x38, 0xB8, 0x7E, 0x01, 0x44, 0xC9, 0x00, 0x80, 0x2A], np.uint8),
    ElementType.f8e5m2: np.array([0x3C, 0xBC, 0x7B, 0x01, 0x44, 0xC9, 0x00, 0x80, 0x2A], np.uint8),
}


def _as_f32(et: ElementType, codes: np.ndarray) -> np.ndarray:
    """The exact f32 value of each code, from the format's definition."""
    if et.is_packed:
        return codes.astype(np.float32)
    if et is ElementType.bf16:
        return (codes.astype(np.uint32) << 16).view(np.float32)
    return float8.to_float32(float8.from_bits(codes, et))


def _graph(et: ElementType):  # type: ignore[no-untyped-def]
    b = GraphBuilder("types")
    x = b.parameter("x", (CODES[et].size,))
    weights = b.const(CODES[et].view(et.numpy))
    b.result(b.op(Add(), x, b.op(Convert(destination_type=ElementType.f32), weights)), "y")
    infer_graph(b.graph)
    return b.graph


@pytest.mark.parametrize("et", list(CODES), ids=lambda et: et.value)
def test_constants_read_back_bit_for_bit(tmp_path: Path, installed_host, reemit, et: ElementType) -> None:
    first = emit_ir(_graph(et), tmp_path / "a.xml", installed_host)
    assert f'element_type="{et.value}"' in first.read_text()
    graph = reemit(first, tmp_path / "b.xml")
    (stored,) = [n.op.value for n in graph.nodes() if isinstance(n.op, Const)]
    assert stored.dtype == et.numpy
    np.testing.assert_array_equal(stored.view(CODES[et].dtype), CODES[et])
    assert first.with_suffix(".bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    assert first.read_text() == (tmp_path / "b.xml").read_text()
    x = RNG.standard_normal(CODES[et].size).astype(np.float32)
    for path in (first, tmp_path / "b.xml"):
        np.testing.assert_array_equal(run_ir(path, {"x": x})["y"], x + _as_f32(et, CODES[et]))


@pytest.mark.parametrize("et", [ElementType.i4, ElementType.u4], ids=lambda et: et.value)
def test_unpacking_takes_the_low_nibble_first(et: ElementType) -> None:
    packed = np.array([0x21, 0xF8, 0x07], np.uint8)
    expected = [1, 2, 8, 15, 7] if et is ElementType.u4 else [1, 2, -8, -1, 7]
    assert unpack_nibbles(packed, 5, et).view(np.int8 if et is ElementType.i4 else np.uint8).tolist() == expected


def test_a_packed_constant_of_the_wrong_size_is_one_clear_error(tmp_path: Path, installed_host, reemit) -> None:
    from irconv.errors import ModelFileError

    first = emit_ir(_graph(ElementType.u4), tmp_path / "a.xml", installed_host)
    first.write_text(first.read_text().replace('size="5"', 'size="4"'))  # 9 values take 5 bytes
    with pytest.raises(ModelFileError, match="size 4 does not match shape .* of u4"):
        reemit(first, tmp_path / "b.xml")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "irconv", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("weight_format", ["int4-sym", "int4-asym"])
def test_weight_compressed_irs_show_and_convert_again(tmp_path: Path, weight_format: str) -> None:
    """An IR written with 4-bit weights: ``irconv show`` reads it (``--diff`` shows the
    compressed graph beside its source), and converting it again gives an IR that OpenVINO
    runs with the same results."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    weights = RNG.standard_normal((256, 64)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 64])],
        [numpy_helper.from_array(weights, "w")],
    )
    source = tmp_path / "mm.onnx"
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(source))
    first, second = tmp_path / "first" / "mm.xml", tmp_path / "second" / "mm.xml"
    made = _cli("convert", str(source), "-o", str(first), "--weight-format", weight_format, "--group-size", "64",
                "--all-layers", "-q")
    assert made.returncode == 0, made.stderr
    packed = "i4" if weight_format == "int4-sym" else "u4"
    assert f'element_type="{packed}"' in first.read_text()
    for args in (["show", str(first), "-o", str(tmp_path / "show.html")],
                 ["show", str(source), "--diff", "-o", str(tmp_path / "diff.html"), "--option",
                  f"llm.weight_format={weight_format}", "--option", "llm.all_layers=true"],
                 ["convert", str(first), "-o", str(second), "--no-compress-to-fp16", "-q"]):
        done = _cli(*args)
        assert done.returncode == 0, (args, done.stderr)
    x = RNG.standard_normal((2, 256)).astype(np.float32)
    expected = _run_exact(first, x)
    np.testing.assert_allclose(_run_exact(second, x), expected, rtol=1e-5, atol=1e-5)
    exact = x @ weights  # 4-bit weights: near it, ~7% off in norm for normal weights in groups of 64
    assert np.linalg.norm(expected - exact) < 0.15 * np.linalg.norm(exact)


def _run_exact(xml: Path, x: np.ndarray) -> np.ndarray:
    """The IR's output in f32, without the CPU plugin's dynamic quantization of activations
    (on by default for 4-bit weights: it would differ from the exact product by ~1e-2)."""
    from irconv.runtime import compile_for_comparison

    return compile_for_comparison(xml)([x])[0]
