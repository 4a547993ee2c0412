"""The parts of a control-flow layer that hold bodies: port maps, back edges, bodies.

OpenVINO's IR reader expects (checked against ``openvino.save_model`` output):
``<port_map>`` with ``<input external_port_id internal_layer_id [axis start end stride
part_size]>`` and ``<output ...>`` items, where an input's external id is its input index
and an output's is its port id (inputs counted first); Loop's special body ports are
items with ``external_port_id="-1"`` and ``purpose="current_iteration"`` /
``"execution_condition"``; ``<back_edges>`` hold ``<edge from-layer to-layer>`` between
body layer ids; If has ``then_port_map``/``else_port_map`` and ``then_body``/``else_body``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from irconv.errors import ConversionError
from irconv.graph import Graph
from irconv.ops import Op
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, If, Loop, SliceSpec, TensorIterator

from irconv_ir.xml_out import XmlStream


@dataclass
class BodyLayout:
    """One body of a control-flow op and how it connects to the outer layer."""

    tag: str
    port_map_tag: str
    graph: Graph
    inputs: Sequence[BodyInput]
    outputs: Sequence[BodyOutput]
    back_edges: Sequence[BackEdge] = ()
    current_iteration: int = -1
    condition_output: int = -1


def body_layouts(op: Op) -> list[BodyLayout]:
    """The bodies of a control-flow op (empty for every other op)."""
    if isinstance(op, If):
        return [
            BodyLayout("then_body", "then_port_map", op.then_body, op.then_inputs, op.then_outputs),
            BodyLayout("else_body", "else_port_map", op.else_body, op.else_inputs, op.else_outputs),
        ]
    if isinstance(op, Loop):
        return [
            BodyLayout(
                "body",
                "port_map",
                op.body,
                op.input_map,
                op.output_map,
                op.back_edges,
                op.current_iteration,
                op.condition_output,
            )
        ]
    if isinstance(op, TensorIterator):
        return [BodyLayout("body", "port_map", op.body, op.input_map, op.output_map, op.back_edges)]
    return []


def write_port_map(
    xml: XmlStream, layout: BodyLayout, input_count: int, parameter_ids: list[int], result_ids: list[int]
) -> None:
    """``<port_map>`` (and ``<back_edges>`` when there are any) of one body.

    ``parameter_ids``/``result_ids`` are the body's layer ids of its Parameters/Results by position.
    """

    def parameter_layer(index: int) -> int:
        if not 0 <= index < len(parameter_ids):
            raise ConversionError(f"{layout.tag}: no body parameter number {index} (it has {len(parameter_ids)})")
        return parameter_ids[index]

    def result_layer(index: int) -> int:
        if not 0 <= index < len(result_ids):
            raise ConversionError(f"{layout.tag}: no body result number {index} (it has {len(result_ids)})")
        return result_ids[index]

    xml.open(layout.port_map_tag)
    for item in layout.inputs:
        attributes = _slice_attributes(item.sliced)
        xml.empty(
            "input",
            [
                *attributes[:1],
                ("external_port_id", str(item.external)),
                ("internal_layer_id", str(parameter_layer(item.parameter))),
                *attributes[1:],
            ],
        )
    for out in layout.outputs:
        attributes = _slice_attributes(out.concatenated)
        xml.empty(
            "output",
            [
                *attributes[:1],
                ("external_port_id", str(input_count + out.external)),
                ("internal_layer_id", str(result_layer(out.result))),
                *attributes[1:],
            ],
        )
    if layout.current_iteration >= 0:
        xml.empty(
            "input",
            [
                ("external_port_id", "-1"),
                ("internal_layer_id", str(parameter_layer(layout.current_iteration))),
                ("purpose", "current_iteration"),
            ],
        )
    if layout.condition_output >= 0:
        xml.empty(
            "output",
            [
                ("external_port_id", "-1"),
                ("internal_layer_id", str(result_layer(layout.condition_output))),
                ("purpose", "execution_condition"),
            ],
        )
    xml.close(layout.port_map_tag)
    if layout.back_edges:
        xml.open("back_edges")
        for edge in layout.back_edges:
            xml.empty(
                "edge",
                [("from-layer", str(result_layer(edge.result))), ("to-layer", str(parameter_layer(edge.parameter)))],
            )
        xml.close("back_edges")


def _slice_attributes(spec: SliceSpec | None) -> list[tuple[str, str]]:
    """``axis`` first, then ``start end stride part_size`` (the order OpenVINO writes)."""
    if spec is None:
        return []
    return [
        ("axis", str(spec.axis)),
        ("start", str(spec.start)),
        ("end", str(spec.end)),
        ("stride", str(spec.stride)),
        ("part_size", str(spec.part_size)),
    ]
