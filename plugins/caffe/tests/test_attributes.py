"""The SourceAttributes adapter over a LayerParameter: what extractors read through ctx.attr."""

from __future__ import annotations

from google.protobuf import text_format
from irconv import SourceAttributes
from irconv_caffe.attributes import CaffeAttributes, ParamBlock
from irconv_caffe.proto import caffe_pb2 as pb


def layer(text: str) -> pb.LayerParameter:
    return text_format.Parse(text, pb.LayerParameter())


def test_fields_decode_to_plain_values_with_caffe_defaults() -> None:
    attrs = CaffeAttributes(
        layer('name: "p" type: "Pooling" bottom: "x" top: "p" pooling_param { pool: AVE kernel_h: 3 kernel_w: 2 }')
    )
    assert isinstance(attrs, SourceAttributes)
    assert attrs.get("pooling_param.pool") == "AVE"  # enums by name
    assert attrs.get("pooling_param.kernel_h") == 3
    assert attrs.get("pooling_param.stride") == 1  # the schema's default
    assert attrs.get("pooling_param.ceil_mode") is True
    assert attrs.get("top") == ["p"]
    block = attrs.get("pooling_param")
    assert isinstance(block, ParamBlock)
    assert block.is_set("kernel_h") and not block.is_set("kernel_size")
    assert attrs.is_set("pooling_param.kernel_w") and not attrs.is_set("pooling_param.pad")


def test_presence_and_unknown_names() -> None:
    attrs = CaffeAttributes(layer('name: "c" type: "Convolution" convolution_param { num_output: 4 kernel_size: 3 }'))
    assert "convolution_param.num_output" in attrs
    assert "convolution_param.nonsense" not in attrs
    assert attrs.get("convolution_param.nonsense", 7) == 7
    assert attrs.get("convolution_param.kernel_size") == [3]  # repeated fields are lists
    assert attrs.is_set("convolution_param") and not attrs.is_set("relu6_param")
    assert "relu6_param" in attrs  # readable (with defaults) even when not given
    assert list(attrs.names()) == ["name", "type", "convolution_param"]


def test_nested_messages_and_repeated_messages() -> None:
    attrs = CaffeAttributes(
        layer('name: "d" type: "DummyData" dummy_data_param { shape { dim: 1 dim: 2 } data_filler { value: 0.5 } }')
    )
    (shape,) = attrs.get("dummy_data_param.shape")
    assert shape.dim == [1, 2]
    (filler,) = attrs.get("dummy_data_param.data_filler")
    assert filler.type == "constant" and filler.value == 0.5


def test_custom_blocks_from_the_text_reader() -> None:
    extra = {"upscale_param": {"factor": "3", "sizes": ["1", "2"]}}
    attrs = CaffeAttributes(layer('name: "u" type: "Upscale"'), extra)
    assert attrs.get("upscale_param.factor") == "3"
    assert attrs.get("upscale_param") == extra["upscale_param"]
    assert attrs.is_set("upscale_param") and attrs.is_set("upscale_param.sizes")
    assert "upscale_param.missing" not in attrs
    assert "upscale_param" in list(attrs.names())
