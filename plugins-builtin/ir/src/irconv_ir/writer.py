"""The IR v11 emitter: ``.xml`` topology and ``.bin`` constants, both streamed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from irconv import EmitContext
from irconv.errors import ConversionError, quoted
from irconv.graph import Graph, Node, OutPort
from irconv.ops import Const, DeferredProduct, Parameter, Result
from irconv.types import ElementType, MaybeShape

from irconv_ir.blobs import BlobWriter, Encoding
from irconv_ir.bodies import body_layouts, write_port_map
from irconv_ir.fp16 import (
    BEYOND_F16,
    F16,
    CompressionStats,
    any_clamped,
    f16_loss,
    rounded_constants,
    shape_constants,
    should_compress,
)
from irconv_ir.meta import RT_MARKERS
from irconv_ir.names import boundary_names
from irconv_ir.order import layer_order
from irconv_ir.xml_out import XmlStream, attrs
from irconv_ir.xml_text import dims, join_names, shape_text

IR_VERSION = "11"


def write_ir(graph: Graph, xml_path: Path, ctx: EmitContext) -> list[Path]:
    """Write ``graph`` as ``<stem>.xml`` + ``<stem>.bin``; returns both paths.

    A path without the ``.xml`` suffix gets it appended (``-o out/model`` writes
    ``out/model.xml`` and ``out/model.bin``), as OpenVINO's converter does.
    """
    xml_path = Path(xml_path)
    if xml_path.suffix.lower() != ".xml":
        xml_path = xml_path.with_name(xml_path.name + ".xml")
    bin_path = xml_path.with_suffix(".bin")
    check_opset_ops(graph)
    check_model_inputs(graph)
    stats = CompressionStats()
    xml = XmlStream(ctx.open(xml_path, "wb"))  # opened first: the files are listed (and verified) in this order
    with BlobWriter(ctx.open(bin_path, "wb"), threads=ctx.options.worker_threads()) as blobs:
        writer = GraphWriter(
            xml,
            blobs,
            compress=ctx.options.compress_to_fp16,
            stats=stats,
            on_bytes=ctx.progress.advance,
        )
        writer.xml.line('<?xml version="1.0"?>')
        writer.xml.open("net", [("name", graph.name), ("version", IR_VERSION)])
        writer.write_graph(graph, plan_graph(graph, writer.compress, name_boundary=True))
        writer.xml.close("net")
        writer.xml.flush()
    message = stats.message()
    if message:
        ctx.note(message)
    return [xml_path, bin_path]


def check_opset_ops(graph: Graph) -> None:
    """Every node (bodies included) must run an opset op, and read outputs that op has; the
    first that does not is named. The runtime rules (``Op.check``) are left to the main graph:
    a body's inference can know less of its shapes than the runtime does when it compiles the
    taken branch (ONNX AffineGrid's expanded function squeezes dims known only there)."""
    for node in graph.nodes():
        if not node.op.is_opset_op:
            raise ConversionError(
                f"node {quoted(node.name)} is a {node.op.describe()} op, which is not an opset op: "
                "the IR cannot hold it (no transform lowered it before emit)"
            )
        _check_outputs_exist(node)
        _check_input_count(node)
        _check_sources_have_no_inputs(node)
        _check_result_has_one_input(node)
        for layout in body_layouts(node.op):
            check_opset_ops(layout.graph)


def check_model_inputs(graph: Graph) -> None:
    """Model inputs of unknown rank or element type: OpenVINO reads such an IR, but its CPU
    plugin refuses to compile it, so a user would learn it only at deployment. The user can
    give the missing facts with ``--input``."""
    for node in graph.parameters():
        op = node.op  # the declared facts, which the IR's Parameter layer carries
        assert isinstance(op, Parameter)
        if op.shape is None:
            raise ConversionError(
                f"model input {quoted(node.name)} has an unknown rank (the model gives no shape), which OpenVINO's "
                f"CPU plugin cannot compile; give its shape with --input '{node.name}[d0,d1,...]' (? for a dynamic dim)"
            )
        if op.element_type is ElementType.dynamic:
            raise ConversionError(
                f"model input {quoted(node.name)} has no element type, which OpenVINO's CPU plugin cannot compile; "
                f"give it with --input '{node.name}{{f32}}'"
            )


def _check_input_count(node: Node) -> None:
    """A node given fewer or more inputs than its op version's specification allows (an input
    a broken model leaves out, an op swapped for another) makes the runtime index past the
    node's inputs when it reads the IR. Parameter, Const and Result have rules of their own."""
    arity = node.op.arity
    if arity is None or isinstance(node.op, (Parameter, Const, Result)):
        return
    fewest, most = arity
    count = node.num_inputs()
    if count < fewest or (most is not None and count > most):
        allowed = str(fewest) if fewest == most else f"{fewest} to {most}" if most is not None else f"{fewest} or more"
        raise ConversionError(
            f"node {quoted(node.name)} ({node.op.describe()}) takes {allowed} input(s), but the model gives it {count}; "
            "fix the model"
        )


def _check_sources_have_no_inputs(node: Node) -> None:
    """A Parameter or Const fed by another node (a model that turned an operation into an
    input) is a layer the runtime cannot place in the graph."""
    if isinstance(node.op, (Parameter, Const)) and any(port.get_source() for port in node.in_ports()):
        raise ConversionError(
            f"node {quoted(node.name)} is a {node.op.describe()}, which takes no inputs, but the model feeds it "
            f"{node.num_inputs()} input(s); fix the model"
        )


def _check_result_has_one_input(node: Node) -> None:
    """A model output reads exactly one tensor (an IR whose Result lost its input port, or
    got a second one, is refused by the runtime)."""
    if isinstance(node.op, Result) and (node.num_inputs() != 1 or node.in_port(0).get_source() is None):
        raise ConversionError(
            f"node {quoted(node.name)} is a model output (Result), which reads exactly one tensor, "
            f"but the model gives it {node.num_inputs()} input(s); fix the model"
        )


def _check_outputs_exist(node: Node) -> None:
    """A consumer of an output the op does not have (a source model that gave the node more
    outputs than its operation defines) would make an IR the runtime cannot read."""
    declared = node.op.num_outputs()
    for idx in range(declared, node.num_outputs()):
        port = node.out_port(idx)
        users = port.get_destinations()
        # ops whose output count follows an input (VariadicSplit) declare fewer, but their
        # shape inference types every output it makes; this one it never reached
        never_inferred = port.data.element_type is ElementType.dynamic and port.data.shape is None
        if users and never_inferred:
            raise ConversionError(
                f"node {quoted(node.name)} ({node.op.describe()}) has {declared} output(s), but its output {idx} "
                f"is read by {quoted(users[0].node.name)}: the model gives this node more outputs than its "
                "operation defines; fix the model"
            )


def written_outputs(node: Node) -> list[OutPort]:
    """The output ports the IR shows: a trailing run of outputs past the op's own count that
    no one reads and inference never typed (a source node given more outputs than its
    operation) is left out; the runtime refuses a layer with ports its op lacks."""
    ports = node.out_ports()
    declared = node.op.num_outputs()
    while len(ports) > declared:
        last = ports[-1]
        if last.get_destinations() or last.data.element_type is not ElementType.dynamic or last.data.shape is not None:
            break
        ports.pop()
    return ports


@dataclass
class GraphPlan:
    """Layer ids and port numbers of one graph (the main one or a body)."""

    order: list[Node]
    sources: dict[int, list[OutPort]]
    compressed: set[int] = field(default_factory=set)
    #: compressed candidates whose values are rounded to integers downstream (see ``rounded_constants``)
    rounded: set[int] = field(default_factory=set)
    layer_of: dict[int, int] = field(default_factory=dict)
    inputs_of: dict[int, int] = field(default_factory=dict)
    extra_names: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    markers: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=dict)

    def names(self, port: OutPort) -> list[str]:
        """The tensor names written on an output port."""
        return port.data.names or self.extra_names.get((port.node.id, port.idx), [])

    def source(self, port: OutPort) -> tuple[int, int]:
        """(layer id, port id) of an output port."""
        node_id = port.node.id
        return self.layer_of[node_id], self.inputs_of[node_id] + port.idx


