"""Reading IRs: ones OpenVINO wrote itself, IR v10, control flow, and broken files."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from irconv import Const
from irconv.errors import ModelFileError, UnsupportedOpsError
from irconv.testing.runtime import run_ir
from irconv_ir.reader import load_ir, sniff_ir

rng = np.random.default_rng(11)


def ov_conv_model(path: Path, compress: bool) -> Path:
    import openvino as ov
    from openvino import opset13 as ops

    x = ops.parameter([1, 3, 16, 16], np.float32, name="image")
    w = ops.constant(rng.standard_normal((8, 3, 3, 3)).astype(np.float32))
    conv = ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1])
    bias = ops.constant(rng.standard_normal((1, 8, 1, 1)).astype(np.float32))
    act = ops.relu(ops.add(conv, bias))
    pool = ops.max_pool(act, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit", "i64")
    soft = ops.softmax(ops.reshape(pool.output(0), ops.constant(np.array([1, -1], np.int64)), False), -1)
    soft.output(0).set_names({"probabilities"})
    xml = path / f"ov_{compress}.xml"
    ov.save_model(ov.Model([soft], [x], "ov conv"), str(xml), compress_to_fp16=compress)
    return xml


@pytest.mark.parametrize("compress", [False, True], ids=["f32", "fp16"])
def test_openvino_written_ir_reemits_and_runs_the_same(tmp_path, reemit, compress):
    original = ov_conv_model(tmp_path, compress)
    ours = tmp_path / "ours.xml"
    reemit(original, ours, compress_to_fp16=compress)
    image = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    expected = run_ir(original, {"image": image})["probabilities"]
    np.testing.assert_allclose(run_ir(ours, {"image": image})["probabilities"], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["if", "loop", "ti"])
def test_openvino_control_flow_irs_read_back(tmp_path, reemit, kind):
    original = OV_CONTROL_FLOW[kind](tmp_path)
    ours = tmp_path / "ours.xml"
    reemit(original, ours)
    feeds = {
        "if": [{"cond": np.array(c), "x": np.array([-1.5, 2.0], np.float32)} for c in (True, False)],
        "loop": [{"a": np.array([[1.0, -2.0]], np.float32)}],
        "ti": [{"s": rng.standard_normal((4, 2)).astype(np.float32), "h": np.ones((1, 2), np.float32)}],
    }[kind]
    for feed in feeds:
        expected = run_ir(original, feed)
        got = run_ir(ours, feed)
        assert len(expected) == len(got)
        for a, b in zip(expected.values(), got.values(), strict=True):
            np.testing.assert_allclose(b, a, rtol=1e-6)


def _ov_if(path: Path) -> Path:
    import openvino as ov
    from openvino import opset13 as ops

    c = ops.parameter([], np.bool_, name="cond")
    x = ops.parameter([2], np.float32, name="x")
    tp = ops.parameter([2], np.float32)
    ep = ops.parameter([2], np.float32)
    tr, er = ops.result(ops.relu(tp)), ops.result(ops.negative(ep))
    node = ops.if_op(c)
    node.set_then_body(ov.Model([tr], [tp]))
    node.set_else_body(ov.Model([er], [ep]))
    node.set_input(x.output(0), tp, ep)
    out = node.set_output(tr, er)
    ov.save_model(ov.Model([out], [c, x]), str(path / "if.xml"))
    return path / "if.xml"


def _ov_loop(path: Path) -> Path:
    import openvino as ov
    from openvino import opset13 as ops

    a = ops.parameter([1, 2], np.float32, name="a")
    bp, it = ops.parameter([1, 2], np.float32), ops.parameter([1], np.int64)
    step = ops.add(ops.multiply(bp, ops.constant(np.float32(2))), ops.convert(it, "f32"))
    bres, bcond = ops.result(step), ops.result(ops.constant(True))
    loop = ops.loop(ops.constant(np.int64(3)), ops.constant(True))
    loop.set_function(ov.Model([bcond, bres], [it, bp]))
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(bp, a.output(0), bres.output(0))
    last = loop.get_iter_value(bres.output(0), -1)
    every = loop.get_concatenated_slices(bres.output(0), 0, 1, 1, -1, 0)
    ov.save_model(ov.Model([last, every], [a]), str(path / "loop.xml"))
    return path / "loop.xml"


def _ov_ti(path: Path) -> Path:
    import openvino as ov
    from openvino import opset13 as ops

    s = ops.parameter([4, 2], np.float32, name="s")
    h = ops.parameter([1, 2], np.float32, name="h")
    xp, hp = ops.parameter([1, 2], np.float32), ops.parameter([1, 2], np.float32)
    res = ops.result(ops.tanh(ops.add(xp, hp)))
    ti = ops.tensor_iterator()
    ti.set_body(ov.Model([res], [xp, hp]))
    ti.set_sliced_input(xp, s.output(0), -1, -1, 1, 0, 0)  # walks the rows backwards
    ti.set_merged_input(hp, h.output(0), res.output(0))
    last = ti.get_iter_value(res.output(0), -1)
    every = ti.get_concatenated_slices(res.output(0), 0, 1, 1, -1, 0)
    ov.save_model(ov.Model([last, every], [s, h]), str(path / "ti.xml"))
    return path / "ti.xml"


OV_CONTROL_FLOW = {"if": _ov_if, "loop": _ov_loop, "ti": _ov_ti}


def test_ir_v10_is_read(tmp_path, reemit):
    original = ov_conv_model(tmp_path, False)
    v10 = tmp_path / "v10.xml"
    v10.write_text(original.read_text().replace('version="11"', 'version="10"', 1))
    v10.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    ours = tmp_path / "ours.xml"
    reemit(v10, ours)
    image = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    np.testing.assert_allclose(
        run_ir(ours, {"image": image})["probabilities"], run_ir(original, {"image": image})["probabilities"], rtol=1e-5
    )


def test_ir_v10_without_tensor_names_uses_layer_names(tmp_path, reemit, load_ctx):
    import re

    original = ov_conv_model(tmp_path, False)
    text = re.sub(r' names="[^"]*"', "", original.read_text()).replace('version="11"', 'version="10"', 1)
    v10 = tmp_path / "v10.xml"
    v10.write_text(text)
    v10.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    graph = load_ir(v10, load_ctx)
    assert graph.parameters()[0].out_port(0).data.names == ["image"]
    softmax = graph.results()[0].in_port(0).get_source()
    assert softmax.data.names == [softmax.node.name]
    ours = tmp_path / "ours.xml"
    reemit(v10, ours)
    image = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    got = run_ir(ours, {"image": image})[softmax.node.name]
    np.testing.assert_allclose(got, run_ir(original, {"image": image})["probabilities"], rtol=1e-5)


def test_unsupported_constant_types_are_named(tmp_path, load_ctx):
    original = ov_conv_model(tmp_path, False)
    broken = tmp_path / "f4.xml"
    import re

    # f4e2m1: an OpenVINO element type irconv has none of (u4/i4 are read since 0.2)
    text, count = re.subn(r'element_type="f32"( shape="8, ?3)', r'element_type="f4e2m1"\1', original.read_text(),
                          count=1)
    assert count == 1
    broken.write_text(text)
    broken.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    with pytest.raises(ModelFileError, match="element type 'f4e2m1' are not supported"):
        load_ir(broken, load_ctx)


def test_constants_are_views_of_the_weights_file(tmp_path, load_ctx):
    graph = load_ir(ov_conv_model(tmp_path, False), load_ctx)
    weights = [n.op.value for n in graph.nodes() if isinstance(n.op, Const) and n.op.value.size > 100]
    assert weights
    for value in weights:
        assert not value.flags.owndata and not value.flags.writeable


def test_sniff(tmp_path):
    ir = ov_conv_model(tmp_path, False)
    other = tmp_path / "other.xml"
    other.write_text('<?xml version="1.0"?><config><item/></config>')
    assert sniff_ir(ir) and not sniff_ir(other) and not sniff_ir(ir.with_suffix(".bin"))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("</net>", ""), "not well-formed"),
        (lambda t: t.replace('version="11"', 'version="7"', 1), "IR version '7' is not supported"),
        (lambda t: t.replace('offset="0"', 'offset="999999999"', 1), "outside the weights file"),
        (lambda t: t.replace('<edge from-layer="0"', '<edge from-layer="77"', 1), "missing layer"),
        (lambda t: t.replace("<input>", '<input><port id="0" precision="FP32" />', 1), "declares port id 0 twice"),
        (lambda t: t.replace("</input>", "</input><input />", 1), "more than one <input> element"),
        (lambda t: re.sub(r"(<edge [^>]*/>)", r"\1\1", t, count=1), "has two edges"),
    ],
    ids=["truncated", "version", "offset", "edge", "duplicated-port", "two-input-lists", "two-edges-one-port"],
)
def test_broken_files_are_clear_errors(tmp_path, edit, message, load_ctx):
    original = ov_conv_model(tmp_path, False)
    broken = tmp_path / "broken.xml"
    broken.write_text(edit(original.read_text()))
    broken.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    with pytest.raises(ModelFileError, match=message):
        load_ir(broken, load_ctx)


def test_missing_weights_file_is_named(tmp_path, load_ctx):
    original = ov_conv_model(tmp_path, False)
    original.with_suffix(".bin").unlink()
    with pytest.raises(ModelFileError, match=r"weights file .*\.bin is missing"):
        load_ir(original, load_ctx)


def test_extension_layers_are_reported_as_unsupported(tmp_path, reemit):
    original = ov_conv_model(tmp_path, False)
    text = original.read_text().replace('type="ReLU" version="opset1"', 'type="MyReLU" version="my_extension"')
    custom = tmp_path / "custom.xml"
    custom.write_text(text)
    custom.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    with pytest.raises(UnsupportedOpsError) as caught:
        reemit(custom, tmp_path / "out.xml")
    message = str(caught.value)
    assert 'MyReLU (version="my_extension") x1' in message
    assert "no installed plugin declares custom opset 'my_extension'" in message
    assert "Install the irconv plugin that declares these ops" in message


def test_layers_out_of_order_are_sorted(tmp_path, reemit):
    """An IR whose layers are listed consumers first still reads (and runs) the same."""
    import xml.etree.ElementTree as ET

    original = ov_conv_model(tmp_path, False)
    tree = ET.parse(original)
    layers = tree.getroot().find("layers")
    items = list(layers)
    for item in items:
        layers.remove(item)
    for item in reversed(items):
        layers.append(item)
    shuffled = tmp_path / "reversed.xml"
    tree.write(shuffled)
    shuffled.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    ours = tmp_path / "ours.xml"
    reemit(shuffled, ours)
    image = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    np.testing.assert_allclose(
        run_ir(ours, {"image": image})["probabilities"], run_ir(original, {"image": image})["probabilities"], rtol=1e-6
    )


def test_a_cycle_is_a_clear_error(tmp_path, load_ctx):
    original = ov_conv_model(tmp_path, False)
    text = original.read_text()
    # feed the first ReLU back into the Convolution's data input
    import re

    relu = re.search(r'<layer id="(\d+)" name="[^"]*" type="ReLU"', text).group(1)
    conv = re.search(r'<layer id="(\d+)" name="[^"]*" type="Convolution"', text).group(1)
    text = re.sub(
        rf'<edge from-layer="\d+" from-port="\d+" to-layer="{conv}" to-port="0" />',
        f'<edge from-layer="{relu}" from-port="1" to-layer="{conv}" to-port="0" />',
        text,
    )
    cyclic = tmp_path / "cyclic.xml"
    cyclic.write_text(text)
    cyclic.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    with pytest.raises(ModelFileError, match="cycle"):
        load_ir(cyclic, load_ctx)


def test_runtime_markers_such_as_int8_decompression_are_kept(tmp_path, installed_host, reemit):
    """u8 weights -> Convert (marked decompression) -> Subtract -> Multiply: the mark survives."""
    from irconv.pipeline.infer import infer_graph
    from irconv.testing import GraphBuilder
    from irconv.testing.runtime import emit_ir
    from irconv.types import ElementType
    from irconv_opset import Convert, MatMul, Multiply, Subtract

    b = GraphBuilder("int8 weights")
    x = b.parameter("x", (1, 8))
    codes = b.const(rng.integers(0, 255, (8, 4)).astype(np.uint8))
    weights = b.op(Convert(destination_type=ElementType.f32), codes, name="weights/decompress")
    weights = b.op(Subtract(), weights, b.const(np.float32(128)))
    weights = b.op(Multiply(), weights, b.const(np.float32(0.01)))
    b.result(b.op(MatMul(), x, weights), "y")
    infer_graph(b.graph)
    plain = emit_ir(b.graph, tmp_path / "plain.xml", installed_host)
    marker = '\t\t\t<rt_info>\n\t\t\t\t<attribute name="decompression" version="0" />\n\t\t\t</rt_info>\n'
    text = plain.read_text()
    head = text.index('name="weights/decompress"')
    data_end = text.index("\n", text.index("<data", head)) + 1
    marked = tmp_path / "marked.xml"
    marked.write_text(text[:data_end] + marker + text[data_end:])
    marked.with_suffix(".bin").write_bytes(plain.with_suffix(".bin").read_bytes())
    again = tmp_path / "again.xml"
    reemit(marked, again)
    assert again.read_text() == marked.read_text()
    feed = {"x": rng.standard_normal((1, 8)).astype(np.float32)}
    np.testing.assert_allclose(run_ir(again, feed)["y"], run_ir(plain, feed)["y"], rtol=1e-6)


SHARED_F16_IR = """<?xml version="1.0"?>
<net name="shared" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,4" element_type="f32" />
<output><port id="0" precision="FP32" names="x"><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="1" name="w16" type="Const" version="opset1"><data element_type="f16" shape="4, 4" offset="0" size="32" />
<output><port id="0" precision="FP16"><dim>4</dim><dim>4</dim></port></output></layer>
{converts}
<layer id="4" name="mm_a" type="MatMul" version="opset1"><data transpose_a="false" transpose_b="false" />
<input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port><port id="1" precision="FP32"><dim>4</dim><dim>4</dim></port></input>
<output><port id="2" precision="FP32"><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="5" name="mm_b" type="MatMul" version="opset1"><data transpose_a="false" transpose_b="true" />
<input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port><port id="1" precision="FP32"><dim>4</dim><dim>4</dim></port></input>
<output><port id="2" precision="FP32"><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="6" name="sum" type="Add" version="opset1"><data auto_broadcast="numpy" />
<input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port><port id="1" precision="FP32"><dim>1</dim><dim>4</dim></port></input>
<output><port id="2" precision="FP32" names="y"><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="7" name="out" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></input></layer>
</layers>
<edges>
<edge from-layer="1" from-port="0" to-layer="2" to-port="0" />
<edge from-layer="1" from-port="0" to-layer="3" to-port="0" />
<edge from-layer="0" from-port="0" to-layer="4" to-port="0" />
<edge from-layer="2" from-port="1" to-layer="4" to-port="1" />
<edge from-layer="0" from-port="0" to-layer="5" to-port="0" />
<edge from-layer="3" from-port="1" to-layer="5" to-port="1" />
<edge from-layer="4" from-port="2" to-layer="6" to-port="0" />
<edge from-layer="5" from-port="2" to-layer="6" to-port="1" />
<edge from-layer="6" from-port="2" to-layer="7" to-port="0" />
</edges>
</net>
"""
DECOMPRESSION = """<layer id="{id}" name="{name}" type="Convert" version="opset1"><data destination_type="f32" />
<rt_info><attribute name="decompression" version="0" /></rt_info>
<input><port id="0" precision="FP16"><dim>4</dim><dim>4</dim></port></input>
<output><port id="1" precision="FP32"><dim>4</dim><dim>4</dim></port></output></layer>"""


def test_an_f16_constant_shared_by_two_decompressions_is_read_as_two_f32_constants(tmp_path, reemit, load_ctx):
    converts = DECOMPRESSION.format(id=2, name="w_a") + "\n" + DECOMPRESSION.format(id=3, name="w_b")
    xml = tmp_path / "shared.xml"
    xml.write_text(SHARED_F16_IR.format(converts=converts))
    weights = rng.standard_normal((4, 4)).astype(np.float16)
    xml.with_suffix(".bin").write_bytes(weights.tobytes())
    graph = load_ir(xml, load_ctx)
    consts = {n.name: n.op.value for n in graph.nodes() if isinstance(n.op, Const)}
    assert sorted(consts) == ["w_a", "w_b"] and not graph.by_type("Convert")
    for value in consts.values():
        np.testing.assert_array_equal(value, weights.astype(np.float32))
    ours = tmp_path / "ours.xml"
    reemit(xml, ours, compress_to_fp16=True)
    feed = {"x": rng.standard_normal((1, 4)).astype(np.float32)}
    np.testing.assert_allclose(run_ir(ours, feed)["y"], run_ir(xml, feed)["y"], rtol=1e-6)
