"""TensorFlow: a GraphDef node whose op type TensorFlow does not define (a custom kernel's op).

The GraphDef is written with TensorFlow's own protobuf messages; the node carries an
attribute of every AttrValue kind. The reference is NumPy, from the op's definition
(TensorFlow cannot run the op: it has no kernel for it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")
pytest.importorskip("irconv_tf")

BETA = 1.25
SHAPE = (2, 6)


def _attr_of_every_kind() -> dict[str, Any]:
    """name -> AttrValue, one per kind (scalar kinds, list kinds, func, placeholder)."""
    from tensorflow.core.framework import attr_value_pb2 as av
    from tensorflow.core.framework import tensor_shape_pb2, types_pb2

    def shape(*dims: int) -> Any:
        return tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])

    lst = av.AttrValue.ListValue
    return {
        "T": av.AttrValue(type=types_pb2.DT_FLOAT),
        "beta": av.AttrValue(f=BETA),
        "mode": av.AttrValue(s=b"fast"),
        "groups": av.AttrValue(i=3),
        "training": av.AttrValue(b=False),
        "hint_shape": av.AttrValue(shape=shape(2, 6)),
        "table": av.AttrValue(tensor=tf.make_tensor_proto(np.array([1, 2, 3], np.int32))),
        "sizes": av.AttrValue(list=lst(i=[1, 2])),
        "weights": av.AttrValue(list=lst(f=[0.5, 0.25])),
        "names": av.AttrValue(list=lst(s=[b"a", b"b"])),
        "flags": av.AttrValue(list=lst(b=[True, False])),
        "types": av.AttrValue(list=lst(type=[types_pb2.DT_FLOAT, types_pb2.DT_INT32])),
        "shapes": av.AttrValue(list=lst(shape=[shape(1), shape(2, 3)])),
        "tensors": av.AttrValue(list=lst(tensor=[tf.make_tensor_proto(np.float32(2.0))])),
        "callback": av.AttrValue(func=av.NameAttrList(name="my_callback")),
        "callbacks": av.AttrValue(list=lst(func=[av.NameAttrList(name="f1"), av.NameAttrList(name="f2")])),
        "placeholder_attr": av.AttrValue(placeholder="outer_attr"),
    }


#: What the front end's attribute adapter must give for each (TF DataType enum values as ints).
EXPECTED = {
    "T": 1,
    "beta": BETA,
    "mode": "fast",
    "groups": 3,
    "training": False,
    "hint_shape": (2, 6),
    "sizes": [1, 2],
    "weights": [0.5, 0.25],
    "names": ["a", "b"],
    "flags": [True, False],
    "types": [1, 3],
    "shapes": [(1,), (2, 3)],
    "callback": "my_callback",
    "callbacks": ["f1", "f2"],
    "placeholder_attr": "outer_attr",
}


def write_graph_def(path: Path) -> Path:
    """x -> Relu -> ExampleSwish -> y (Identity)."""
    from tensorflow.core.framework import attr_value_pb2 as av
    from tensorflow.core.framework import graph_pb2, tensor_shape_pb2, types_pb2

    graph = graph_pb2.GraphDef()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].CopyFrom(av.AttrValue(type=types_pb2.DT_FLOAT))
    dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in SHAPE]
    x.attr["shape"].CopyFrom(av.AttrValue(shape=tensor_shape_pb2.TensorShapeProto(dim=dims)))
    relu = graph.node.add(name="relu", op="Relu", input=["x"])
    relu.attr["T"].CopyFrom(av.AttrValue(type=types_pb2.DT_FLOAT))
    custom = graph.node.add(name="block/swish", op="ExampleSwish", input=["relu"])
    for name, value in _attr_of_every_kind().items():
        custom.attr[name].CopyFrom(value)
    out = graph.node.add(name="y", op="Identity", input=["block/swish"])
    out.attr["T"].CopyFrom(av.AttrValue(type=types_pb2.DT_FLOAT))
    path.write_bytes(graph.SerializeToString())
    return path


@pytest.fixture
def model(tmp_path: Path) -> tuple[Path, np.ndarray]:
    x = np.random.default_rng(9).standard_normal(SHAPE).astype(np.float32) * 3
    return write_graph_def(tmp_path / "custom.pb"), x


def test_tensorflow_does_not_define_the_op(model):
    from tensorflow.core.framework import graph_pb2

    graph_def = graph_pb2.GraphDef.FromString(model[0].read_bytes())
    assert not hasattr(tf.raw_ops, "ExampleSwish")
    with tf.Graph().as_default(), pytest.raises(Exception, match="ExampleSwish"):
        tf.graph_util.import_graph_def(graph_def, name="")


def test_custom_op_runs_with_the_extension(model, kit, tmp_path):
    path, x = model
    xml = kit.convert_and_save(path, tmp_path / "ir" / "model.xml")
    assert ("ExampleSwish", "irconv_example") in kit.ir_layers(xml)
    got = kit.run_openvino(xml, {"x": x}, extension=True)
    (output,) = got.values()
    np.testing.assert_allclose(output, kit.swish(np.maximum(x, 0), BETA), rtol=1e-5, atol=1e-6)


def test_without_the_extension_openvino_refuses_and_lowered_runs_on_stock(model, kit, tmp_path):
    path, x = model
    xml = kit.convert_and_save(path, tmp_path / "custom" / "model.xml")
    with pytest.raises(RuntimeError, match=kit.UNSUPPORTED_OPSET):
        kit.run_openvino(xml, {"x": x}, extension=False)
    lowered = kit.convert_and_save(path, tmp_path / "lowered" / "model.xml", example_lower_swish=True)
    assert all(version.startswith("opset") for _, version in kit.ir_layers(lowered))
    (output,) = kit.run_openvino(lowered, {"x": x}, extension=False).values()
    np.testing.assert_allclose(output, kit.swish(np.maximum(x, 0), BETA), rtol=1e-5, atol=1e-6)


def test_every_attribute_kind_reaches_the_extractor(model, tmp_path):
    """A plugin's extractor reads each AttrValue kind as a Python value through ``ctx.attrs``."""
    import irconv
    from irconv import PluginHost, hookimpl
    from irconv.frontend import extractor
    from irconv_example_swish.extractors import extract_tf
    from irconv_example_swish.ops import ExampleSwish

    seen: dict[str, Any] = {}

    def spy(node, ctx):  # type: ignore[no-untyped-def]
        seen.update({name: ctx.attrs.get(name) for name in [*EXPECTED, "table", "tensors"]})
        return extract_tf(node, ctx)

    class Spy:
        @hookimpl
        def extract_op(self):  # type: ignore[no-untyped-def]
            return [extractor("tf", "ExampleSwish", spy, produces=[ExampleSwish])]

        @hookimpl
        def declare_ops(self):  # type: ignore[no-untyped-def]
            return [ExampleSwish]

    host = PluginHost(disabled=["example_swish"])
    host.register(Spy(), "spy")
    irconv.convert_model(model[0], host=host)
    for name, value in EXPECTED.items():
        assert seen[name] == pytest.approx(value) if isinstance(value, float) else seen[name] == value, name
    np.testing.assert_array_equal(seen["table"], [1, 2, 3])
    assert [float(t) for t in seen["tensors"]] == [2.0]


