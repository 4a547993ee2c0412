"""Custom Caffe layers: a third-party extractor, and the mapping-file route."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from irconv.api import convert_model, save_model
from irconv.frontend import extractor, f32
from irconv.plugins import Extractor, hookimpl
from irconv_caffe.testing import write_random_caffemodel
from irconv_opset import Multiply

NET = """
name: "custom"
input: "data"
input_shape { dim: 1 dim: 2 dim: 3 dim: 4 }
layer {
  name: "up"
  type: "Upscale"
  bottom: "data"
  top: "up"
  upscale_param { factor: 3 mode: "fast" sizes: 1 sizes: 2 inner { depth: 4 } }
}
"""


@pytest.fixture
def model(tmp_path: Path) -> tuple[Path, Path]:
    proto = tmp_path / "custom.prototxt"
    proto.write_text(NET)
    weights = tmp_path / "custom.caffemodel"
    write_random_caffemodel(proto, weights)
    return proto, weights


class UpscalePlugin:
    """A third-party plugin handling the Caffe layer type ``Upscale`` (x * factor)."""

    @hookimpl
    def extract_op(self) -> list[Extractor]:
        def extract(node, ctx):  # type: ignore[no-untyped-def]
            factor = ctx.attrs.float("upscale_param.factor")
            return [ctx.op(Multiply(), ctx.input(0), f32(ctx, factor))]

        return [extractor("caffe", "Upscale", extract, produces=[Multiply])]


def test_third_party_extractor_handles_a_custom_layer(model, plugin_host, register_plugin, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import irconv_caffe.plugin
    import irconv_ir.plugin
    import irconv_opset.plugin
    from irconv.testing.runtime import run_ir

    for module, name in ((irconv_caffe.plugin, "caffe"), (irconv_opset.plugin, "opset"), (irconv_ir.plugin, "ir")):
        register_plugin(module, name=name)
    register_plugin(UpscalePlugin(), name="upscale")
    proto, weights = model
    graph = convert_model(proto, host=plugin_host, weights=weights)
    xml = tmp_path / "out.xml"
    save_model(graph, xml, host=plugin_host, compress_to_fp16=False)
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(run_ir(xml, {"data": x})["up"], x * 3, rtol=1e-6)


def test_unmapped_custom_layer_is_reported_as_unsupported(model, installed_host) -> None:  # type: ignore[no-untyped-def]
    from irconv.errors import UnsupportedOpsError

    proto, weights = model
    with pytest.raises(UnsupportedOpsError, match="Upscale"):
        convert_model(proto, host=installed_host, weights=weights)


def test_mapping_file_passes_parameters_as_attributes(model, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proto, weights = model
    mapping = tmp_path / "mapping.xml"
    mapping.write_text(
        "<CustomLayersMapping>\n"
        '  <CustomLayer NativeType="Upscale" protoParamName="upscale_param" type="MyUpscale"'
        ' opset="my_extension" shape="same"/>\n'
        "</CustomLayersMapping>\n"
    )
    graph = convert_model(proto, host=installed_host, weights=weights, caffe_custom_layers=mapping)
    xml = tmp_path / "out.xml"
    save_model(graph, xml, host=installed_host)
    layer = next(e for e in ET.parse(xml).getroot().iter("layer") if e.get("type") == "MyUpscale")
    assert layer.get("version") == "my_extension"
    data = layer.find("data")
    assert data is not None
    assert data.attrib == {"factor": "3", "mode": "fast", "sizes": "1,2", "inner.depth": "4"}
    dims = [int(d.text or 0) for d in layer.find("output").iter("dim")]  # type: ignore[union-attr]
    assert dims == [1, 2, 3, 4]


def test_a_misspelt_field_inside_a_known_block_is_still_an_error(tmp_path: Path) -> None:
    from irconv.errors import ModelFileError
    from irconv_caffe.prototxt import read_prototxt_with_extras

    proto = tmp_path / "bad.prototxt"
    proto.write_text(NET + 'layer { name: "r" type: "ReLU" bottom: "up" top: "up" relu_param { negativ_slope: 1 } }\n')
    line = len(NET.splitlines()) + 1
    with pytest.raises(ModelFileError, match=rf"bad.prototxt:{line}:\d+: .*negativ_slope"):
        read_prototxt_with_extras(proto)


def test_bad_mapping_file_is_a_clear_error(model, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from irconv.errors import ModelFileError

    proto, weights = model
    mapping = tmp_path / "mapping.xml"
    mapping.write_text("<CustomLayersMapping><CustomLayer type='x'/>")
    with pytest.raises(ModelFileError, match="mapping.xml"):
        convert_model(proto, host=installed_host, weights=weights, caffe_custom_layers=mapping)
