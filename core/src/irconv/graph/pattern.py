"""Declarative sub-graph patterns, matched by anchoring on the op-type index.

A pattern is an expression tree written from the root (the last op) towards its
inputs, the way the algebra reads::

    x = any_("x")
    swish = op("Multiply", x, op("Sigmoid", x), bind="mul", commutative=True)

Matching starts only at nodes of the root's op type (looked up in the graph's index),
walks the tree along input edges and binds names. A name bound twice must meet the same
tensor, which is how shared inputs (``x`` above) are expressed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import permutations
from typing import TYPE_CHECKING, TypeVar, Union

import numpy as np

from irconv.graph._graph import Graph
from irconv.graph._node import Node
from irconv.graph._port import OutPort

if TYPE_CHECKING:
    from irconv.ops.op import Op

OpT = TypeVar("OpT", bound="Op")


@dataclass(frozen=True)
class Pat:
    """One node of a pattern.

    ``types`` None is a wildcard: any tensor, bound by ``bind``. ``out`` restricts which
    output port of the producer is accepted; ``single_use`` requires that output to have
    exactly one consumer (so the matched node can be dropped by a rewrite).
    """

    types: tuple[str, ...] | None
    inputs: tuple[Pat, ...] = ()
    bind: str | None = None
    where: Callable[[Node], bool] | None = None
    commutative: bool = False
    single_use: bool = False
    out: int | None = None


OpKind = Union[str, "type[Op]"]


def _type_names(types: OpKind | tuple[OpKind, ...]) -> tuple[str, ...]:
    kinds = types if isinstance(types, tuple) else (types,)
    # versions of one op (MaxPool_v1, MaxPool) share a type: each type once
    return tuple(dict.fromkeys(kind if isinstance(kind, str) else kind.type for kind in kinds))


def op(
    types: OpKind | tuple[OpKind, ...],
    *inputs: Pat,
    bind: str | None = None,
    where: Callable[[Node], bool] | None = None,
    commutative: bool = False,
    single_use: bool = False,
    out: int | None = None,
) -> Pat:
    """A node of one of ``types`` (op classes, or IR type names) whose first inputs match
    ``inputs`` (extra inputs free). ``Match.op(bind, OpClass)`` gives the bound node's op typed."""
    return Pat(
        types=_type_names(types),
        inputs=inputs,
        bind=bind,
        where=where,
        commutative=commutative,
        single_use=single_use,
        out=out,
    )


def any_(bind: str | None = None, where: Callable[[Node], bool] | None = None) -> Pat:
    """Any tensor; ``where`` tests its producer."""
    return Pat(types=None, bind=bind, where=where)


def const(bind: str | None = None, where: Callable[[Node], bool] | None = None) -> Pat:
    """A Const node (partial inference folds every other constant sub-graph into one, except
    shape-derived values, which a rewrite must not build into the IR anyway); ``where`` tests
    the node, ``Match.constant(bind)`` gives its value."""

    def has_value(node: Node) -> bool:
        return node.type == "Const" and (where is None or where(node))

    return Pat(types=("Const",), bind=bind, where=has_value)


@dataclass
class Match:
    """Names bound by a match: the producing node and the exact output port of each."""

    nodes: dict[str, Node] = field(default_factory=dict)
    ports: dict[str, OutPort] = field(default_factory=dict)
    #: Every node matched by an op pattern (not the producers of wildcard inputs): the
    #: nodes a rewrite of this match may change.
    matched: list[Node] = field(default_factory=list)

    def __getitem__(self, name: str) -> Node:
        return self.nodes[name]

    def port(self, name: str) -> OutPort:
        return self.ports[name]

    def op(self, name: str, kind: type[OpT] | tuple[type[OpT], ...]) -> OpT:
        """The op of the node bound to ``name``, which must be a ``kind`` (or one of several,
        the versions of one op): a typed view, so a rewrite reads its attributes without casts."""
        found = self.nodes[name].op
        if not isinstance(found, kind):
            kinds = kind if isinstance(kind, tuple) else (kind,)
            wanted = " or ".join(k.__name__ for k in kinds)
            raise TypeError(f"pattern name {name!r} is bound to a {type(found).__name__}, not a {wanted}")
        return found

    def constant(self, name: str) -> np.ndarray | None:
        """The value of the tensor bound to ``name`` (``OutPort.constant``, shape-derived
        values refused: a rewrite builds what it reads into the IR)."""
        return self.ports[name].constant(shape_derived=False)

    def copy(self) -> Match:
        return Match(dict(self.nodes), dict(self.ports), list(self.matched))