def plan_graph(graph: Graph, compress: bool, name_boundary: bool = False) -> GraphPlan:
    """Number the layers: topological order; a compressed Const takes two ids (Const, Convert).

    Whether a compression candidate's values fit f16 is only known when it is written (its
    values are read once, as they are written): one that does not is written f32 under
    the first of its two ids, and the second stays unused (layer ids need not be dense).

    ``name_boundary`` gives unnamed model inputs and outputs a tensor name (the main graph).
    """
    sources = {node.id: _input_sources(node) for node in graph.nodes()}
    plan = GraphPlan(layer_order(graph, sources), sources)
    plan.markers = graph.meta.get(RT_MARKERS, {})
    if name_boundary:
        plan.extra_names = boundary_names(graph)
    keep = shape_constants(graph) if compress else set()
    if compress:
        plan.rounded = rounded_constants(graph)
    next_id = 0
    for node in plan.order:
        count = len(sources[node.id])
        if compress and isinstance(node.op, Const) and should_compress(node, keep):
            plan.compressed.add(node.id)
            next_id += 1  # the f16 Const; the node's own id is its Convert
            count = 1
        plan.layer_of[node.id] = next_id
        plan.inputs_of[node.id] = count
        next_id += 1
    return plan


def _input_sources(node: Node) -> list[OutPort]:
    sources = []
    for port in node.in_ports():
        source = port.get_source()
        if source is None:
            raise ConversionError(
                f"node {quoted(node.name)} ({node.op.describe()}): input {port.idx} is not connected, "
                f"but a later input is; the IR cannot skip an input"
            )
        sources.append(source)
    return sources


