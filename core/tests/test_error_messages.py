"""Messages stay short: names and quoted text are cut with their length said, and the command
line cuts any error line still over ``LINE_LIMIT``; a shared rule's error that does not know
its node is named by inference."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from irconv.cli.main import main
from irconv.errors import (
    LINE_LIMIT,
    NAME_LIMIT,
    ConversionError,
    LoweringError,
    clipped_lines,
    quoted,
    shortened,
    shortened_quotes,
)
from irconv.graph import Node
from irconv.graph.infer import infer_node
from irconv.ops import Op
from irconv.testing import GraphBuilder
from toy_cli import use_toy_host

LONG = "n" * 2000 + "/tail_5000"


def test_a_short_name_is_quoted_as_repr_quotes_it():
    assert quoted("conv1") == "'conv1'"
    assert quoted("it's") == '"it\'s"'


def test_a_long_name_keeps_its_start_and_end_and_says_its_length():
    text = quoted("a" * 4990 + "/layer_9/x")
    assert len(text) < NAME_LIMIT + 40
    assert text.startswith("'aaa") and text.endswith("/layer_9/x' (5,000 characters)")
    assert "…" in text


def test_shortened_leaves_short_text_alone_and_cuts_long_text():
    assert shortened("abc") == "abc"
    assert shortened("x" * 1000, 100).endswith(" (1,000 characters)")
    assert len(shortened("x" * 1000, 100)) == 100 + len(" (1,000 characters)")


def test_long_quoted_spans_of_a_library_message_are_cut():
    message = "11:107 : '" + "z" * 3000 + "': String missing ending quote: '\"" + "\\000" * 1000 + "'"
    short = shortened_quotes(message)
    assert len(short) < 1000
    assert short.startswith("11:107 : 'zzz") and "' (3,000 characters): String missing ending quote: '\"" in short
    assert short.endswith("' (4,001 characters)")
    assert shortened_quotes("node 'a' and 'b'") == "node 'a' and 'b'"


def test_clipped_lines_cuts_each_line_saying_how_much():
    message = clipped_lines("first\n" + "y" * 5000 + "\nlast")
    lines = message.split("\n")
    assert lines[0] == "first" and lines[2] == "last"
    assert lines[1] == "y" * (LINE_LIMIT - 40) + "… (3,040 more characters cut)"
    assert len(lines[1]) <= LINE_LIMIT


@pytest.fixture
def toy_cli(monkeypatch):
    use_toy_host(monkeypatch)


def test_an_unsupported_op_with_a_huge_type_and_name_is_reported_short(tmp_path, toy_cli, capsys):
    model = tmp_path / "m.toy"
    model.write_text(f"input x 1,4\nop {LONG} {'T' * 5000} x\noutput y {LONG}\n")
    assert main(["convert", str(model), "-o", str(tmp_path / "out.xml")]) == 5
    err = capsys.readouterr().err
    assert max(len(line) for line in err.splitlines()) < 600, err
    assert "(5,000 characters)" in err and "/tail_5000 (2,010 characters)" in err


def test_no_error_line_is_longer_than_the_limit(tmp_path, toy_cli, capsys):
    """The last guard: a message no helper shortened (here a path of 3,000 characters)."""
    folder = tmp_path
    for i in range(15):
        folder = folder / f"{i:02d}{'d' * 198}"
    missing = folder / "missing.toy"
    assert main(["convert", str(missing), "-o", str(tmp_path / "out.xml")]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("irconv: error: ")
    assert len(lines[-1]) <= LINE_LIMIT and lines[-1].endswith("more characters cut)"), lines[-1]


@dataclass(eq=False)
class AxisRule(Op):
    """Test op whose inference calls a shared rule that does not know the node."""

    type = "AxisRule"
    version = 1

    def infer(self, node: Node) -> None:
        raise LoweringError("axis 9 is out of range for rank 4")


def test_a_rule_error_that_does_not_know_its_node_is_named_by_inference():
    b = GraphBuilder()
    node = b.op(AxisRule(), b.parameter("x", (1, 4)), name="the_node").node
    with pytest.raises(ConversionError) as caught:
        infer_node(node)
    assert not isinstance(caught.value, LoweringError)
    assert str(caught.value) == (
        "shape inference failed at node 'the_node' (AxisRule-1) with inputs ([...]:dynamic): "
        "axis 9 is out of range for rank 4"
    )


def _plugin_code(shape: tuple[int, ...]) -> int:
    import numpy as np

    return int(np.empty(shape).shape[3])  # the plugin's line that fails (an IndexError)


def test_a_plugin_fault_says_where_in_the_plugin_it_was_raised_and_cuts_the_text():
    from irconv.errors import PluginFault

    try:
        _plugin_code((1, 2))
    except IndexError as exc:
        fault = PluginFault("extracting node 'n' (toy Op, opset 1)", exc, "irconv-toy 1")
    line = _plugin_code.__code__.co_firstlineno + 3
    assert f"(raised in {__name__}, line {line})." in str(fault), str(fault)
    long_fault = PluginFault("inferring node 'n'", KeyError("k" * 5000))
    assert len(str(long_fault)) < 700 and "(5,002 characters)" in str(long_fault)


def test_an_attribute_value_of_any_length_is_shown_cut():
    from irconv.contract.attributes import AttributeReader
    from irconv.ops.source import MappingAttributes

    attrs = AttributeReader(MappingAttributes({"mode": "m" * 5000}), "node 'n' (toy T)")
    for error in (attrs.bad("mode", "m" * 5000, "not a mode"), attrs.error("mode", "a or b", "'" + "m" * 5000 + "'")):
        assert len(str(error)) < 500 and "(5,002 characters)" in str(error), str(error)


def test_a_usage_error_quoting_a_huge_argument_is_cut(toy_cli, capsys):
    with pytest.raises(SystemExit):
        main(["convert", "m.toy", "--" + "x" * 5000])
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) <= LINE_LIMIT, lines