def required_types(pattern: Pat) -> list[tuple[str, ...]]:
    """The op-type alternatives of every typed node of ``pattern``: a graph can hold a match
    only if it has a node of each (``Graph.has_type``), a test far cheaper than matching."""
    found: list[tuple[str, ...]] = []
    stack = [pattern]
    while stack:
        current = stack.pop()
        if current.types is not None and current.types not in found:
            found.append(current.types)
        stack.extend(current.inputs)
    return found


def types_present(graph: Graph, required: list[tuple[str, ...]]) -> bool:
    """Whether ``graph`` has a node of each alternative in ``required`` (``required_types``)."""
    return all(graph.has_type(*types) for types in required)


def match_at(pattern: Pat, node: Node) -> Match | None:
    """Match ``pattern`` with its root on ``node``; the first consistent binding wins."""
    for found in _match_node(pattern, node, None, Match()):
        return found
    return None


def find_matches(graph: Graph, pattern: Pat) -> Iterator[Match]:
    """Matches over the graph, anchored on nodes of the root's type.

    Candidates are a snapshot; a node removed by an earlier rewrite is skipped, so the
    caller may edit the graph between matches.
    """
    if pattern.types is None:
        raise ValueError("a pattern root must name op types")
    if not types_present(graph, required_types(pattern)):
        return
    for node in graph.by_type(*pattern.types):
        if node in graph:
            found = match_at(pattern, node)
            if found is not None:
                yield found


def _match_port(pattern: Pat, port: OutPort, bound: Match) -> Iterator[Match]:
    if pattern.out is not None and port.idx != pattern.out:
        return
    if pattern.bind is not None and pattern.bind in bound.ports:
        # The same tensor, and one this occurrence's own constraints accept too.
        same = bound.ports[pattern.bind] == port
        if (same and (pattern.types is None or port.node.type in pattern.types)
                and (pattern.where is None or pattern.where(port.node))):
            yield bound
        return
    if pattern.single_use and len(port.get_destinations()) != 1:
        return
    if pattern.types is None:
        if pattern.where is not None and not pattern.where(port.node):
            return
        found = bound.copy()
        if pattern.bind is not None:
            found.nodes[pattern.bind] = port.node
            found.ports[pattern.bind] = port
        yield found
        return
    yield from _match_node(pattern, port.node, port, bound)


def _match_node(pattern: Pat, node: Node, port: OutPort | None, bound: Match) -> Iterator[Match]:
    assert pattern.types is not None
    if node.type not in pattern.types:
        return
    if pattern.where is not None and not pattern.where(node):
        return
    maybe_sources = [node.in_port(i).get_source() for i in range(len(pattern.inputs))]
    sources = [s for s in maybe_sources if s is not None]
    if len(sources) != len(maybe_sources):
        return
    orders = permutations(range(len(sources))) if pattern.commutative else [range(len(sources))]
    # Most candidates fail on an input's op type: check those first, before any copying.
    viable = [pats for order in orders if _types_fit(pats := [pattern.inputs[i] for i in order], sources)]
    if not viable:
        return
    current = bound.copy()
    current.matched.append(node)
    if pattern.bind is not None:
        current.nodes[pattern.bind] = node
        current.ports[pattern.bind] = port if port is not None else node.out_port(0)
    for pats in viable:
        yield from _match_inputs(pats, sources, 0, current)


def _types_fit(pats: list[Pat], sources: list[OutPort]) -> bool:
    """Whether each source's op type is one its pattern allows (a necessary condition)."""
    return all(p.types is None or s.node.type in p.types for p, s in zip(pats, sources, strict=True))


def _match_inputs(pats: list[Pat], sources: list[OutPort], i: int, bound: Match) -> Iterator[Match]:
    if i == len(pats):
        yield bound
        return
    for found in _match_port(pats[i], sources[i], bound):
        yield from _match_inputs(pats, sources, i + 1, found)
