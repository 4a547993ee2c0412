"""Rewriting the graph: the ``Rewriter`` every transform edits through, and the greedy driver.

``Rewriter`` keeps names and facts right through each edit; ``PatternRewrite`` turns a
pattern and a rewrite of its matches into a transform; ``rewrite_greedily`` runs several
rules together to a fixed point; ``SubgraphReplacement`` replaces a sub-graph selected by name
scope or by start/end tensors with what one op computes.
"""

from irconv.rewrite.driver import PatternRewrite, RewriteRule, rewrite_greedily
from irconv.rewrite.rewriter import Rewriter
from irconv.rewrite.subgraph import Subgraph, SubgraphReplacement, between, by_scope, replace_subgraph

__all__ = [
    "PatternRewrite",
    "RewriteRule",
    "Rewriter",
    "Subgraph",
    "SubgraphReplacement",
    "between",
    "by_scope",
    "replace_subgraph",
    "rewrite_greedily",
]
