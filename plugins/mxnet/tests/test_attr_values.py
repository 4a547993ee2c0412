"""MXNet attribute strings as Python values."""

from __future__ import annotations

import pytest
from irconv_mxnet.attr_values import as_tuple, parse_attrs, parse_value


@pytest.mark.parametrize(
    "text,value",
    [
        ("(3, 3)", (3, 3)),
        ("(0,)", (0,)),
        ("()", ()),
        ("[1,2,3]", (1, 2, 3)),
        ("(None, 2)", (None, 2)),
        ("((1, 2), (3, 4))", ((1, 2), (3, 4))),
        ("(0.5, 1.0, 2.0)", (0.5, 1.0, 2.0)),
        ("True", True),
        ("false", False),
        ("None", None),
        ("64", 64),
        ("-1", -1),
        ("1e-05", 1e-05),
        ("0.25", 0.25),
        ("relu", "relu"),
        ("NCHW", "NCHW"),
        ("'float32'", "float32"),
        ('["normal", {"sigma": 0.01, "x": 1}]', ("normal", '{"sigma": 0.01, "x": 1}')),
    ],
)
def test_parse_value(text: str, value: object) -> None:
    assert parse_value(text) == value
    assert type(parse_value(text)) is type(value)


def test_parse_attrs_keeps_non_strings() -> None:
    assert parse_attrs({"kernel": "(3, 3)", "already": 5}) == {"kernel": (3, 3), "already": 5}


def test_parse_attrs_reads_an_empty_tuple_as_unset() -> None:
    assert parse_attrs({"stride": "()", "pad": "(0, 0)", "axis": "None"}) == {"stride": None, "pad": (0, 0), "axis": None}


def test_as_tuple() -> None:
    assert as_tuple(3, 2) == (3, 3)
    assert as_tuple((1, 2)) == (1, 2)
    assert as_tuple(None) == ()
