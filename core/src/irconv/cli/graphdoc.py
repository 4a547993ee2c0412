"""The graph document ``irconv show`` hands to a ``Renderer``: plain JSON-serialisable data.

Schema (version 1)::

    {
      "version": 1,
      "title": "resnet50.onnx",
      "graphs": [                        # one, or two with --diff: the IR first, then the source
        {
          "label": "IR" | "source",
          "framework": "onnx",
          "nodes": [                     # in topological order
            {
              "id": 0, "name": "conv1", "type": "Convolution", "version": "opset1",
              "attributes": {"strides": "1,1", ...},          # IR spelling, strings
              "inputs": [[3, 0], null, ...],                  # [producer id, output port] per input
              "outputs": [{"shape": "1,64,112,112", "type": "f32", "names": ["conv1"]}],
              "origin": "conv1",                              # source node it came from, or ""
              "status": "" | "added" | "removed"              # with --diff: not in the other graph
            }
          ]
        }
      ],
      "transforms": [                    # with --diff: what each transform that ran did
        {"id": "fuse.swish", "phase": "middle", "changed": true, "ms": 1.2,
         "nodes_before": 120, "nodes_after": 110}
      ]
    }
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from irconv import narrow_float
from irconv.graph import Graph
from irconv.ops import Const, SourceOp
from irconv.types import ElementType, format_shape

#: Constants with at most this many elements show their value.
SHOWN_VALUES = 16
#: Attribute values longer than this are cut.
LONGEST_VALUE = 200

VERSION = 1


def graph_entry(graph: Graph, label: str, framework: str) -> dict[str, Any]:
    """One graph of the document."""
    order = graph.topological_order()
    ids = {node.name: i for i, node in enumerate(order)}
    nodes = []
    for i, node in enumerate(order):
        inputs: list[list[int] | None] = []
        for port in node.in_ports():
            source = port.get_source()
            inputs.append(None if source is None else [ids[source.node.name], source.idx])
        nodes.append(
            {
                "id": i,
                "name": node.name,
                "type": node.type,
                "version": _version(node.op),
                "attributes": _attributes(node.op),
                "inputs": inputs,
                "outputs": [
                    {
                        "shape": format_shape(port.data.shape),
                        "type": port.data.element_type.value,
                        "names": list(port.data.names),
                    }
                    for port in node.out_ports()
                ],
                "origin": node.origin or "",
                "status": "",
            }
        )
    return {"label": label, "framework": framework, "nodes": nodes}


def document(title: str, graphs: list[dict[str, Any]], transforms: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """The whole document; with two graphs, nodes present in only one are marked."""
    if len(graphs) == 2:
        _mark_differences(graphs[0], graphs[1])
    return {"version": VERSION, "title": title, "graphs": graphs, "transforms": list(transforms)}


def _mark_differences(ir: dict[str, Any], source: dict[str, Any]) -> None:
    """A node is kept when a node of the other graph has its name or is its origin."""
    source_names = {n["name"] for n in source["nodes"]}
    ir_names = {n["name"] for n in ir["nodes"]}
    ir_origins = {n["origin"] for n in ir["nodes"] if n["origin"]}
    structural = {"Parameter", "Result", "Const"}
    for node in ir["nodes"]:
        if node["name"] not in source_names and node["origin"] not in source_names and node["type"] not in structural:
            node["status"] = "added"
    for node in source["nodes"]:
        if node["name"] not in ir_names and node["name"] not in ir_origins and node["type"] not in structural:
            node["status"] = "removed"


def _version(op: Any) -> str:
    if isinstance(op, SourceOp):
        return f"{op.framework} {op.domain + ' ' if op.domain else ''}opset {op.opset_version}"
    if getattr(op, "custom_opset", ""):
        return str(op.custom_opset)
    return f"opset{op.version}" if op.version else ""


def _attributes(op: Any) -> dict[str, str]:
    if isinstance(op, SourceOp):
        adapter = op.attributes
        if adapter is None:
            return {}
        found = {}
        for name in adapter.names():
            try:
                found[name] = _text(adapter.get(name))
            except Exception as exc:  # an adapter that cannot decode one attribute: show why
                found[name] = f"<{type(exc).__name__}>"
        return found
    if isinstance(op, Const):
        value = op.value
        found = {"shape": format_shape(value.shape), "element_type": _element_type(value.dtype)}
        if value.size <= SHOWN_VALUES:
            found["value"] = _text(_numbers(value).tolist())
        return found
    try:
        return {k: _text(v) for k, v in op.ir_attributes().items()}
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def _element_type(dtype: np.dtype) -> str:
    try:
        return ElementType.from_numpy(dtype).value
    except ValueError:
        return str(dtype)


def _numbers(value: np.ndarray) -> np.ndarray:
    """A constant's values as numbers: narrow floats widened to f32, 4-bit values (one a
    byte in a tagged field) as their field."""
    shown: np.ndarray = narrow_float.widen(value)
    names = shown.dtype.names
    field: np.ndarray = shown[names[0]] if names and len(names) == 1 else shown
    return field


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= LONGEST_VALUE else text[: LONGEST_VALUE - 3] + "..."
