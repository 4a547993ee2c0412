"""irconv reads back every element type it writes: 4-bit (packed two a byte), bf16 and f8
constants, in IRs it emitted itself and in IRs written with weight compression; and the 4-bit
floats other tools write (nf4, f4e2m1: NNCF's NF4 and FP4 weight compression)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from irconv import Const, narrow_float
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
    ElementType.f4e2m1: np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 6], np.uint8),
    ElementType.nf4: np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 9], np.uint8),
}
#: What each 4-bit float code means: the OCP MX E2M1 definition, and the NormalFloat4 table of
#: OpenVINO's nf4 (the runs below check both against OpenVINO's own decoding too).
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
       -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
       0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
       0.7229568362236023, 1.0]


def _as_f32(et: ElementType, codes: np.ndarray) -> np.ndarray:
    """The exact f32 value of each code, from the format's definition."""
    if et in (ElementType.f4e2m1, ElementType.nf4):
        return np.array(E2M1 if et is ElementType.f4e2m1 else NF4, np.float32)[codes]
    if et.is_packed:
        return codes.astype(np.float32)
    if et is ElementType.bf16:
        return (codes.astype(np.uint32) << 16).view(np.float32)
    return narrow_float.to_float32(narrow_float.from_bits(codes, et))


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


@pytest.mark.parametrize("et", [ElementType.i4, ElementType.u4, ElementType.nf4, ElementType.f4e2m1],
                         ids=lambda et: et.value)
def test_unpacking_takes_the_low_nibble_first(et: ElementType) -> None:
    packed = np.array([0x21, 0xF8, 0x07], np.uint8)
    expected = [1, 2, -8, -1, 7] if et is ElementType.i4 else [1, 2, 8, 15, 7]
    assert unpack_nibbles(packed, 5, et).view(np.int8 if et is ElementType.i4 else np.uint8).tolist() == expected


@pytest.mark.parametrize("et", [ElementType.nf4, ElementType.f4e2m1], ids=lambda et: et.value)
def test_openvino_packs_4bit_floats_as_irconv_reads_them(et: ElementType) -> None:
    """A constant built with OpenVINO's own API from float values: its bytes, unpacked as
    irconv does, are the codes of those values."""
    ov = pytest.importorskip("openvino")
    values = _as_f32(et, CODES[et])
    constant = ov.op.Constant(getattr(ov.Type, et.value), ov.Shape([values.size]), values.tolist())
    stored = np.frombuffer(constant.get_data().tobytes(), np.uint8)
    codes = unpack_nibbles(stored, values.size, et).view(np.uint8)
    np.testing.assert_array_equal(_as_f32(et, codes), values)
    np.testing.assert_array_equal(narrow_float.to_float32(codes.view(et.numpy)), values)


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


NNCF_MAKE = """
import sys, numpy as np, openvino as ov, nncf
from openvino import opset13 as ops
rng = np.random.default_rng(0)
x = ops.parameter([2, 64], ov.Type.f32, name="x")
h = ops.relu(ops.matmul(x, ops.constant(rng.standard_normal((64, 64)).astype(np.float32)), False, False))
y = ops.matmul(h, ops.constant(rng.standard_normal((64, 32)).astype(np.float32)), False, False)
model = nncf.compress_weights(ov.Model([y], [x], "mlp"), mode=getattr(nncf.CompressWeightsMode, sys.argv[1]),
                              group_size=32, ratio=1.0, all_layers=True)
ov.save_model(model, sys.argv[2], compress_to_fp16=False)
"""


@pytest.mark.parametrize(("mode", "et"), [("NF4", "nf4"), ("FP4", "f4e2m1")])
def test_nncf_4bit_float_irs_show_and_convert_again(tmp_path: Path, mode: str, et: str) -> None:
    """An IR NNCF compressed to nf4 or f4e2m1 weights: ``irconv show`` reads it, and
    converting it again keeps the 4-bit weights (byte for byte) and runs in OpenVINO with the
    original's results."""
    pytest.importorskip("nncf")
    first, second = tmp_path / "nncf" / "mlp.xml", tmp_path / "again" / "mlp.xml"
    made = subprocess.run([sys.executable, "-c", NNCF_MAKE, mode, str(first)], capture_output=True, text=True,
                          timeout=600)
    assert made.returncode == 0, made.stderr[-3000:]
    assert f'element_type="{et}"' in first.read_text()
    for args in (["show", str(first), "-o", str(tmp_path / "show.html")],
                 ["convert", str(first), "-o", str(second), "-q"]):
        done = _cli(*args)
        assert done.returncode == 0, (args, done.stderr)
    assert second.read_text().count(f'element_type="{et}"') == first.read_text().count(f'element_type="{et}"') == 2
    x = RNG.standard_normal((2, 64)).astype(np.float32)
    np.testing.assert_array_equal(_run_exact(second, x), _run_exact(first, x))


def _run_exact(xml: Path, x: np.ndarray) -> np.ndarray:
    """The IR's output in f32, without the CPU plugin's dynamic quantization of activations
    (on by default for 4-bit weights: it would differ from the exact product by ~1e-2)."""
    from irconv.runtime import compile_for_comparison

    return compile_for_comparison(xml)([x])[0]
