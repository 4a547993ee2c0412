"""The greedy pattern driver, and ``PatternRewrite``: a transform written as one rewrite rule.

The driver keeps a worklist of nodes, seeded from the op-type index with every node of a
pattern's root type, and tries the patterns rooted at each node's type whose every op type
the graph still holds (checked in the index before matching). A rewrite's edits
push the nodes they created, rewired or re-inferred back on the worklist, so rules that
enable each other run to a fixed point without whole-graph rescans. It stops when the
worklist is empty, or raises after a bound on rewrites (a pair of rules undoing each other).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, Protocol

from irconv.contract.records import Transform
from irconv.errors import GraphError
from irconv.graph import Graph, Match, Node, Pat, match_at
from irconv.graph.pattern import required_types, types_present
from irconv.rewrite.rewriter import Rewriter

if TYPE_CHECKING:
    from irconv.contract.context import TransformContext


class RewriteRule(Protocol):
    """A pattern and what to do with a match: ``rewrite`` returns True when it changed the graph."""

    @property
    def roots(self) -> Sequence[Pat]: ...

    def rewrite(self, match: Match, rewriter: Rewriter) -> bool: ...


def rewrite_greedily(
    graph: Graph,
    rules: Sequence[RewriteRule],
    *,
    frozen: Callable[[Node], bool] | None = None,
    max_rewrites: int | None = None,
) -> int:
    """Apply ``rules`` wherever their patterns match until nothing changes; returns the count.

    ``frozen`` nodes are never part of a rewrite (a match touching one is skipped).
    """
    by_type: dict[str, list[tuple[Pat, RewriteRule, list[tuple[str, ...]]]]] = {}
    for rule in rules:
        for root in rule.roots:
            if root.types is None:
                raise GraphError(f"{type(rule).__name__}: a pattern root must name op types")
            needs = required_types(root)
            for op_type in root.types:
                by_type.setdefault(op_type, []).append((root, rule, needs))
    if not any(types_present(graph, needs) for roots in by_type.values() for _, _, needs in roots):
        return 0  # no pattern can match, so no rewrite can make one match
    worklist: deque[Node] = deque(graph.by_type(*by_type))
    queued = {node.id for node in worklist}

    def push(node: Node) -> None:
        if node.id not in queued and node.type in by_type:
            queued.add(node.id)
            worklist.append(node)
        for user in node.users():  # a changed producer can complete a consumer's pattern
            if user.node.id not in queued and user.node.type in by_type:
                queued.add(user.node.id)
                worklist.append(user.node)

    rewriter = Rewriter(graph, on_change=push)
    limit = max_rewrites if max_rewrites is not None else 4 * len(graph) + 1000
    count = 0
    while worklist:
        node = worklist.popleft()
        queued.discard(node.id)
        if node not in graph:
            continue
        for root, rule, needs in by_type.get(node.type, ()):
            # a GELU pattern needs an Erf somewhere: most graphs answer in a few lookups
            if not types_present(graph, needs):
                continue
            match = match_at(root, node)
            if match is None or (frozen is not None and any(frozen(n) for n in match.matched)):
                continue
            if rule.rewrite(match, rewriter):
                if node in graph:  # the root survived: it may match again (another consumer)
                    push(node)
                count += 1
                if count > limit:
                    raise GraphError(
                        f"rewrite rules did not settle after {limit} rewrites "
                        f"(last: {type(rule).__name__} at {node.name!r}); two rules may undo each other"
                    )
                break
    return count


class PatternRewrite(Transform):
    """A transform defined by a pattern and a rewrite of each match.

    Subclasses set ``pattern`` (one ``Pat``, or several alternatives) and implement
    ``rewrite(match, rewriter) -> bool``. ``apply`` runs the greedy driver over the whole
    graph, skipping nodes the user froze (``ctx.is_frozen``)::

        class FuseDoubleRelu(PatternRewrite):
            '''ReLU(ReLU(x)) -> ReLU(x).'''
            id = "example.fuse_double_relu"
            pattern = op("ReLU", op("ReLU", any_("x"), bind="inner"), bind="outer")

            def rewrite(self, match, rewriter):
                rewriter.replace(match["outer"], match.port("inner"))
                return True
    """

    pattern: ClassVar[Pat | Sequence[Pat]]

    @property
    def roots(self) -> Sequence[Pat]:
        return [self.pattern] if isinstance(self.pattern, Pat) else list(self.pattern)

    def rewrite(self, match: Match, rewriter: Rewriter) -> bool:
        raise NotImplementedError

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [self], frozen=ctx.is_frozen) > 0
