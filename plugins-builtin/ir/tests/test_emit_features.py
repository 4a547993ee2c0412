"""What the emitter promises: fp16 compression, dedup, names, dynamic shapes, errors, atomicity."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from irconv import ConversionOptions
from irconv.errors import ConversionError, UserError
from irconv.graph import Graph
from irconv.ops import Op, Parameter, SourceOp, attr
from irconv.pipeline.infer import infer_graph
from irconv.pipeline.run import ConversionReport, save
from irconv.testing import GraphBuilder
from irconv.testing.runtime import compile_ir, emit_ir, run_ir
from irconv.types import ElementType
from irconv_opset import Add, MatMul, ReLU

rng = np.random.default_rng(7)


def mlp(weights: list[np.ndarray] | None = None) -> Graph:
    b = GraphBuilder("mlp")
    x = b.parameter("x", (None, 16))
    weights = weights or [
        rng.standard_normal((16, 32)).astype(np.float32),
        rng.standard_normal((32, 8)).astype(np.float32),
    ]
    h = x
    for w in weights:
        h = b.op(ReLU(), b.op(MatMul(), h, b.const(w)))
    b.result(h, "y")
    infer_graph(b.graph)
    return b.graph


def layers(xml: Path) -> list[ET.Element]:
    return list(ET.parse(xml).getroot().find("layers"))  # type: ignore[arg-type]


def const_types(xml: Path) -> dict[str, str]:
    """Const layer name -> its element type."""
    return {
        layer.get("name", ""): layer.find("data").get("element_type", "")  # type: ignore[union-attr]
        for layer in layers(xml)
        if layer.get("type") == "Const"
    }


def emit_with_notes(graph: Graph, xml: Path, host, **options) -> list[str]:  # type: ignore[no-untyped-def]
    report = ConversionReport()
    save(graph, xml, ConversionOptions.from_kwargs(**options), host, report=report)
    return report.notes


# ---------------------------------------------------------------- fp16
def test_fp16_output_within_f16_tolerance_of_f32(tmp_path, installed_host):
    graph = mlp()
    f32 = emit_ir(graph, tmp_path / "f32.xml", installed_host, compress_to_fp16=False)
    f16 = emit_ir(graph, tmp_path / "f16.xml", installed_host, compress_to_fp16=True)
    x = rng.standard_normal((4, 16)).astype(np.float32)
    expected, got = run_ir(f32, {"x": x})["y"], run_ir(f16, {"x": x})["y"]
    assert not np.array_equal(expected, got)  # the weights really were rounded
    np.testing.assert_allclose(got, expected, rtol=1e-2, atol=1e-2 * np.abs(expected).max())
    assert f16.with_suffix(".bin").stat().st_size * 2 == f32.with_suffix(".bin").stat().st_size


def test_fp16_layers_are_f16_const_and_marked_convert(tmp_path, installed_host):
    xml = emit_ir(mlp(), tmp_path / "m.xml", installed_host, compress_to_fp16=True)
    converts = [layer for layer in layers(xml) if layer.get("type") == "Convert"]
    assert len(converts) == 2
    for convert in converts:
        assert convert.find("data").get("destination_type") == "f32"  # type: ignore[union-attr]
        assert convert.find("rt_info/attribute").attrib == {"name": "decompression", "version": "0"}  # type: ignore[union-attr]
    consts = [layer.find("data").get("element_type") for layer in layers(xml) if layer.get("type") == "Const"]  # type: ignore[union-attr]
    assert consts == ["f16", "f16"]
    # the runtime recognises the decompression pattern: compute stays f32
    model = compile_ir(xml)
    assert model.outputs[0].get_element_type().get_type_name() == "f32"


def test_fp16_keeps_values_beyond_its_range_f32_and_counts_underflow(tmp_path, installed_host):
    """A weight f16 cannot hold (beyond +-65504) stays f32, whole and exact, and the note
    names it; one whose tiny values only round to zero is compressed, the zeros counted."""
    big = rng.standard_normal((16, 8)).astype(np.float32)
    big[0, :3] = [1e6, -7e4, 65504.0]  # two beyond the f16 range, one exactly at its edge
    tiny = rng.standard_normal((8, 4)).astype(np.float32)
    tiny[1, :2] = [1e-9, -2e-8]  # both round to zero in f16
    notes = emit_with_notes(mlp([big, tiny]), tmp_path / "m.xml", installed_host, compress_to_fp16=True)
    text = " ".join(notes)
    assert "compressed 1 f32 constant(s) (32 values)" in text, text
    assert "kept 1 constant(s) f32 (values beyond +-65504): 'Const_1'" in text, text
    assert "2 non-zero value(s) below the f16 range became zero" in text and "clamped" not in text
    assert sorted(const_types(tmp_path / "m.xml").values()) == ["f16", "f32"]
    x = np.zeros((1, 16), np.float32)
    x[0, 0] = 1
    hidden = np.maximum(x @ big, 0)
    y = run_ir(tmp_path / "m.xml", {"x": x})["y"]
    assert hidden[0, 0] == 1e6  # the exact f32 value reaches the next layer, not 65504
    np.testing.assert_allclose(y, np.maximum(hidden @ tiny.astype(np.float16).astype(np.float32), 0), rtol=1e-5)


def test_fp16_rounded_constants_stay_f32_unless_f16_holds_them(tmp_path, installed_host):
    """Constants whose values are rounded to integers downstream (a requantization's bias and
    multiplier before Round, a grid range of FakeQuantize), or that scale integers (the
    dequantization after it), stay f32 when f16 would move them; ones f16 holds exactly,
    and the data weights, are compressed."""
    from irconv_opset import Convert, FakeQuantize, Multiply, Round

    b = GraphBuilder("requantize")
    x = b.parameter("x", (1, 64))
    weights = rng.standard_normal((64, 16)).astype(np.float32)
    product = b.op(MatMul(), x, b.const(weights, name="weights"))
    accumulated = b.op(Add(), product, b.const(np.float32(4097.0), name="bias"))
    scaled = b.op(Multiply(), accumulated, b.const(np.float32(0.0123456), name="multiplier"))
    offset = b.op(Add(), scaled, b.const(np.float32(0.5), name="half"))  # 0.5: f16 holds it
    rounded = b.op(Round(mode="half_to_even"), offset)
    b.result(b.op(Convert(destination_type=ElementType.i32), rounded), "q")
    b.result(b.op(Multiply(), rounded, b.const(np.float32(0.00731), name="out_scale")), "real")  # dequantized
    ranges = [(-1.00392, "in_low"), (0.99608, "in_high"), (-1.0, "out_low"), (1.0, "out_high")]
    grid = [b.const(np.float32(v), name=n) for v, n in ranges]
    b.result(b.op(FakeQuantize(levels=256), x, *grid), "fq")
    infer_graph(b.graph)
    notes = emit_with_notes(b.graph, tmp_path / "m.xml", installed_host, compress_to_fp16=True)
    kept = ("bias", "multiplier", "in_low", "in_high", "out_scale")
    by_name = const_types(tmp_path / "m.xml")
    assert {n: by_name[n] for n in kept} == dict.fromkeys(kept, "f32")
    assert {by_name[f"{n}/compressed"] for n in ("weights", "half", "out_low", "out_high")} == {"f16"}
    assert "kept 5 constant(s) f32 (in exact integer arithmetic, not exact in f16)" in " ".join(notes)
    x_value = rng.uniform(-1, 1, (1, 64)).astype(np.float32)
    got = run_ir(tmp_path / "m.xml", {"x": x_value})
    f16_weights = weights.astype(np.float16).astype(np.float32)
    exact = np.round((x_value @ f16_weights + np.float32(4097.0)) * np.float32(0.0123456) + np.float32(0.5))
    np.testing.assert_array_equal(got["q"], exact.astype(np.int32))
    np.testing.assert_array_equal(got["real"], exact * np.float32(0.00731))


def test_no_compression_leaves_f32(tmp_path, installed_host):
    notes = emit_with_notes(mlp(), tmp_path / "m.xml", installed_host, compress_to_fp16=False)
    assert not [layer for layer in layers(tmp_path / "m.xml") if layer.get("type") == "Convert"]
    assert not notes


def test_integer_and_shape_constants_are_not_compressed(tmp_path, installed_host):
    from irconv_opset import Convert, Interpolate, Multiply, Reshape

    b = GraphBuilder("shapes")
    x = b.parameter("x", (1, 2, 4, 4))
    scales = b.op(Multiply(), b.const(np.array([1.0, 1.0], np.float32)), b.const(np.float32(2.0)))
    up = b.op(
        Interpolate(mode="nearest", shape_calculation_mode="scales"),
        x,
        scales,  # Interpolate-11: scales_or_sizes, axes
        b.const(np.array([2, 3], np.int64)),
    )
    # a shape computed in f32 and converted: 4097 is not representable in f16 (it rounds to 4096)
    target = b.op(Convert(destination_type=ElementType.i64), b.const(np.array([1, 4097, -1], np.float32)))
    big = b.op(Reshape(special_zero=False), b.parameter("z", (4097 * 2,)), target)
    b.result(b.op(Reshape(special_zero=False), up, b.const(np.array([1, -1], np.int64))), "y")
    b.result(big, "big")
    b.result(b.op(Multiply(), x, b.const(np.float32(3.0))), "data")  # ordinary data: compressed
    infer_graph(b.graph)
    xml = emit_ir(b.graph, tmp_path / "m.xml", installed_host, compress_to_fp16=True)
    assert (
        len([layer for layer in layers(xml) if layer.get("type") == "Convert"]) == 2
    )  # the i64 one + one decompression
    out = run_ir(xml, {"x": np.ones((1, 2, 4, 4), np.float32), "z": np.arange(8194, dtype=np.float32)})
    assert out["y"].shape == (1, 128) and out["big"].shape == (1, 4097, 2)


# ------------------------------------------------- determinism and dedup
DETERMINISM_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import numpy as np
    from irconv.pipeline.infer import infer_graph
    from irconv.testing import GraphBuilder
    from irconv.testing.runtime import emit_ir
    from irconv_opset import Add, Concat, ReLU
    rng = np.random.default_rng(0)
    b = GraphBuilder("det")
    inputs = [b.parameter(f"in{i}", (1, 4)) for i in range(3)]
    outs = []
    for i, x in enumerate(inputs):
        y = b.op(Add(), x, b.const(rng.standard_normal((1, 4)).astype(np.float32), name=f"w{i}"))
        outs.append(b.op(ReLU(), y))
    b.result(b.op(Concat(axis=0), *outs), "cat")
    b.result(outs[1], "middle")
    infer_graph(b.graph)
    emit_ir(b.graph, Path(sys.argv[1]), compress_to_fp16=True)
    """
)


