"""An IR file as plain records, parsed incrementally from the XML.

The records keep the IR's own words (layer ids, port ids, attribute strings); turning
them into a graph is :mod:`irconv_ir.reader`'s job.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from irconv.errors import ModelFileError, quoted, shortened

from irconv_ir.xml_text import split_names

#: Layer children holding a body graph, for each control-flow type.
BODY_TAGS = ("body", "then_body", "else_body")
PORT_MAP_TAGS = ("port_map", "then_port_map", "else_port_map")


@dataclass
class IrPort:
    id: int
    precision: str
    dims: tuple[int, ...]
    names: list[str] = field(default_factory=list)
    layout: str | None = None  # the port's ``layout`` runtime attribute (a Parameter's)


@dataclass
class IrLayer:
    id: int
    name: str
    type: str
    version: str
    data: dict[str, str]
    inputs: list[IrPort]
    outputs: list[IrPort]
    rt_info: list[str] = field(default_factory=list)  # names of every runtime attribute
    markers: list[tuple[str, str]] = field(default_factory=list)  # (name, version) of attributes with no value
    bodies: dict[str, IrNet] = field(default_factory=dict)
    port_maps: dict[str, list[tuple[str, dict[str, str]]]] = field(default_factory=dict)
    back_edges: list[tuple[int, int]] = field(default_factory=list)

    def where(self) -> str:
        return f"layer {self.id} ({quoted(self.name)}, {self.type})"


@dataclass
class IrEdge:
    from_layer: int
    from_port: int
    to_layer: int
    to_port: int


@dataclass
class IrNet:
    name: str
    version: int
    layers: list[IrLayer] = field(default_factory=list)
    edges: list[IrEdge] = field(default_factory=list)


def parse_ir(path: Path) -> IrNet:
    """Read an IR ``.xml`` layer by layer; each top-level layer's element is freed once read."""
    net: IrNet | None = None
    depth = 0
    layer_depth = -1
    in_edges = False
    try:
        for event, element in ET.iterparse(str(path), events=("start", "end")):
            if event == "start":
                depth += 1
                if depth == 1:
                    if element.tag != "net":
                        raise ModelFileError(
                            f"{path} is not an OpenVINO IR: the root element is <{element.tag}>, not <net>"
                        )
                    net = IrNet(element.get("name", "model"), _ir_version(path, element.get("version")))
                elif depth == 2 and element.tag == "edges":
                    in_edges = True
                elif depth == 3 and element.tag == "layer":
                    layer_depth = depth
                continue
            depth -= 1
            assert net is not None
            if depth + 1 == layer_depth and element.tag == "layer":
                net.layers.append(_layer(element, path))
                element.clear()
                layer_depth = -1
            elif in_edges and depth == 2 and element.tag == "edge":
                net.edges.append(_edge(element, path))
                element.clear()
            elif depth == 1 and element.tag == "edges":
                in_edges = False
    except ET.ParseError as exc:
        raise ModelFileError(f"{path} is not well-formed XML: {exc}") from None
    if net is None:
        raise ModelFileError(f"{path} is empty")
    return net


def _ir_version(path: Path, text: str | None) -> int:
    if text not in ("10", "11"):
        raise ModelFileError(f"{path}: IR version {shortened(repr(text))} is not supported (irconv reads IR v10 and v11)")
    return int(text)


def _net_from_element(element: ET.Element, name: str, version: int, path: Path) -> IrNet:
    net = IrNet(name, version)
    layers = element.find("layers")
    for layer in layers if layers is not None else ():
        net.layers.append(_layer(layer, path))
    edges = element.find("edges")
    for edge in edges if edges is not None else ():
        net.edges.append(_edge(edge, path))
    return net


def _layer(element: ET.Element, path: Path) -> IrLayer:
    try:
        layer_id = int(element.attrib["id"])
        type_name = element.attrib["type"]
    except (KeyError, ValueError):
        raise ModelFileError(f"{path}: a <layer> lacks a valid id or type: {element.attrib}") from None
    data_element = element.find("data")
    layer = IrLayer(
        id=layer_id,
        name=element.get("name", f"layer_{layer_id}"),
        type=type_name,
        version=element.get("version", "opset1"),
        data=dict(data_element.attrib) if data_element is not None else {},
        inputs=_ports(element.find("input"), path),
        outputs=_ports(element.find("output"), path),
    )
    _check_ports(element, layer, path)
    rt_info = element.find("rt_info")
    if rt_info is not None:
        attributes = list(rt_info.iter("attribute"))
        layer.rt_info = [a.get("name", "") for a in attributes]
        layer.markers = [
            (a.attrib["name"], a.attrib["version"]) for a in attributes if set(a.attrib) == {"name", "version"}
        ]
    for tag in PORT_MAP_TAGS:
        port_map = element.find(tag)
        if port_map is not None:
            layer.port_maps[tag] = [(item.tag, dict(item.attrib)) for item in port_map]
    back_edges = element.find("back_edges")
    if back_edges is not None:
        layer.back_edges = [(int(e.attrib["from-layer"]), int(e.attrib["to-layer"])) for e in back_edges]
    for tag in BODY_TAGS:
        body = element.find(tag)
        if body is not None:
            layer.bodies[tag] = _net_from_element(body, f"{layer.name}/{tag}", 11, path)
    return layer


def _check_ports(element: ET.Element, layer: IrLayer, path: Path) -> None:
    """One <input> and one <output> list, and port ids unique across both: the runtime reads
    a repeated port as one more input or output, which the operation then refuses."""
    for tag in ("input", "output"):
        if len(element.findall(tag)) > 1:
            raise ModelFileError(f"{path}: {layer.where()} has more than one <{tag}> element")
    seen: set[int] = set()
    for port in (*layer.inputs, *layer.outputs):
        if port.id in seen:
            raise ModelFileError(f"{path}: {layer.where()} declares port id {port.id} twice")
        seen.add(port.id)


def _ports(element: ET.Element | None, path: Path) -> list[IrPort]:
    if element is None:
        return []
    ports = []
    for port in element.findall("port"):
        names = port.get("names")
        ports.append(
            IrPort(
                id=int(port.attrib["id"]),
                precision=port.get("precision", ""),
                dims=tuple(int((d.text or "-1").strip()) for d in port.findall("dim")),
                names=split_names(names) if names else [],
                layout=_layout(port),
            )
        )
    return ports


def _layout(port: ET.Element) -> str | None:
    rt_info = port.find("rt_info")
    if rt_info is None:
        return None
    for attribute in rt_info.findall("attribute"):
        if attribute.get("name") == "layout":
            return attribute.get("layout")
    return None


def _edge(element: ET.Element, path: Path) -> IrEdge:
    try:
        return IrEdge(
            int(element.attrib["from-layer"]),
            int(element.attrib["from-port"]),
            int(element.attrib["to-layer"]),
            int(element.attrib["to-port"]),
        )
    except (KeyError, ValueError):
        raise ModelFileError(f"{path}: bad <edge> {element.attrib}") from None
