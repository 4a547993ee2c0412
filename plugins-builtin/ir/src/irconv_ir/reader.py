"""Build an irconv graph from a parsed IR: the ``load_model`` side of the plugin.

Parameters, Consts and Results become their structural ops directly; every other layer
becomes a ``SourceOp(framework="ir")`` that the generic extractors turn back into the
opset op class. Const values are views into a read-only memory map of the ``.bin``
(no copy). A decompression ``Convert`` fed by an f16 Const is read back as the f32
Const it was compressed from, so re-emitting reproduces the same files.
"""

from __future__ import annotations

import heapq
import math
from pathlib import Path

import numpy as np
from irconv import LoadContext
from irconv.errors import ModelFileError, shortened
from irconv.graph import Graph, OutPort
from irconv.graph.budget import check_weight_bytes
from irconv.ops import Const, Op, Parameter, Result, SourceOp
from irconv.types import ElementType

from irconv_ir.attributes import ir_element_type, parse_bounds, parse_shape
from irconv_ir.custom_check import check_custom_layers
from irconv_ir.ir_model import IrLayer, IrNet, parse_ir
from irconv_ir.meta import LAYER_NODES, RT_MARKERS

FRAMEWORK = "ir"


def sniff_ir(path: Path) -> bool:
    """An ``.xml`` whose first 64 KiB (room for a licence comment) hold a ``<net`` element."""
    if path.is_dir() or path.suffix.lower() != ".xml":
        return False
    with open(path, "rb") as handle:
        head = handle.read(65536)
    return b"<net" in head


def load_ir(path: Path, ctx: LoadContext) -> Graph:
    """Read ``<stem>.xml`` and its ``<stem>.bin`` (or the ``weights`` option).

    Layers of a custom opset that no installed plugin declares are reported here, all at
    once, with the opset and what to install (see :mod:`irconv_ir.custom_check`).
    """
    net = parse_ir(path)
    bin_path = ctx.options.weights or path.with_suffix(".bin")
    weights = _map_weights(bin_path) if bin_path.exists() else None
    try:
        graph = GraphReader(path, weights, as_written=ctx.as_written).build(net)
    except RecursionError:  # bodies are built recursively, a few frames per level
        raise ModelFileError(
            f"{path}: sub-graphs (If/Loop/TensorIterator bodies) nest deeper than irconv can read"
        ) from None
    check_custom_layers(path, graph, ctx)
    if net.version == 10:
        add_legacy_names(graph)
    return graph


def add_legacy_names(graph: Graph) -> None:
    """IR v10 has no tensor names: inputs and outputs are known by their layer names.

    A Parameter's output takes the Parameter's name; a tensor feeding a Result takes its
    producer's name (``name.port`` for a producer with several outputs).
    """
    for node in graph.parameters():
        if not node.out_port(0).data.names:
            node.out_port(0).data.add_name(node.name)
    for node in graph.results():
        source = node.in_port(0).get_source()
        if source is None or source.data.names:
            continue
        producer = source.node
        source.data.add_name(producer.name if producer.num_outputs() == 1 else f"{producer.name}.{source.idx}")


def _map_weights(path: Path) -> np.ndarray:
    if path.stat().st_size == 0:
        return np.zeros(0, np.uint8)
    return np.memmap(path, dtype=np.uint8, mode="r")