class GraphWriter:
    """Writes graphs (and, recursively, control-flow bodies) into one XML and one bin stream."""

    def __init__(
        self,
        xml: XmlStream,
        blobs: BlobWriter,
        compress: bool,
        stats: CompressionStats,
        on_bytes: Callable[[int], None] | None = None,
    ) -> None:
        self.xml = xml
        self.blobs = blobs
        self.compress = compress
        self.stats = stats
        self.on_bytes = on_bytes  # told how many weight bytes each constant took (progress)
        self._dim_lines: dict[MaybeShape, list[str]] = {}  # shape -> its <dim> lines, built once

    def write_graph(self, graph: Graph, plan: GraphPlan | None = None) -> GraphPlan:
        """``<layers>`` and ``<edges>`` of one graph."""
        plan = plan or plan_graph(graph, self.compress)
        self.xml.open("layers")
        for node in plan.order:
            self.write_node(node, plan)
        self.xml.close("layers")
        self.xml.open("edges")
        for node in plan.order:
            to_layer = plan.layer_of[node.id]
            if node.id in plan.compressed:
                self.edge(to_layer - 1, 0, to_layer, 0)
            for idx, source in enumerate(plan.sources[node.id]):
                self.edge(*plan.source(source), to_layer, idx)
        self.xml.close("edges")
        return plan

    def edge(self, from_layer: int, from_port: int, to_layer: int, to_port: int) -> None:
        self.xml.line(
            f'<edge from-layer="{from_layer}" from-port="{from_port}" to-layer="{to_layer}" to-port="{to_port}" />'
        )

    def write_node(self, node: Node, plan: GraphPlan) -> None:
        layer_id = plan.layer_of[node.id]
        op = node.op
        if isinstance(op, Const):
            self.write_const(node, layer_id, plan)
            return
        try:
            attributes = op.ir_attributes()
        except (TypeError, ValueError) as exc:
            raise ConversionError(f"node {quoted(node.name)} ({op.describe()}): cannot write its attributes: {exc}") from exc
        self.xml.open("layer", _header(layer_id, node.name, op.type, op.opset))
        if attributes:
            self.xml.empty("data", attributes.items())
        type_name, markers = plan.markers.get(node.name, ("", ()))
        if markers and type_name == op.type:
            self.xml.open("rt_info")
            for name, version in markers:
                self.xml.empty("attribute", [("name", name), ("version", version)])
            self.xml.close("rt_info")
        layouts = body_layouts(op)
        plans = [plan_graph(layout.graph, self.compress) for layout in layouts]
        for layout, body_plan in zip(layouts, plans, strict=True):
            write_port_map(
                self.xml,
                layout,
                node.num_inputs(),
                parameter_ids=[body_plan.layer_of[n.id] for n in layout.graph.parameters()],
                result_ids=[body_plan.layer_of[n.id] for n in layout.graph.results()],
            )
        self.write_ports(node, plan)
        for layout, body_plan in zip(layouts, plans, strict=True):
            self.xml.open(layout.tag)
            self.write_graph(layout.graph, body_plan)
            self.xml.close(layout.tag)
        self.xml.close("layer")

    def write_const(self, node: Node, layer_id: int, plan: GraphPlan) -> None:
        op = node.op
        assert isinstance(op, Const)
        value = op.stored  # a DeferredConst is computed while written
        names = plan.names(node.out_port(0))
        if node.id in plan.compressed:
            stored = self.write_f16(node, value, node.id in plan.rounded)
            if stored is None:  # written f32 under the f16 Const's id; edges come after the layers
                plan.compressed.discard(node.id)
                layer_id -= 1
                plan.layer_of[node.id] = layer_id
                plan.inputs_of[node.id] = 0
            else:
                self.const_layer(layer_id - 1, f"{node.name}/compressed", value, names=[], stored=(F16, *stored))
                self.xml.open("layer", _header(layer_id, node.name, "Convert", "opset1"))
                self.xml.empty("data", [("destination_type", ElementType.f32.value)])
                self.xml.open("rt_info")
                self.xml.empty("attribute", [("name", "decompression"), ("version", "0")])
                self.xml.close("rt_info")
                self.xml.open("input")
                self.port(0, ElementType.f16, value.shape, [])
                self.xml.close("input")
                self.xml.open("output")
                self.port(1, ElementType.f32, value.shape, names)
                self.xml.close("output")
                self.xml.close("layer")
                return
        self.const_layer(layer_id, node.name, value, names)

    def write_f16(self, node: Node, value: np.ndarray | DeferredProduct, rounded: bool) -> tuple[int, int] | None:
        """Write a compression candidate's f16 blob; (offset, size), or None when f16
        cannot hold it where that matters (see :func:`f16_loss`; values beyond its range
        are found by the encoder and the blob is taken back)."""
        reason = f16_loss(value, rounded, check_range=not self.blobs.can_take_back)
        if reason is None:
            reports: list[object] = []
            stored = self.blobs.add_unless(value, F16, reports, refuse=any_clamped)
            if stored is not None:
                self.stats.count(value.size, reports)
                return stored
            reason = BEYOND_F16
        self.stats.keep(node.name, reason)
        return None

    def const_layer(
        self,
        layer_id: int,
        name: str,
        value: np.ndarray | DeferredProduct,
        names: list[str],
        stored: tuple[Encoding, int, int] | None = None,
    ) -> None:
        """A Const layer; its bytes go to the ``.bin`` as they are, unless ``stored`` says
        how and where they already went (encoding, offset, size)."""
        encoding = stored[0] if stored else None
        try:
            element_type = ElementType.from_numpy(encoding.dtype if encoding else value.dtype)
        except ValueError:
            raise ConversionError(
                f"constant {quoted(name)} holds {value.dtype} values, which the IR cannot store "
                "(convert it to a numeric or boolean type first)"
            ) from None
        offset, size = stored[1:] if stored else self.blobs.add(value)
        if self.on_bytes is not None:
            self.on_bytes(size)
        self.xml.open("layer", _header(layer_id, name, "Const", "opset1"))
        self.xml.empty(
            "data",
            [
                ("element_type", element_type.value),
                ("shape", shape_text(value.shape)),
                ("offset", str(offset)),
                ("size", str(size)),
            ],
        )
        self.xml.open("output")
        self.port(0, element_type, value.shape, names)
        self.xml.close("output")
        self.xml.close("layer")

    def write_ports(self, node: Node, plan: GraphPlan) -> None:
        sources = plan.sources[node.id]
        if sources:
            self.xml.open("input")
            for idx, source in enumerate(sources):
                data = source.data
                self.port(idx, data.element_type, data.shape, [])
            self.xml.close("input")
        outputs = written_outputs(node)
        if outputs:
            self.xml.open("output")
            layout = node.op.layout if isinstance(node.op, Parameter) else None
            for port in outputs:
                data = port.data
                self.port(len(sources) + port.idx, data.element_type, data.shape, plan.names(port), layout)
            self.xml.close("output")

    def port(
        self, port_id: int, element_type: ElementType, shape: MaybeShape, names: list[str], layout: str | None = None
    ) -> None:
        head = f'<port id="{port_id}" precision="{element_type.precision}"'
        if names:
            head += attrs([("names", join_names(names))])
        body = self._dim_lines.get(shape)
        if body is None:
            body = self._dim_lines[shape] = [f"\t<dim>{value}</dim>" for value in dims(shape)]
        if layout is not None:  # a model input's layout, as OpenVINO writes it
            rt_info = "\t<rt_info>\n\t\t<attribute" + attrs([("name", "layout"), ("version", "0"), ("layout", layout)])
            body = [*body, *(rt_info + " />\n\t</rt_info>").split("\n")]
        if not body:
            self.xml.line(head + " />")
            return
        self.xml.raw_lines([head + ">", *body, "</port>"])


def _header(layer_id: int, name: str, type_name: str, version: str) -> list[tuple[str, str]]:
    return [("id", str(layer_id)), ("name", name), ("type", type_name), ("version", version)]
