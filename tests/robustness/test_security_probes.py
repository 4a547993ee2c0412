"""One test per hostile-input probe of issue 15.

Every conversion runs fenced (forked child, 4 GiB address space, time limit) through the
command line, as a user would run it. Probes whose fix belongs to another area are strict
xfails whose reason names the file to change.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from irconv.protowire import length_delimited, varint
from irconv.runtime import compile_for_comparison
from onnx import TensorProto, helper, numpy_helper
from robust_harness import Limits, Outcome, convert_case, preload

F32 = TensorProto.FLOAT


@pytest.fixture(scope="module", autouse=True)
def _preloaded() -> None:
    preload([])


def convert(model: Path, tmp_path: Path, *extra: str, seconds: float = 60, openvino: bool = True) -> Outcome:
    return convert_case(
        model, tmp_path / "out" / "model.xml", list(extra), Limits(seconds=seconds, check_openvino=openvino)
    )


def save(tmp: Path, name: str, nodes, inputs, outputs, inits=(), opset: int = 17) -> Path:  # type: ignore[no-untyped-def]
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    path = tmp / "in" / f"{name}.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString())
    return path


# ------------------------------------------------------------------ ONNX external data
def external_model(tmp: Path, location: str) -> Path:
    """y = x + w, where w (4 floats) lives in external data at ``location``."""
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "16")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    return save(
        tmp,
        "ext",
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [helper.make_tensor_value_info("x", F32, [4])],
        [helper.make_tensor_value_info("y", F32, [4])],
        [w],
    )


def secret_file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "secret.bin"
    path.write_bytes(np.arange(4, dtype=np.float32).tobytes())
    return path


def assert_refused(outcome: Outcome, *words: str) -> None:
    assert outcome.outcome == "clean-error", outcome
    assert any(w in outcome.message for w in words), outcome.message


def test_external_data_path_traversal_is_refused(tmp_path):
    secret_file(tmp_path / "outside")
    model = external_model(tmp_path, "../outside/secret.bin")
    assert_refused(convert(model, tmp_path), "outside", "folder")


def test_external_data_absolute_path_is_refused(tmp_path):
    secret = secret_file(tmp_path / "outside")
    model = external_model(tmp_path, str(secret))
    assert_refused(convert(model, tmp_path), "absolute", "outside", "folder")


def test_external_data_symlink_leaving_the_folder_is_refused(tmp_path):
    secret = secret_file(tmp_path / "outside")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "w.bin").symlink_to(secret)
    model = external_model(tmp_path, "w.bin")
    assert_refused(convert(model, tmp_path), "outside", "folder", "link")


def test_external_data_inside_the_folder_still_converts(tmp_path):
    secret_file(tmp_path / "in" / "weights")
    assert convert(external_model(tmp_path, "weights/secret.bin"), tmp_path).outcome == "accepted"


def test_external_data_past_the_end_of_its_file_is_refused(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "w.bin").write_bytes(b"\0" * 8)  # half of what the tensor needs
    assert_refused(convert(external_model(tmp_path, "w.bin"), tmp_path), "does not hold")


# ------------------------------------------------------------------------ IR XML reader
IR_BODY = """<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>
<output><port id="0" precision="FP32" names="x"><dim>2</dim></port></output></layer>
<layer id="1" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>2</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>"""


def write_ir(tmp: Path, doctype: str, name: str, body: str = IR_BODY) -> Path:
    folder = tmp / "in"
    folder.mkdir(parents=True, exist_ok=True)
    xml = folder / "model.xml"
    xml.write_text(f'<?xml version="1.0"?>\n{doctype}\n<net name="{name}" version="11">{body}</net>\n')
    (folder / "model.bin").write_bytes(b"")
    return xml


@pytest.mark.parametrize("where", ["attribute", "content"])
def test_xxe_external_entity_is_not_resolved(tmp_path, where):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-TOKEN")
    doctype = f'<!DOCTYPE net [ <!ENTITY xxe SYSTEM "file://{secret}"> ]>'
    if where == "attribute":
        xml = write_ir(tmp_path, doctype, "&xxe;")
    else:
        xml = write_ir(tmp_path, doctype, "m", IR_BODY.replace("<layers>", "<layers>&xxe;"))
    outcome = convert(xml, tmp_path, seconds=20)  # a hang would be outcome "hang"
    assert outcome.outcome == "clean-error", outcome
    written = [p.read_bytes() for p in (tmp_path / "out").glob("*") if p.is_file()]
    assert not any(b"TOP-SECRET" in blob for blob in written)


def test_billion_laughs_is_refused_quickly(tmp_path):
    entities = ['<!ENTITY a "' + "a" * 64 + '">']
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        entities.append(f'<!ENTITY {name} "' + f"&{prev};" * 10 + '">')
    xml = write_ir(tmp_path, "<!DOCTYPE net [\n" + "\n".join(entities) + "\n]>", "&j;")
    outcome = convert(xml, tmp_path, seconds=30)  # expanding the entities would be "hang" or "oom"
    assert outcome.outcome == "clean-error", outcome


# ------------------------------------------------------------------------ Keras Lambda


@pytest.fixture(scope="module")
def lambda_models(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], Path]:
    preload(["keras"])
    import tensorflow as tf

    folder = tmp_path_factory.mktemp("keras_lambda")
    marker = folder / "MARKER"
    marker_text = str(marker)
    model = tf.keras.Sequential(
        [
            tf.keras.Input((4,), name="x"),
            tf.keras.layers.Lambda(lambda x: (__import__("pathlib").Path(marker_text).write_text("ran"), x * 2.0)[1]),
            tf.keras.layers.Dense(2),
        ]
    )
    paths = {}
    for suffix in (".keras", ".h5"):
        paths[suffix] = folder / f"lambda{suffix}"
        model.save(paths[suffix])
    marker.unlink(missing_ok=True)
    return paths, marker


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_keras_lambda_layer_is_never_executed(tmp_path, lambda_models, suffix):
    paths, marker = lambda_models
    outcome = convert(paths[suffix], tmp_path, seconds=120, openvino=False)
    assert not marker.exists(), "converting the model ran the Lambda layer's Python code"
    assert outcome.outcome == "clean-error", outcome


def test_keras_lambda_refusal_names_the_opt_in_flag(tmp_path, lambda_models):
    paths, _ = lambda_models
    outcome = convert(paths[".keras"], tmp_path, seconds=120, openvino=False)
    assert outcome.outcome == "clean-error" and "--keras" in outcome.message, outcome


def test_keras_lambda_converts_when_the_user_opts_in(tmp_path, lambda_models):
    paths, marker = lambda_models
    outcome = convert(paths[".keras"], tmp_path, "--keras-allow-unsafe-deserialization", seconds=120, openvino=False)
    assert outcome.outcome != "clean-error", outcome
    assert marker.exists()  # the user asked for the file's code to run, and it did
    marker.unlink()


# -------------------------------------------------------------------- resource bombs
def test_a_declared_1e12_element_initializer_is_refused(tmp_path):
    w = TensorProto(name="w", data_type=F32, dims=[10**6, 10**6], raw_data=b"\0" * 4)
    model = save(
        tmp_path,
        "bigconst",
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [helper.make_tensor_value_info("x", F32, [1])],
        [helper.make_tensor_value_info("y", F32, None)],
        [w],
    )
    assert convert(model, tmp_path).outcome == "clean-error"


def test_a_1e12_element_parameter_is_refused(tmp_path):
    model = save(
        tmp_path,
        "bigparam",
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", F32, [10**6, 10**6, 2])],
        [helper.make_tensor_value_info("y", F32, None)],
    )
    outcome = convert(model, tmp_path)
    assert outcome.outcome == "clean-error" and "declares a tensor" in outcome.message, outcome


@pytest.mark.parametrize("op", ["ConstantOfShape", "Expand", "Tile", "Range"])
def test_a_computed_1e12_element_constant_stays_unfolded(tmp_path, op):
    """4 TiB of f32 asked for by shape: converted within 4 GiB, the sub-graph left as ops."""
    one = numpy_helper.from_array(np.ones((1,), np.float32), "one")
    if op == "ConstantOfShape":
        node = helper.make_node(op, ["shape"], ["big"], value=helper.make_tensor("v", F32, [1], [1.0]))
        inits = [numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "shape")]
    elif op == "Expand":
        node = helper.make_node(op, ["one", "shape"], ["big"])
        inits = [one, numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "shape")]
    elif op == "Tile":
        node = helper.make_node(op, ["one", "reps"], ["big"])
        inits = [one, numpy_helper.from_array(np.array([1 << 40], np.int64), "reps")]
    else:
        node = helper.make_node(op, ["start", "limit", "delta"], ["big"])
        inits = [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in
                 (("start", 0), ("limit", 2.0**40), ("delta", 1))]  # fmt: skip
    model = save(
        tmp_path,
        "bomb",
        [node, helper.make_node("ReduceMax", ["big"], ["y"], keepdims=0)],
        [],
        [helper.make_tensor_value_info("y", F32, None)],
        inits,
        opset=17,
    )
    outcome = convert(model, tmp_path, openvino=False)
    assert outcome.outcome in ("accepted", "clean-error"), outcome
    if outcome.outcome == "accepted":  # the runtime reads it (compiling it needs the 4 TiB)
        import openvino as ov

        xml = tmp_path / "out" / "model.xml"
        ov.Core().read_model(str(xml))
        assert (tmp_path / "out" / "model.bin").stat().st_size < 1 << 20


# ---------------------------------------------------------------- nesting and scale
def deep_if_onnx(depth: int) -> bytes:
    """A model whose If nests ``depth`` levels deep, written as raw protobuf (the Python
    protobuf library itself refuses to build messages this deep)."""

    def graph(nodes: bytes, name: str, out: str) -> bytes:
        g = helper.make_graph([], name, [], [helper.make_tensor_value_info(out, F32, [2])])
        return g.SerializeToString() + nodes

    leaf = helper.make_node("Relu", ["x"], [f"o{depth}"]).SerializeToString()
    inner = graph(length_delimited(1, leaf), "leaf", f"o{depth}")
    for level in range(depth - 1, -1, -1):
        else_g = helper.make_graph(
            [helper.make_node("Neg", ["x"], [f"e{level}"])], f"e{level}", [],
            [helper.make_tensor_value_info(f"e{level}", F32, [2])],
        )  # fmt: skip
        node = helper.make_node("If", ["cond"], [f"o{level}"], else_branch=else_g).SerializeToString()
        then_attr = length_delimited(1, b"then_branch") + varint(20 << 3) + varint(5) + length_delimited(6, inner)
        inner = graph(length_delimited(1, node + length_delimited(5, then_attr)), f"b{level}", f"o{level}")
    top = helper.make_graph(
        [],
        "top",
        [helper.make_tensor_value_info("x", F32, [2]), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [],
    )
    model = helper.make_model(top, opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString() + length_delimited(7, inner)


def test_depth_200_nested_if_onnx_fails_clearly(tmp_path):
    """Deeper than protobuf's nesting limit: one clear error (no RecursionError, no traceback)."""
    path = tmp_path / "in" / "deep.onnx"
    path.parent.mkdir(parents=True)
    path.write_bytes(deep_if_onnx(200))
    outcome = convert(path, tmp_path)
    assert outcome.outcome in ("accepted", "clean-error"), outcome


