"""Caffe: a layer type caffe.proto does not know, through the example plugin or the mapping file.

The reference is NumPy from the op's definition (no Caffe runtime reads a fork's layer).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("irconv_caffe")

from irconv_caffe.testing import write_random_caffemodel  # noqa: E402

SHAPE = (1, 2, 3, 4)

NET = """
name: "custom"
input: "data"
input_shape { dim: 1 dim: 2 dim: 3 dim: 4 }
layer { name: "swish" type: "ExampleSwish" bottom: "data" top: "swish" PARAMS }
layer { name: "sum" type: "Eltwise" bottom: "swish" bottom: "data" top: "sum" eltwise_param { operation: SUM } }
"""


def write_net(tmp_path: Path, params: str = "example_swish_param { beta: 1.5 }") -> tuple[Path, Path]:
    proto = tmp_path / "custom.prototxt"
    proto.write_text(NET.replace("PARAMS", params))
    weights = tmp_path / "custom.caffemodel"
    write_random_caffemodel(proto, weights)
    return proto, weights


@pytest.fixture
def x() -> np.ndarray:
    return np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32) * 3


def test_plugin_declared_parameter_message(tmp_path, kit, x):
    proto, weights = write_net(tmp_path)
    xml = kit.convert_and_save(proto, tmp_path / "ir" / "model.xml", weights=weights)
    assert ("ExampleSwish", "irconv_example") in kit.ir_layers(xml)
    (got,) = kit.run_openvino(xml, {"data": x}, extension=True).values()
    np.testing.assert_allclose(got, kit.swish(x, 1.5) + x, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match=kit.UNSUPPORTED_OPSET):
        kit.run_openvino(xml, {"data": x}, extension=False)


def test_declared_defaults_apply_when_the_block_is_absent(tmp_path, kit, x):
    proto, weights = write_net(tmp_path, params="")
    xml = kit.convert_and_save(proto, tmp_path / "ir" / "model.xml", weights=weights)
    assert 'beta="1"' in xml.read_text()
    (got,) = kit.run_openvino(xml, {"data": x}, extension=True).values()
    np.testing.assert_allclose(got, kit.swish(x, 1.0) + x, rtol=1e-5, atol=1e-6)


def test_a_misspelt_parameter_is_named(tmp_path):
    import irconv
    from irconv.errors import ConversionError

    proto, weights = write_net(tmp_path, params="example_swish_param { btea: 1.5 }")
    with pytest.raises(ConversionError, match=r"node 'swish' \(caffe ExampleSwish\): bad example_swish_param.*btea"):
        irconv.convert_model(proto, weights=weights)


def test_lowered_runs_on_stock_openvino(tmp_path, kit, x):
    proto, weights = write_net(tmp_path)
    xml = kit.convert_and_save(proto, tmp_path / "ir" / "model.xml", weights=weights, example_lower_swish=True)
    assert all(version.startswith("opset") for _, version in kit.ir_layers(xml))
    (got,) = kit.run_openvino(xml, {"data": x}, extension=False).values()
    np.testing.assert_allclose(got, kit.swish(x, 1.5) + x, rtol=1e-5, atol=1e-6)


def test_mapping_file_route_gives_the_same_layer(tmp_path, kit, x):
    """The Caffe front end's own route: no extractor, the mapping names the custom op and its
    parameters; the example plugin's runtime extension runs the result."""
    proto, weights = write_net(tmp_path)
    mapping = tmp_path / "mapping.xml"
    mapping.write_text(
        '<CustomLayersMapping><CustomLayer NativeType="ExampleSwish" type="ExampleSwish" opset="irconv_example" '
        'protoParamName="example_swish_param" shape="same"/></CustomLayersMapping>'
    )
    xml = kit.convert_and_save(proto, tmp_path / "ir" / "model.xml", weights=weights, caffe_custom_layers=mapping)
    assert ("ExampleSwish", "irconv_example") in kit.ir_layers(xml)
    (got,) = kit.run_openvino(xml, {"data": x}, extension=True).values()
    np.testing.assert_allclose(got, kit.swish(x, 1.5) + x, rtol=1e-5, atol=1e-6)


def test_python_layer_route(tmp_path, kit, x):
    params = 'python_param { module: "example_layers" layer: "ExampleSwishLayer" param_str: "\'beta\': 1.5" }'
    proto = tmp_path / "custom.prototxt"
    proto.write_text(NET.replace('type: "ExampleSwish"', 'type: "Python"').replace("PARAMS", params))
    weights = tmp_path / "custom.caffemodel"
    write_random_caffemodel(proto, weights)
    xml = kit.convert_and_save(proto, tmp_path / "ir" / "model.xml", weights=weights)
    (got,) = kit.run_openvino(xml, {"data": x}, extension=True).values()
    np.testing.assert_allclose(got, kit.swish(x, 1.5) + x, rtol=1e-5, atol=1e-6)