class GraphReader:
    """Turns ``IrNet`` records (the main graph and bodies) into graphs."""

    def __init__(self, path: Path, weights: np.ndarray | None, *, as_written: bool = False) -> None:
        self.path = path
        self.weights = weights
        #: Keep f16 Consts and their decompression Converts as two layers (``irconv show``),
        #: instead of reading them back as the f32 Const they were compressed from.
        self.as_written = as_written

    def build(self, net: IrNet, name: str | None = None) -> Graph:
        graph = Graph(name or net.name, FRAMEWORK)
        by_id = {layer.id: layer for layer in net.layers}
        sources: dict[int, dict[int, tuple[int, int]]] = {}  # to-layer -> to-port -> (from-layer, from-port)
        users: dict[tuple[int, int], int] = {}
        for edge in net.edges:
            if edge.from_layer not in by_id or edge.to_layer not in by_id:
                raise ModelFileError(f"{self.path}: an edge refers to a missing layer ({edge})")
            feeds = sources.setdefault(edge.to_layer, {})
            if edge.to_port in feeds:  # the runtime would take one of them; which is not defined
                raise ModelFileError(
                    f"{self.path}: {by_id[edge.to_layer].where()} input port {edge.to_port} has two edges"
                )
            feeds[edge.to_port] = (edge.from_layer, edge.from_port)
            users[(edge.from_layer, edge.from_port)] = users.get((edge.from_layer, edge.from_port), 0) + 1

        folded = {} if self.as_written else self._decompressions(net, by_id, sources, users)
        outputs: dict[tuple[int, int], OutPort] = {}
        layer_nodes: dict[int, int] = {}
        graph.meta[LAYER_NODES] = layer_nodes
        markers: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {}
        folded_consts = set(folded.values())
        for layer in self._topological(net, sources):
            if layer.id in folded_consts:
                continue
            feeds = sources.get(layer.id, {})
            if layer.id in folded:
                const_layer = by_id[folded[layer.id]]
                value = self._const_value(const_layer).astype(np.float32)
                node = graph.add_node(Const(value), layer.name)
                self._name_outputs(node.out_port(0), layer.outputs[0].names if layer.outputs else [])
                outputs[(layer.id, layer.outputs[0].id if layer.outputs else 1)] = node.out_port(0)
                continue
            inputs: list[OutPort | None] = []
            for port in layer.inputs:
                feed = feeds.get(port.id)
                if feed is None:
                    raise ModelFileError(f"{self.path}: {layer.where()} input port {port.id} has no edge")
                if feed not in outputs:
                    raise ModelFileError(f"{self.path}: {layer.where()} is fed by unknown port {feed}")
                inputs.append(outputs[feed])
            node = graph.add_node(self._op(layer), layer.name, inputs)
            layer_nodes[layer.id] = node.id
            if layer.markers:
                markers[node.name] = (layer.type, tuple(layer.markers))
            for index, port in enumerate(layer.outputs):
                self._name_outputs(node.out_port(index), port.names)
                outputs[(layer.id, port.id)] = node.out_port(index)
        if markers:
            graph.meta[RT_MARKERS] = markers
        return graph

    def _topological(self, net: IrNet, sources: dict[int, dict[int, tuple[int, int]]]) -> list[IrLayer]:
        """Layers producers first: file order when it already is (it is for emitted IRs),
        else Kahn's algorithm with file position breaking ties."""
        position = {layer.id: i for i, layer in enumerate(net.layers)}
        producers = {layer.id: {src for src, _ in sources.get(layer.id, {}).values()} for layer in net.layers}
        if all(position[p] < position[layer.id] for layer in net.layers for p in producers[layer.id]):
            return net.layers
        waiting = {layer_id: len(found) for layer_id, found in producers.items()}
        users: dict[int, list[int]] = {}
        for layer_id, found in producers.items():
            for producer in found:
                users.setdefault(producer, []).append(layer_id)
        ready = [position[layer_id] for layer_id, count in waiting.items() if count == 0]
        heapq.heapify(ready)
        ordered: list[IrLayer] = []
        while ready:
            layer = net.layers[heapq.heappop(ready)]
            ordered.append(layer)
            for user in users.get(layer.id, ()):
                waiting[user] -= 1
                if waiting[user] == 0:
                    heapq.heappush(ready, position[user])
        if len(ordered) != len(net.layers):
            stuck = sorted(layer_id for layer_id, count in waiting.items() if count > 0)[:5]
            raise ModelFileError(f"{self.path}: the layers form a cycle (through layers {stuck})")
        return ordered

    def _decompressions(
        self,
        net: IrNet,
        by_id: dict[int, IrLayer],
        sources: dict[int, dict[int, tuple[int, int]]],
        users: dict[tuple[int, int], int],
    ) -> dict[int, int]:
        """Decompression Converts of f16 Consts that feed only such Converts: Convert id -> Const id.

        Each of them becomes an f32 Const of its own (OpenVINO may share one f16 Const
        between several Converts; irconv's emitter shares the bytes instead).
        """
        candidates: dict[tuple[int, int], list[int]] = {}
        for layer in net.layers:
            if (
                layer.type != "Convert"
                or "decompression" not in layer.rt_info
                or layer.data.get("destination_type") != "f32"
            ):
                continue
            feed = sources.get(layer.id, {})
            if len(feed) != 1:
                continue
            ((src_layer, src_port),) = feed.values()
            const = by_id[src_layer]
            if const.type == "Const" and const.data.get("element_type") == "f16":
                candidates.setdefault((src_layer, src_port), []).append(layer.id)
        folded: dict[int, int] = {}
        for (src_layer, src_port), converts in candidates.items():
            if users[(src_layer, src_port)] == len(converts):
                folded.update((convert, src_layer) for convert in converts)
        return folded

    def _op(self, layer: IrLayer) -> Op:
        if layer.type == "Parameter":
            try:
                shape = parse_shape(layer.data.get("shape", "..."))
                bounds = parse_bounds(layer.data.get("shape", ""))
                element_type = ir_element_type(layer.data.get("element_type", "f32"))
            except ValueError as exc:
                raise ModelFileError(f"{self.path}: {layer.where()}: {exc}") from None
            layout = layer.outputs[0].layout if layer.outputs else None
            return Parameter(shape, element_type, bounds=bounds, layout=layout)
        if layer.type == "Const":
            return Const(self._const_value(layer))
        if layer.type == "Result":
            return Result()
        version = layer.version
        opset = int(version[5:]) if version.startswith("opset") and version[5:].isdigit() else 1
        bodies = {tag: self.build(body, f"{layer.name}/{tag}") for tag, body in layer.bodies.items()}
        return SourceOp(
            framework=FRAMEWORK,
            op_type=layer.type,
            domain="" if version.startswith("opset") else version,
            opset_version=opset,
            n_outputs=len(layer.outputs),
            source=layer,
            bodies=bodies,
        )

    def _const_value(self, layer: IrLayer) -> np.ndarray:
        where = f"{self.path}: {layer.where()}"
        try:
            element_type = ir_element_type(layer.data.get("element_type", ""))
        except ValueError:
            element_type = ElementType.dynamic
        if element_type is ElementType.dynamic:
            readable = ", ".join(et.value for et in ElementType if et is not ElementType.dynamic)
            raise ModelFileError(
                f"{where}: constants of element type {shortened(repr(layer.data.get('element_type')))} are not supported "
                f"by irconv (supported: {readable})"
            )
        try:
            shape = parse_shape(layer.data.get("shape", ""))
            offset = int(layer.data["offset"])
            size = int(layer.data["size"])
        except (KeyError, ValueError) as exc:
            raise ModelFileError(f"{where}: bad Const attributes {layer.data} ({exc})") from None
        dims = [int(d) for d in shape or () if d is not None]
        if shape is None or len(dims) != len(shape):
            raise ModelFileError(f"{where}: a Const needs a static shape, got {shortened(repr(layer.data.get('shape')))}")
        if self.weights is None:
            raise ModelFileError(f"{where}: the weights file {self.path.with_suffix('.bin')} is missing")
        if offset < 0 or offset + size > self.weights.size:
            raise ModelFileError(
                f"{where}: bytes {offset}..{offset + size} lie outside the weights file ({self.weights.size} bytes)"
            )
        dtype = element_type.numpy
        if element_type.is_packed:  # two values a byte
            count = math.prod(max(d, 0) for d in dims)
            if any(d < 0 for d in dims) or -(-count // 2) != size:
                raise ModelFileError(f"{where}: size {size} does not match shape {shape} of {element_type.value}")
        else:
            check_weight_bytes(f"{where} ({element_type.value})", dims, dtype.itemsize, size)
            count = math.prod(dims)
        raw = self.weights[offset : offset + size]
        if element_type.is_packed:
            return unpack_nibbles(np.frombuffer(raw, np.uint8), count, element_type).reshape(dims)
        storage = np.uint8 if dtype == np.bool_ else dtype
        value = np.frombuffer(raw, dtype=np.dtype(storage).newbyteorder("<"), count=count)
        if dtype == np.bool_:
            value = value.astype(np.bool_)
        return value.reshape(dims)

    @staticmethod
    def _name_outputs(port: OutPort, names: list[str]) -> None:
        for name in names:
            port.data.add_name(name)


def unpack_nibbles(packed: np.ndarray, count: int, element_type: ElementType) -> np.ndarray:
    """``count`` u4/i4 values stored two a byte, the first in the low nibble, as irconv holds
    them (one a byte, ``element_type.numpy``); i4 nibbles are two's complement."""
    values = np.empty(2 * packed.size, np.uint8)
    values[0::2] = packed & 0x0F
    values[1::2] = packed >> 4
    values = values[:count]
    if element_type is ElementType.i4:
        return ((values.astype(np.int8) ^ 8) - 8).view(element_type.numpy)
    return values.view(element_type.numpy)
