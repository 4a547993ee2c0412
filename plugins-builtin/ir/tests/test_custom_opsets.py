"""Ops of custom opsets: emitted with their opset name, read back only by the plugin declaring them.

A test plugin declares ``FancyOp`` (custom opset ``test_opset``) with an attribute of every
kind the IR reader parses; the host holds only that plugin, the opset and the IR plugin.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from irconv import ElementType, Node, Op, attr, convert_model, hookimpl, save_model
from irconv.errors import UnsupportedOpsError
from irconv.testing import GraphBuilder
from irconv.testing.runtime import emit_ir


class Mode(enum.Enum):
    FAST = "fast"
    EXACT = "exact"


@dataclass(eq=False)
class FancyOp(Op):
    """A custom op with typed attributes; output type from ``out_type``, shape from input 0."""

    type = "FancyOp"
    version = 1
    custom_opset = "test_opset"

    alpha: float = attr(0.5)
    count: int = attr(3)
    enabled: bool = attr(True)
    label: str = attr("plain")
    mode: Mode = attr(Mode.FAST)
    axes: tuple[int, ...] = attr((0, 1))
    scales: list[float] = attr(factory=lambda: [1.0, 2.5])
    out_type: ElementType = attr(ElementType.f32)

    def infer(self, node: Node) -> None:
        node.out_port(0).data.set_shape(node.in_port(0).data.get_shape())
        node.out_port(0).data.set_type(self.out_type)


@dataclass(eq=False)
class OtherOp(Op):
    """Another op of the same custom opset, which the reading side does not declare."""

    type = "OtherOp"
    version = 1
    custom_opset = "test_opset"

    def infer(self, node: Node) -> None:
        node.out_port(0).data.set_shape(node.in_port(0).data.get_shape())
        node.out_port(0).data.set_type(node.in_port(0).data.get_type())


class Declares:
    def __init__(self, *ops: type[Op]) -> None:
        self.ops = list(ops)

    @hookimpl
    def declare_ops(self):  # type: ignore[no-untyped-def]
        return self.ops


FANCY = FancyOp(
    alpha=0.1,
    count=7,
    enabled=False,
    label="with spaces",
    mode=Mode.EXACT,
    axes=(2, 3),
    scales=[0.25, -4.0],
    out_type=ElementType.f16,
)


@pytest.fixture
def host(plugin_host, register_plugin):  # type: ignore[no-untyped-def]
    import irconv_ir.plugin
    import irconv_opset.plugin

    register_plugin(irconv_opset.plugin, name="opset", distribution="irconv-opset")
    register_plugin(irconv_ir.plugin, name="ir", distribution="irconv-ir")
    return plugin_host


def emit_fancy(path: Path, host, *extra: Op) -> Path:  # type: ignore[no-untyped-def]
    from irconv_opset import ReLU

    b = GraphBuilder("custom")
    x = b.op(ReLU(), b.parameter("x", (1, 4)))
    y = b.op(FANCY, x, name="fancy")
    for op in extra:
        y = b.op(op, y)
    b.result(b.op(ReLU(), y), "y")
    for node in b.graph.topological_order():
        node.op.infer(node)
    return emit_ir(b.graph, path, host)


def test_emitted_with_the_custom_opset_name(tmp_path, host, register_plugin):
    register_plugin(Declares(FancyOp), name="fancy", distribution="irconv-fancy")
    text = emit_fancy(tmp_path / "a.xml", host).read_text()
    assert '<layer id="2" name="fancy" type="FancyOp" version="test_opset">' in text
    assert (
        '<data alpha="0.1" count="7" enabled="false" label="with spaces" mode="exact" axes="2,3" '
        'scales="0.25,-4" out_type="f16" />'
    ) in text


def test_round_trip_is_byte_identical_with_the_declaring_plugin(tmp_path, host, register_plugin):
    register_plugin(Declares(FancyOp), name="fancy", distribution="irconv-fancy")
    first = emit_fancy(tmp_path / "a.xml", host)
    graph = convert_model(first, host=host)
    read = graph.node("fancy").op
    assert type(read) is FancyOp
    assert read.ir_attributes() == FANCY.ir_attributes()
    assert (read.mode, read.axes, read.scales, read.out_type) == (Mode.EXACT, (2, 3), [0.25, -4.0], ElementType.f16)
    second = tmp_path / "b.xml"
    save_model(graph, second, host=host, compress_to_fp16=False)
    assert first.read_bytes() == second.read_bytes()
    assert first.with_suffix(".bin").read_bytes() == second.with_suffix(".bin").read_bytes()


def test_without_the_plugin_the_missing_opset_is_named(tmp_path, host, register_plugin, plugin_host):
    from irconv import PluginHost

    writer = PluginHost(autoload=False)
    import irconv_ir.plugin
    import irconv_opset.plugin

    writer.register(irconv_opset.plugin, "opset")
    writer.register(irconv_ir.plugin, "ir")
    writer.register(Declares(FancyOp), "fancy", distribution="irconv-fancy")
    xml = emit_fancy(tmp_path / "a.xml", writer)
    with pytest.raises(UnsupportedOpsError) as caught:
        convert_model(xml, host=host)
    message = str(caught.value)
    assert "uses custom operations that no installed plugin declares" in message
    assert "FancyOp (version=\"test_opset\") x1: layer 'fancy'" in message
    assert "no installed plugin declares custom opset 'test_opset'" in message
    assert "Install the irconv plugin that declares these ops" in message


def test_an_op_missing_from_an_installed_custom_opset_is_named(tmp_path, host, register_plugin):
    writer_ops = Declares(FancyOp, OtherOp)
    from irconv import PluginHost

    writer = PluginHost(autoload=False)
    import irconv_ir.plugin
    import irconv_opset.plugin

    writer.register(irconv_opset.plugin, "opset")
    writer.register(irconv_ir.plugin, "ir")
    writer.register(writer_ops, "fancy", distribution="irconv-fancy", version="2.0")
    xml = emit_fancy(tmp_path / "a.xml", writer, OtherOp())
    register_plugin(Declares(FancyOp), name="fancy", distribution="irconv-fancy", version="1.0")
    with pytest.raises(UnsupportedOpsError) as caught:
        convert_model(xml, host=host)
    message = str(caught.value)
    assert 'OtherOp (version="test_opset") x1' in message
    assert "custom opset 'test_opset' is declared by irconv-fancy 1.0, which has no op 'OtherOp'" in message
    assert "FancyOp (" not in message  # the op it does declare is fine


def test_shape_inference_comes_from_the_declared_op(tmp_path, host, register_plugin):
    register_plugin(Declares(FancyOp), name="fancy", distribution="irconv-fancy")
    graph = convert_model(emit_fancy(tmp_path / "a.xml", host), host=host)
    data = graph.node("fancy").out_port(0).data
    assert data.get_shape() == (1, 4) and data.get_type() == ElementType.f16
    assert np.dtype(data.get_type().numpy) == np.float16
