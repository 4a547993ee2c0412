"""The option value syntax: per-input numbers, layouts, frozen values."""

from __future__ import annotations

import pytest
from irconv_prep.specs import Layout, LayoutSpec, parse_frozen, parse_layouts, parse_per_input, split_top_level


def test_split_keeps_brackets_together() -> None:
    assert split_top_level("a[1,2],b(nc),c->[3 4]") == ["a[1,2]", "b(nc)", "c->[3 4]"]


def test_per_input_values() -> None:
    assert parse_per_input("data[1,2.5,3]") == {"data": (1.0, 2.5, 3.0)}
    assert parse_per_input("a[1 2 3],b[4]") == {"a": (1.0, 2.0, 3.0), "b": (4.0,)}
    assert parse_per_input("[127.5]") == {"": (127.5,)}
    assert parse_per_input({"x": [1, 2]}) == {"x": (1.0, 2.0)}
    assert parse_per_input([1, 2, 3]) == {"": (1.0, 2.0, 3.0)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("data(1,2)", "is not name[v1,v2,...]"),
        ("data[a,b]", "not a list of numbers"),
        ("data[]", "no values"),
        ("a[1],a[2]", "given twice"),
        ("[1],b[2]", "only be given for a single input"),
    ],
)
def test_bad_per_input_values(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_per_input(text)


def test_layouts() -> None:
    assert parse_layouts("nchw") == {"": LayoutSpec(Layout("NCHW"), Layout("NCHW"))}
    assert parse_layouts("x(nhwc->nchw),y([N,C])") == {
        "x": LayoutSpec(Layout("NHWC"), Layout("NCHW")),
        "y": LayoutSpec(Layout("NC"), Layout("NC")),
    }
    assert Layout.parse("n?hw").index("C") is None
    assert Layout("NCHW").ir_text() == "[N,C,H,W]"


@pytest.mark.parametrize(
    ("text", "message"), [("x(n1hw)", "one letter per dim"), ("x(nnhw)", "twice"), ("x(nchw->nchd)", "same dims")]
)
def test_bad_layouts(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_layouts(text)
    with pytest.raises(ValueError, match="use --layout"):
        parse_layouts("x(nhwc->nchw)", allow_arrow=False)


def test_frozen_values() -> None:
    assert parse_frozen("rate[0.5],flag->True,k->[1 2 3]") == {"rate": "0.5", "flag": "True", "k": "[1 2 3]"}
    with pytest.raises(ValueError, match="name the input"):
        parse_frozen("[1]")