def deep_if_ir(depth: int) -> str:
    """IR v11 with ``depth`` nested If layers: then-branch recurses, else-branch negates."""
    port = '<port id="{}" precision="FP32"><dim>2</dim></port>'

    def param(k: int) -> str:
        return (f'<layer id="0" name="x{k}" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>'
                f"<output>{port.format(0)}</output></layer>")  # fmt: skip

    def unary(kind: str, k: int) -> str:
        return (f'<layers>{param(k)}<layer id="1" name="{kind}{k}" type="{kind}" version="opset1"><input>{port.format(0)}'
                f'</input><output>{port.format(1)}</output></layer><layer id="2" name="r{kind}{k}" type="Result" '
                f'version="opset1"><input>{port.format(0)}</input></layer></layers><edges><edge from-layer="0" '
                'from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>')  # fmt: skip

    body = unary("ReLU", depth)
    for k in range(depth - 1, -1, -1):
        leaf = k + 1 == depth
        body = (
            f'<layers>{param(k)}<layer id="1" name="c{k}" type="Parameter" version="opset1"><data shape="" '
            'element_type="boolean"/><output><port id="0" precision="BOOL"/></output></layer>'
            f'<layer id="2" name="if{k}" type="If" version="opset8"><then_port_map><input external_port_id="1" '
            'internal_layer_id="0"/>'
            + ("" if leaf else '<input external_port_id="2" internal_layer_id="1"/>')
            + f'<output external_port_id="3" internal_layer_id="{2 if leaf else 3}"/></then_port_map><else_port_map>'
            '<input external_port_id="1" internal_layer_id="0"/><output external_port_id="3" internal_layer_id="2"/>'
            f'</else_port_map><input><port id="0" precision="BOOL"/>{port.format(1)}<port id="2" precision="BOOL"/>'
            f"</input><output>{port.format(3)}</output><then_body>{body}</then_body><else_body>"
            f'{unary("Negative", k + 1)}</else_body></layer><layer id="3" name="r{k}" type="Result" version="opset1">'
            f'<input>{port.format(0)}</input></layer></layers><edges><edge from-layer="1" from-port="0" to-layer="2" '
            'to-port="0"/><edge from-layer="0" from-port="0" to-layer="2" to-port="1"/><edge from-layer="1" '
            'from-port="0" to-layer="2" to-port="2"/><edge from-layer="2" from-port="3" to-layer="3" to-port="0"/></edges>'
        )
    return f'<?xml version="1.0"?>\n<net name="deep" version="11">{body}</net>\n'


