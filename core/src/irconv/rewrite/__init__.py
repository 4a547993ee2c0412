"""Rewriting the graph: the ``Rewriter`` every transform edits through, and the greedy driver.

``Rewriter`` keeps names and facts right through each edit; ``PatternRewrite`` turns a
pattern and a rewrite of its matches into a transform; ``rewrite_greedily`` runs several
rules together to a fixed point.
"""

from irconv.rewrite.driver import PatternRewrite, RewriteRule, rewrite_greedily
from irconv.rewrite.rewriter import Rewriter

__all__ = ["PatternRewrite", "RewriteRule", "Rewriter", "rewrite_greedily"]