def test_emit_is_byte_identical_across_processes(tmp_path):
    script = tmp_path / "emit.py"
    script.write_text(DETERMINISM_SCRIPT)
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"run{seed}" / "m.xml"
        subprocess.run([sys.executable, str(script), str(out)], check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        outputs.append((out.read_bytes(), out.with_suffix(".bin").read_bytes()))
    assert outputs[0] == outputs[1]


def test_emit_is_byte_identical_whatever_the_number_of_threads(tmp_path, installed_host, monkeypatch):
    """Blocks encoded on 1, 2 or 5 threads land in the same order: the same files (f16
    compression, a gathered transposed view and a value beyond f16's range among them)."""
    from irconv_ir import blobs

    monkeypatch.setattr(blobs, "BLOCK", 1 << 12)  # many blocks per constant, at a test's size
    monkeypatch.setattr(blobs, "MIN_BLOCK", 1 << 10)
    first = rng.standard_normal((16, 256)).astype(np.float32)
    transposed = rng.standard_normal((512, 256)).astype(np.float32).T  # a view, gathered block by block
    last = rng.standard_normal((512, 96)).astype(np.float32)
    last[5, 7] = 1e6  # stays f32
    graph = mlp([first, transposed, last])
    written = {}
    for compress in (True, False):
        for threads in (1, 2, 5):
            path = tmp_path / f"{compress}-{threads}" / "m.xml"
            xml = emit_ir(graph, path, installed_host, compress_to_fp16=compress, threads=threads)
            written[compress, threads] = (xml.read_bytes(), xml.with_suffix(".bin").read_bytes())
        assert written[compress, 1] == written[compress, 2] == written[compress, 5]
    assert len(written[True, 1][1]) < len(written[False, 1][1])


def test_threads_must_be_a_whole_number_of_one_or_more():
    with pytest.raises(UserError, match="threads: expected a whole number of 1 or more, got 0"):
        ConversionOptions.from_kwargs(threads=0)
    assert ConversionOptions.from_kwargs(threads="3").worker_threads() == 3
    assert ConversionOptions().worker_threads() >= 1


def test_equal_constants_share_one_blob(tmp_path, installed_host):
    w = rng.standard_normal((16, 16)).astype(np.float32)
    graph = mlp([w, w.copy(), w.copy()])
    xml = emit_ir(graph, tmp_path / "m.xml", installed_host)
    consts = [layer.find("data").attrib for layer in layers(xml) if layer.get("type") == "Const"]  # type: ignore[union-attr]
    assert len(consts) == 3 and len({c["offset"] for c in consts}) == 1
    assert xml.with_suffix(".bin").stat().st_size == w.nbytes
    x = rng.standard_normal((2, 16)).astype(np.float32)
    expected = np.maximum(np.maximum(np.maximum(x @ w, 0) @ w, 0) @ w, 0)
    np.testing.assert_allclose(run_ir(xml, {"x": x})["y"], expected, rtol=1e-4, atol=1e-4)


# --------------------------------------------------- names and shapes
def test_tensor_names_with_commas_are_escaped_and_found(tmp_path, installed_host):
    b = GraphBuilder("names")
    x = b.parameter("in,put", (2,))
    y = b.op(ReLU(), x)
    y.data.add_name("out,a")
    y.data.add_name("out b")
    b.result(y)
    infer_graph(b.graph)
    xml = emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    model = compile_ir(xml)
    assert model.inputs[0].get_names() == {"in,put"}
    assert model.outputs[0].get_names() == {"out,a", "out b"}
    out = run_ir(xml, {"in,put": np.array([-1, 1], np.float32)})
    np.testing.assert_array_equal(out["out,a"], [0, 1])


def test_inputs_and_outputs_keep_creation_order(tmp_path, installed_host):
    b = GraphBuilder("order")
    second_made_first = b.parameter("zeta", (1,))
    first = b.parameter("alpha", (1,))
    late = b.op(ReLU(), b.op(Add(), second_made_first, first))
    b.result(late, "late_result")
    b.result(b.op(ReLU(), first), "early_result")
    infer_graph(b.graph)
    model = compile_ir(emit_ir(b.graph, tmp_path / "m.xml", installed_host))
    assert [p.get_any_name() for p in model.inputs] == ["zeta", "alpha"]
    assert [p.get_any_name() for p in model.outputs] == ["late_result", "early_result"]


def test_dynamic_dims(tmp_path, installed_host):
    b = GraphBuilder("dynamic")
    z = b.parameter("z", (None, 3))
    b.result(b.op(ReLU(), z), "rz")
    infer_graph(b.graph)
    xml = emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    params = {
        layer.get("name"): layer.find("data").get("shape") for layer in layers(xml) if layer.get("type") == "Parameter"
    }  # type: ignore[union-attr]
    assert params == {"z": "?,3"}
    model = compile_ir(xml)
    assert str(model.inputs[0].get_partial_shape()) == "[?,3]"
    assert str(model.outputs[0].get_partial_shape()) == "[?,3]"


# ------------------------------------------------------------- errors
def test_a_non_opset_node_is_an_error_naming_it(tmp_path, installed_host):
    from irconv_ir.writer import check_opset_ops

    b = GraphBuilder("bad")
    x = b.parameter("x", (2,))
    b.result(b.op(SourceOp(framework="onnx", op_type="FancyOp", domain="com.example"), x, name="fancy"))
    with pytest.raises(ConversionError, match=r"'fancy'.*FancyOp"):
        check_opset_ops(b.graph)
    with pytest.raises(ConversionError, match=r"'fancy'.*FancyOp"):
        emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    assert list(tmp_path.iterdir()) == []


@dataclass(eq=False)
class Unwritable(Op):
    type = "ReLU"
    version = 1
    weird: object = attr(None)

    def infer(self, node) -> None:  # type: ignore[no-untyped-def]
        node.out_port(0).data.set_shape(node.in_port(0).data.get_shape())
        node.out_port(0).data.set_type(node.in_port(0).data.get_type())


def test_failure_mid_emit_leaves_no_files(tmp_path, installed_host):
    b = GraphBuilder("broken")
    x = b.parameter("x", (2, 16))
    h = b.op(MatMul(), x, b.const(rng.standard_normal((16, 16)).astype(np.float32)))
    b.result(b.op(Unwritable(weird=object()), h, name="broken_relu"))
    infer_graph(b.graph)
    with pytest.raises(ConversionError, match=r"'broken_relu' \(ReLU-1\): cannot write its attributes"):
        emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    assert list(tmp_path.iterdir()) == []


def test_unnamed_inputs_and_outputs_get_their_node_names(tmp_path, installed_host):
    b = GraphBuilder("unnamed")
    x = b.graph.add_node(Parameter((2,)), "data").out_port(0)
    taken = b.op(ReLU(), x, name="taken")
    taken.data.add_name("relu_out")
    b.result(b.op(ReLU(), taken, name="relu_out"))  # its node name is already a tensor name
    b.result(b.op(ReLU(), x, name="second"))
    b.result(taken)
    infer_graph(b.graph)
    model = compile_ir(emit_ir(b.graph, tmp_path / "m.xml", installed_host))
    assert [p.get_names() for p in model.inputs] == [{"data"}]
    assert [p.get_names() for p in model.outputs] == [set(), {"second"}, {"relu_out"}]
    assert b.graph.node("second").out_port(0).data.names == []  # the graph is left as it was


def test_xml_special_characters_and_unicode_in_names(tmp_path, installed_host, reemit):
    odd = 'in "quoted" <tag> & ünïcødé\tname'
    b = GraphBuilder('net "name" & <more>')
    x = b.parameter(odd, (2,))
    b.result(b.op(ReLU(), x, name='relu <&> "x"'), "out\\slash,comma")
    infer_graph(b.graph)
    xml = emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    model = compile_ir(xml)
    assert model.inputs[0].get_names() == {odd}
    assert model.outputs[0].get_names() == {"out\\slash,comma"}
    again = tmp_path / "again.xml"
    graph = reemit(xml, again)
    assert graph.name == 'net "name" & <more>' and graph.has_node('relu <&> "x"')
    assert xml.read_bytes() == again.read_bytes()


@pytest.mark.parametrize(
    ("shape", "element_type", "words"),
    [(None, ElementType.f32, "unknown rank"), ((2,), ElementType.dynamic, "no element type")],
    ids=["rank", "element-type"],
)
def test_a_model_input_the_cpu_plugin_cannot_compile_is_refused(tmp_path, installed_host, shape, element_type, words):
    """OpenVINO reads a model input of dynamic rank or element type, but its CPU plugin refuses to
    compile it: the conversion says so and names the --input override."""
    b = GraphBuilder("dynamic")
    b.result(b.op(ReLU(), b.parameter("x", shape, element_type)), "y")
    infer_graph(b.graph)
    with pytest.raises(ConversionError, match=f"model input 'x' has (an )?{words}.*--input 'x"):
        emit_ir(b.graph, tmp_path / "m.xml", installed_host)


def test_a_constant_of_strings_is_a_clear_error(tmp_path, installed_host):
    b = GraphBuilder("strings")
    x = b.parameter("x", (2,))
    b.result(b.op(Add(), x, b.const(np.array(["a", "b"]), name="labels")))
    with pytest.raises(ConversionError, match="'labels' holds <U1 values"):
        emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    assert list(tmp_path.iterdir()) == []


def test_equal_bytes_of_different_types_share_a_blob_and_run(tmp_path, installed_host):
    floats = np.array([1.0, -2.5], np.float32)
    ints = floats.view(np.int32).copy()
    b = GraphBuilder("shared bytes")
    fx = b.parameter("fx", (2,))
    ix = b.parameter("ix", (2,), "i32")
    b.result(b.op(Add(), fx, b.const(floats)), "f")
    b.result(b.op(Add(), ix, b.const(ints)), "i")
    infer_graph(b.graph)
    xml = emit_ir(b.graph, tmp_path / "m.xml", installed_host)
    consts = [layer.find("data").attrib for layer in layers(xml) if layer.get("type") == "Const"]  # type: ignore[union-attr]
    assert [c["element_type"] for c in consts] == ["f32", "i32"] and consts[0]["offset"] == consts[1]["offset"]
    out = run_ir(xml, {"fx": np.zeros(2, np.float32), "ix": np.zeros(2, np.int32)})
    np.testing.assert_array_equal(out["f"], floats)
    np.testing.assert_array_equal(out["i"], ints)