@pytest.mark.slow
def test_depth_200_nested_if_ir_converts_without_recursion_error(tmp_path):
    """The core extracts, infers and folds 200 levels of bodies; OpenVINO reads the result."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "deep.xml").write_text(deep_if_ir(200))
    (folder / "deep.bin").write_bytes(b"")
    outcome = convert(folder / "deep.xml", tmp_path, seconds=180, openvino=False)
    assert outcome.outcome == "accepted", outcome
    import openvino as ov

    ov.Core().read_model(str(tmp_path / "out" / "model.xml"))  # compiling 200 levels takes the runtime minutes


def test_if_nested_past_the_recursion_limit_is_one_clear_error(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "deep.xml").write_text(deep_if_ir(300))
    (folder / "deep.bin").write_bytes(b"")
    outcome = convert(folder / "deep.xml", tmp_path, seconds=180, openvino=False)
    # Python's recursion limit decides: 1000 by default, 3000 once TensorFlow was imported
    # (it raises the limit), and then 300 levels convert.
    assert outcome.outcome in ("accepted", "clean-error"), outcome
    if outcome.outcome == "clean-error":
        assert "nests sub-graphs" in outcome.message, outcome


def test_if_nested_400_deep_in_an_ir_is_one_clear_error(tmp_path):
    """The IR reader builds bodies recursively: past the recursion limit it names the nesting."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "deep.xml").write_text(deep_if_ir(400))
    (folder / "deep.bin").write_bytes(b"")
    outcome = convert(folder / "deep.xml", tmp_path, seconds=180, openvino=False)
    assert outcome.outcome in ("accepted", "clean-error"), outcome
    if outcome.outcome == "clean-error":
        assert "nest" in outcome.message and "RecursionError" not in outcome.message, outcome


