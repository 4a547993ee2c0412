"""The mapping-file route for custom Caffe layers (in the spirit of CustomLayersMapping.xml).

``--caffe-custom-layers mapping.xml`` (or ``--option caffe.custom_layers=mapping.xml``) names
a file such as::

    <CustomLayersMapping>
      <CustomLayer NativeType="Upscale" protoParamName="upscale_param"
                   type="Upscale" opset="my_extension" outputs="1" shape="same"/>
    </CustomLayersMapping>

Each layer of type ``NativeType`` becomes an op ``type`` (default: the native type) of
the custom opset ``opset`` (default ``custom``) whose IR attributes are the layer's
``protoParamName`` block flattened (nested fields as ``a.b``, repeated values joined by
commas). The OpenVINO runtime then needs an extension providing that op. ``shape="same"``
says the output has the first input's shape; otherwise it is left dynamic.
A Caffe layer type can also be handled by any plugin's ``extractor("caffe", "<type>", ...)``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message
from irconv.errors import ModelFileError
from irconv.ops import Op, attr
from irconv.types import ElementType

if TYPE_CHECKING:
    from irconv.graph import Node


@dataclass(frozen=True)
class CustomLayerSpec:
    native_type: str
    op_type: str
    opset: str
    param: str
    outputs: int | None
    same_shape: bool


def read_mapping(path: Path) -> dict[str, CustomLayerSpec]:
    """Mapped layer types from the XML file at ``path``."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise ModelFileError(f"cannot read the custom layer mapping {path}: {exc}") from None
    specs: dict[str, CustomLayerSpec] = {}
    for element in root.iter("CustomLayer"):
        native = element.get("NativeType", "").strip()
        if not native:
            raise ModelFileError(f"{path}: a <CustomLayer> has no NativeType attribute")
        outputs = element.get("outputs")
        specs[native] = CustomLayerSpec(
            native_type=native,
            op_type=element.get("type", native),
            opset=element.get("opset", "custom"),
            param=element.get("protoParamName", ""),
            outputs=int(outputs) if outputs else None,
            same_shape=element.get("shape", "") == "same",
        )
    if not specs:
        raise ModelFileError(f"{path}: no <CustomLayer NativeType=...> entries")
    return specs


def flatten_params(value: Any, prefix: str = "") -> dict[str, str]:
    """A parameter block as IR attributes: ``a.b`` for nesting, commas for repeats."""
    if isinstance(value, Message):
        from google.protobuf.json_format import MessageToDict

        value = MessageToDict(value, preserving_proto_field_name=True)
    if isinstance(value, Mapping):
        flat: dict[str, str] = {}
        for key, item in value.items():
            flat.update(flatten_params(item, f"{prefix}{key}."))
        return flat
    key = prefix[:-1]
    if isinstance(value, Sequence) and not isinstance(value, str):
        return {key: ",".join(_text(v) for v in value)}
    return {key: _text(value)}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(eq=False)
class CustomLayerOp(Op):
    """An op of a custom opset, carrying a custom layer's parameters as its attributes."""

    version = 1  # an op the emitter writes as it is (its opset comes from ``opset_name``)

    op_type: str = attr("", emit=False)
    opset_name: str = attr("custom", emit=False)
    attributes: dict[str, str] = attr(factory=dict, emit=False)
    n_outputs: int = attr(1, emit=False)
    same_shape: bool = attr(False, emit=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", self.op_type)

    @property
    def opset(self) -> str:
        return self.opset_name

    def num_outputs(self) -> int:
        return self.n_outputs

    def ir_attributes(self) -> dict[str, str]:
        return dict(self.attributes)

    def infer(self, node: Node) -> None:
        first = node.in_port(0).data if node.num_inputs() else None
        for port in node.out_ports():
            port.data.set_shape(first.get_shape() if first is not None and self.same_shape else None)
            port.data.set_type(first.get_type() if first is not None else ElementType.f32)
