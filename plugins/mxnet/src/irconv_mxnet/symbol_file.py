"""Reading an MXNet ``*-symbol.json`` into plain records.

The file lists ``nodes`` in topological order; each has ``op`` (``"null"`` for variables:
data inputs, weights and auxiliary states), ``name``, attribute strings and ``inputs``
(``[node, output, version]`` triples). ``heads`` are the model outputs and ``arg_nodes``
the variables. Attributes are under ``attrs`` (MXNet >= 0.9); older files keep operator
parameters under ``param`` and user attributes under ``attr`` — both are read, newest
winning. ``node_row_ptr``, when present, gives each node's number of outputs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irconv.errors import ModelFileError, quoted, shortened

#: Keys that hold a node's attributes, oldest first (later ones win).
ATTRIBUTE_KEYS = ("attr", "param", "attrs")


@dataclass(frozen=True)
class SymbolNode:
    """One node of the symbol: ``inputs`` are ``(node index, output index)`` pairs."""

    index: int
    name: str
    op: str
    attrs: dict[str, str] = field(default_factory=dict)
    inputs: tuple[tuple[int, int], ...] = ()

    @property
    def is_variable(self) -> bool:
        return self.op == "null"

    def describe(self) -> str:
        return f"node {quoted(self.name)} ({self.op})"


@dataclass(frozen=True)
class Symbol:
    nodes: list[SymbolNode]
    heads: list[tuple[int, int]]
    output_counts: list[int] | None
    mxnet_version: int | None = None


def read_symbol(path: Path) -> Symbol:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelFileError(f"cannot read MXNet symbol {path}: {exc.strerror}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path} is not valid JSON: {exc}") from None
    return parse_symbol(document, path)


def parse_symbol(document: Any, path: Path = Path("<symbol>")) -> Symbol:
    if not isinstance(document, dict) or not isinstance(document.get("nodes"), list):
        raise ModelFileError(f"{path} is not an MXNet symbol file (no 'nodes' list)")
    nodes = [_node(i, raw, path) for i, raw in enumerate(document["nodes"])]
    for node in nodes:
        for source, _ in node.inputs:
            if not 0 <= source < node.index:
                raise ModelFileError(
                    f"{path}: {node.describe()} reads node {source}, which does not come before it"
                )
    heads_raw = document.get("heads")
    if heads_raw is None:
        raise ModelFileError(f"{path}: the symbol has no 'heads' (model outputs)")
    if isinstance(heads_raw, list) and not heads_raw:  # an IR without a single Result
        raise ModelFileError(f"{path}: the symbol's 'heads' (model outputs) is empty")
    heads = [_entry(e, path, "heads") for e in heads_raw]
    for source, _ in heads:
        if not 0 <= source < len(nodes):
            raise ModelFileError(f"{path}: a head names node {source}, out of range")
    counts = None
    row_ptr = document.get("node_row_ptr")
    if isinstance(row_ptr, list) and len(row_ptr) == len(nodes) + 1:
        counts = [int(b) - int(a) for a, b in zip(row_ptr, row_ptr[1:], strict=False)]
    version = None
    attrs = document.get("attrs")
    if isinstance(attrs, dict) and isinstance(attrs.get("mxnet_version"), list):
        version = int(attrs["mxnet_version"][-1])
    return Symbol(nodes, heads, counts, version)


def _node(index: int, raw: Any, path: Path) -> SymbolNode:
    if not isinstance(raw, dict) or "op" not in raw or "name" not in raw:
        raise ModelFileError(f"{path}: node {index} needs 'op' and 'name'")
    attrs: dict[str, str] = {}
    for key in ATTRIBUTE_KEYS:
        values = raw.get(key)
        if isinstance(values, dict):
            attrs.update({str(k): v if isinstance(v, str) else json.dumps(v) for k, v in values.items()})
    inputs = tuple(_entry(e, path, f"inputs of node {shortened(repr(raw['name']))}") for e in raw.get("inputs", []))
    return SymbolNode(index, str(raw["name"]), str(raw["op"]), attrs, inputs)


def _entry(raw: Any, path: Path, where: str) -> tuple[int, int]:
    if not isinstance(raw, list) or not raw or not all(isinstance(v, int) for v in raw):
        raise ModelFileError(f"{path}: bad entry {shortened(repr(raw))} in {where} (expected [node, output, version])")
    return raw[0], raw[1] if len(raw) > 1 else 0
