"""Shared fixtures of the IR plugin's tests: tiny local ops so tests do not wait on the opset."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from irconv.graph import Node
from irconv.ops import Op


@dataclass(eq=False)
class PassThrough(Op):
    """An elementwise unary op of opset1 whose type is chosen per subclass."""

    def infer(self, node: Node) -> None:
        data = node.in_port(0).data
        node.out_port(0).data.set_shape(data.get_shape())
        node.out_port(0).data.set_type(data.get_type())


@dataclass(eq=False)
class LocalReLU(PassThrough):
    type = "ReLU"
    version = 1


@dataclass(eq=False)
class LocalAdd(Op):
    """Add-1 with numpy broadcast shapes (static only: enough for these tests)."""

    type = "Add"
    version = 1
    auto_broadcast: str = "numpy"

    def infer(self, node: Node) -> None:
        a, b = node.in_port(0).data, node.in_port(1).data
        sa, sb = a.get_shape(), b.get_shape()
        if sa is None or sb is None:
            node.out_port(0).data.set_shape(None)
        else:
            rank = max(len(sa), len(sb))
            sa = (1,) * (rank - len(sa)) + tuple(sa)
            sb = (1,) * (rank - len(sb)) + tuple(sb)
            node.out_port(0).data.set_shape(
                tuple(x if y == 1 else y if x == 1 else x for x, y in zip(sa, sb, strict=True))
            )
        node.out_port(0).data.set_type(a.get_type())


@pytest.fixture
def relu_op() -> type[Op]:
    return LocalReLU


@pytest.fixture
def add_op() -> type[Op]:
    return LocalAdd


@pytest.fixture
def reemit(installed_host):  # type: ignore[no-untyped-def]
    """``reemit(xml_in, xml_out, **options)``: read an IR, extract, infer, emit again (no transforms)."""
    from pathlib import Path

    from irconv import ConversionOptions, LoadContext
    from irconv.pipeline.extract import check_supported, extract_graph
    from irconv.pipeline.infer import infer_graph
    from irconv.pipeline.run import pick_loader, save

    def run(xml_in: Path, xml_out: Path, **options):  # type: ignore[no-untyped-def]
        opts = ConversionOptions.from_kwargs(**{"compress_to_fp16": False, **options})
        registry = installed_host.registry()
        graph = pick_loader(Path(xml_in), opts, registry).item.load(Path(xml_in), LoadContext(opts, registry.ops, registry.find_extractor))
        check_supported(graph, registry)
        extract_graph(graph, registry, opts)
        infer_graph(graph)
        save(graph, Path(xml_out), opts, installed_host)
        return graph

    return run


@pytest.fixture
def load_ctx(installed_host):  # type: ignore[no-untyped-def]
    """A ``LoadContext`` with default options and every installed plugin."""
    from irconv import ConversionOptions, LoadContext

    registry = installed_host.registry()
    return LoadContext(ConversionOptions(), registry.ops, registry.find_extractor)
