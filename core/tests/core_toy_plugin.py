"""A toy framework for pipeline tests: one text line per node.

input x 1,3,8,8        -> Parameter (dims, ? for dynamic)
op r1 MyRelu x         -> SourceOp "MyRelu" fed by x
output y r1            -> Result of tensor r1, named y
"""

from __future__ import annotations

from pathlib import Path

from core_toy_ops import Add, Multiply, Relu, ShapeOf, Sigmoid
from irconv.contract.context import EmitContext, LoadContext
from irconv.frontend import extractor
from irconv.graph import Graph
from irconv.ops import Parameter, Result, SourceOp
from irconv.plugins import Emitter, Loader, hookimpl


def load_toy(path: Path, ctx: LoadContext) -> Graph:
    graph = Graph(path.stem, "toy")
    ports = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        kind, name, *rest = parts
        if kind == "input":
            dims = tuple(None if d == "?" else int(d) for d in rest[0].split(","))
            node = graph.add_node(Parameter(dims), name)
        elif kind == "op":
            op = SourceOp(framework="toy", op_type=rest[0], domain="", opset_version=1)
            node = graph.add_node(op, name, [ports[i] for i in rest[1:]])
        elif kind == "output":
            ports[rest[0]].data.add_name(name)
            graph.add_node(Result(), f"{name}/sink", [ports[rest[0]]])
            continue
        else:
            raise ValueError(f"line {lineno}: unknown kind {kind!r}")
        node.out_port(0).data.add_name(name)
        ports[name] = node.out_port(0)
    return graph


def write_toy(graph: Graph, path: Path, ctx: EmitContext) -> list[Path]:
    """Writes a .xml and a .bin like the IR emitter; fails on request to test atomicity."""
    xml = ctx.open(path, "w")
    binary = ctx.open(path.with_suffix(".bin"), "wb")
    for node in graph.topological_order():
        xml.write(f"{node.type} {node.name}\n")
        if node.name == "explode":
            raise RuntimeError("emitter crashed half way")
        if node.name == "interrupt":
            raise KeyboardInterrupt
    binary.write(b"\0")
    return [path, path.with_suffix(".bin")]


class ToyPlugin:
    @hookimpl
    def load_model(self):
        return [Loader("toy", load_toy, suffixes=(".toy",))]

    @hookimpl
    def declare_ops(self):
        return [Relu, Sigmoid, Add, Multiply, ShapeOf]

    @hookimpl
    def extract_op(self):
        return [
            extractor("toy", "MyRelu", lambda node, ctx: Relu(), produces=[Relu]),
            extractor("toy", "MyAdd", lambda node, ctx: Add(), produces=[Add]),
            extractor("toy", "MyShapeOf", lambda node, ctx: ShapeOf(), produces=[ShapeOf]),
            # a decomposition: Double(x) -> Add(x, x), returned as ports
            extractor("toy", "Double", lambda node, ctx: [ctx.op(Add(), ctx.input(0), ctx.input(0))], produces=[Add]),
        ]

    @hookimpl
    def emit(self):
        return [Emitter("ir11", write_toy)]
