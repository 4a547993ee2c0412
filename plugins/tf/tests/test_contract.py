"""irconv-tf uses only the public plugin contract."""

from __future__ import annotations

import re
from pathlib import Path

import irconv_tf
import numpy as np
from irconv import SourceAttributes
from irconv_tf.nodes import TFNode

PACKAGE = Path(irconv_tf.__file__).parent


def _sources() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "proto" not in p.parts]


def test_no_core_internals_or_networkx() -> None:
    forbidden = re.compile(r"^\s*(from|import)\s+(irconv\.pipeline|networkx)\b", re.MULTILINE)
    offenders = [str(p.relative_to(PACKAGE)) for p in _sources() if forbidden.search(p.read_text())]
    assert offenders == []


def test_extractors_read_attributes_through_the_context() -> None:
    offenders = [str(p.relative_to(PACKAGE)) for p in _sources() if ".op.source" in p.read_text()]
    assert offenders == []


def test_tf_node_is_a_source_attributes_adapter() -> None:
    from irconv_tf.proto import graph_pb2

    node = TFNode(
        "n",
        "Conv2D",
        [],
        {
            "padding": graph_pb2.AttrValue(s=b"SAME"),
            "strides": graph_pb2.AttrValue(list=graph_pb2.AttrValue.ListValue(i=[1, 2, 2, 1])),
            "alpha": graph_pb2.AttrValue(f=0.5),
        },
    )
    assert isinstance(node, SourceAttributes)
    assert "padding" in node and "dilations" not in node
    assert sorted(node.names()) == ["alpha", "padding", "strides"]
    assert node.get("padding") == "SAME"
    assert node.get("strides") == [1, 2, 2, 1]
    assert np.isclose(node.get("alpha"), 0.5)
    assert node.get("dilations", [1, 1, 1, 1]) == [1, 1, 1, 1]


def test_options_declared() -> None:
    from irconv_tf.plugin import declare_options

    by_name = {o.name: o for o in declare_options()}
    assert by_name["tf.signature"].cli_flag == "--signature"
    assert by_name["tf.signature"].python_keyword == "signature"
    tags = by_name["tf.saved_model_tags"]
    assert (tags.cli_flag, tags.python_keyword, tags.multiple) == ("--saved-model-tags", "saved_model_tags", True)