def test_a_name_scope_is_replaced_by_the_custom_op(kit, tmp_path):
    """Sub-graph replacement: the ops of ``tf.name_scope("block")`` computing x * sigmoid(1.5 x)
    become one ExampleSwish (``--example-swish-scope block``); TensorFlow runs the original."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    def fn(x):  # type: ignore[no-untyped-def]
        r = tf.nn.relu(x)
        with tf.name_scope("block"):
            s = r * tf.sigmoid(r * 1.5)
        return tf.identity(s + x, name="y")

    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32) * 3
    concrete = tf.function(fn).get_concrete_function(tf.TensorSpec(SHAPE, tf.float32, name="x"))
    expected = concrete(tf.constant(x)).numpy()
    frozen = convert_variables_to_constants_v2(concrete)
    path = tmp_path / "block.pb"
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    assert any(n.name.startswith("block/") for n in frozen.graph.as_graph_def().node)

    xml = kit.convert_and_save(path, tmp_path / "ir" / "model.xml", example_swish_scope=("block",))
    layers = kit.ir_layers(xml)
    assert ("ExampleSwish", "irconv_example") in layers and ("Sigmoid", "opset1") not in layers
    (output,) = kit.run_openvino(xml, {"x": x}, extension=True).values()
    np.testing.assert_allclose(output, expected, rtol=1e-5, atol=1e-5)


def test_the_custom_op_sits_between_nhwc_convolutions_without_transposes(kit, tmp_path):
    """ExampleSwish declares LAYOUT_AGNOSTIC: the NHWC -> NCHW layout pass moves transposes
    across it, so the block between two convolutions keeps no Transpose of its own."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    rng = np.random.default_rng(12)
    w1 = tf.constant(rng.standard_normal((3, 3, 3, 8)).astype(np.float32) * 0.3)
    w2 = tf.constant(rng.standard_normal((3, 3, 8, 4)).astype(np.float32) * 0.3)

    def fn(x):  # type: ignore[no-untyped-def]
        h = tf.nn.conv2d(x, w1, 1, "SAME")
        with tf.name_scope("block"):
            h = h * tf.sigmoid(h * 0.8)
        return tf.identity(tf.nn.conv2d(h, w2, 1, "SAME"), name="y")

    x = rng.standard_normal((1, 10, 12, 3)).astype(np.float32)
    concrete = tf.function(fn).get_concrete_function(tf.TensorSpec(x.shape, tf.float32, name="x"))
    expected = concrete(tf.constant(x)).numpy()
    path = tmp_path / "convs.pb"
    path.write_bytes(convert_variables_to_constants_v2(concrete).graph.as_graph_def().SerializeToString())

    xml = kit.convert_and_save(path, tmp_path / "ir" / "model.xml", example_swish_scope=("block",))
    types = [t for t, _ in kit.ir_layers(xml)]
    compute = [t for t in types if t != "Const"]
    i = compute.index("ExampleSwish")
    assert compute[i - 1 : i + 2] == ["Convolution", "ExampleSwish", "Convolution"]
    assert compute.count("Transpose") <= 2  # at most one at the input and one at the output
    (output,) = kit.run_openvino(xml, {"x": x}, extension=True).values()
    np.testing.assert_allclose(output, expected, rtol=1e-4, atol=1e-4)