@pytest.mark.slow
def test_a_100k_node_chain_converts(tmp_path):
    n = 100_000
    nodes = [helper.make_node("Relu", [f"t{i}" if i else "x"], [f"t{i + 1}" if i + 1 < n else "y"]) for i in range(n)]
    model = save(
        tmp_path, "chain", nodes,
        [helper.make_tensor_value_info("x", F32, ["N", 4])], [helper.make_tensor_value_info("y", F32, ["N", 4])],
    )  # fmt: skip
    outcome = convert(model, tmp_path, seconds=300, openvino=False)
    assert outcome.outcome == "accepted", outcome
    import openvino as ov

    assert len(ov.Core().read_model(str(tmp_path / "out" / "model.xml")).get_ops()) == n + 2


# ------------------------------------------------------------------------------ names
def test_a_10_mb_node_name_converts_and_openvino_reads_it(tmp_path):
    model = save(
        tmp_path, "longname",
        [helper.make_node("Relu", ["x"], ["y"], name="n" * (10 << 20))],
        [helper.make_tensor_value_info("x", F32, [2])], [helper.make_tensor_value_info("y", F32, [2])],
    )  # fmt: skip
    assert convert(model, tmp_path).outcome == "accepted"


def test_names_with_markup_newlines_commas_and_non_ascii_round_trip(tmp_path):
    import onnxruntime as ort

    x_name, y_name = "in<&\"'>\n名前 ü,x", "out<&\"'>\r\n出力\t;y"
    model = save(
        tmp_path, "names",
        [helper.make_node("Relu", [x_name], ["mid"], name="relu<&\"'>\nü"),
         helper.make_node("Neg", ["mid"], [y_name], name="neg,名")],
        [helper.make_tensor_value_info(x_name, F32, [3])], [helper.make_tensor_value_info(y_name, F32, [3])],
    )  # fmt: skip
    assert convert(model, tmp_path).outcome == "accepted"
    compiled = compile_for_comparison(tmp_path / "out" / "model.xml")
    assert compiled.inputs[0].get_names() == {x_name}
    assert compiled.outputs[0].get_names() == {y_name}
    x = np.array([1.0, -2.0, 3.0], np.float32)
    (expected,) = ort.InferenceSession(str(model)).run(None, {x_name: x})
    np.testing.assert_allclose(compiled({x_name: x})[y_name], expected)


# --------------------------------------------------------------- findings of the probes
def test_nested_if_reading_outer_scope_matches_onnxruntime(tmp_path):
    import onnxruntime as ort

    source = Path(__file__).parent / "findings" / "onnx_nested_if_outer_scope.onnx"
    assert convert(source, tmp_path).outcome == "accepted"
    compiled = compile_for_comparison(tmp_path / "out" / "model.xml")
    session = ort.InferenceSession(str(source))
    x = np.array([1.0, -2.0], np.float32)
    for cond in (True, False):
        feeds = {"x": x, "cond": np.array(cond)}
        np.testing.assert_allclose(list(compiled(feeds).values())[0], session.run(None, feeds)[0])


def test_output_equal_to_the_input_is_refused(tmp_path):
    xml = write_ir(tmp_path, "", "m")
    before = xml.read_bytes()
    outcome = convert_case(xml, xml, [], Limits(check_openvino=False))
    assert outcome.outcome == "clean-error" and "refusing to overwrite the input" in outcome.message, outcome
    assert xml.read_bytes() == before
    assert sorted(os.listdir(xml.parent)) == ["model.bin", "model.xml"]


def test_two_conversions_to_one_output_leave_a_consistent_pair(tmp_path):
    """Two `irconv convert` runs racing to the same -o: the .xml and .bin come from one of them."""
    import subprocess
    import sys

    import openvino as ov

    models = []
    for size in (3, 5000):
        w = numpy_helper.from_array(np.arange(size, dtype=np.float32), "w")
        models.append(
            save(
                tmp_path / f"m{size}",
                "race",
                [helper.make_node("Add", ["x", "w"], ["y"])],
                [helper.make_tensor_value_info("x", F32, [size])],
                [helper.make_tensor_value_info("y", F32, [size])],
                [w],
            )  # fmt: skip
        )
    out = tmp_path / "out" / "race.xml"
    for _ in range(3):
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "irconv", "convert", str(m), "-o", str(out), "--no-compress-to-fp16"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )  # fmt: skip
            for m in models
        ]
        for p in procs:
            assert p.wait(timeout=300) == 0, p.stderr.read() if p.stderr else ""
        model = ov.Core().read_model(str(out))
        size = model.inputs[0].get_partial_shape()[0].get_length()
        assert out.with_suffix(".bin").stat().st_size == 4 * size  # the weights of the same run
        assert sorted(p.name for p in out.parent.iterdir()) == ["race.bin", "race.xml"]
