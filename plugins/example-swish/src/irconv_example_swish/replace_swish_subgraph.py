"""Sub-graphs the user names that compute x * sigmoid(beta * x) -> one ExampleSwish.

The user names them by scope (``--example-swish-scope block``) or by their first and last
tensors (``--example-swish-between x:y``); each must hold exactly that computation
(checked with a pattern), else conversion stops with a message saying what was found.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from irconv import (
    Graph,
    OutPort,
    Rewriter,
    Subgraph,
    SubgraphReplacement,
    TransformContext,
    any_,
    between,
    by_scope,
    const,
    match_at,
    op,
)
from irconv.errors import ConversionError, UserError
from irconv.ops import Const
from irconv_opset import Multiply, Sigmoid

from irconv_example_swish.ops import ExampleSwish
from irconv_example_swish.options import BETWEEN, SCOPES

#: x * sigmoid(beta * x), either operand order; beta is a known scalar.
SCALED = op(
    Multiply,
    any_("x"),
    op(Sigmoid, op(Multiply, any_("x"), const("beta"), commutative=True), single_use=True),
    bind="out",
    commutative=True,
)
#: x * sigmoid(x): beta = 1.
PLAIN = op(Multiply, any_("x"), op(Sigmoid, any_("x"), single_use=True), bind="out", commutative=True)


class ReplaceSwishSubgraph(SubgraphReplacement):
    """Named sub-graphs computing x * sigmoid(beta * x) -> ExampleSwish(x, beta)."""

    id = "example.replace_swish_subgraph"

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return bool(ctx.options.get(SCOPES) or ctx.options.get(BETWEEN))

    def subgraphs(self, graph: Graph, ctx: TransformContext) -> Iterable[Subgraph]:
        for scope in ctx.options.get(SCOPES):
            found = by_scope(graph, scope)
            if found is None:
                raise UserError(f"{SCOPES.cli_flag} {scope}: no node is named {scope}/...")
            yield found
        for spec in ctx.options.get(BETWEEN):
            start, _, end = spec.partition(":")
            yield between(graph, [start], [end])

    def replace(self, sub: Subgraph, rw: Rewriter) -> Sequence[OutPort]:
        if len(sub.inputs) != 1 or len(sub.outputs) != 1:
            raise ConversionError(
                f"sub-graph {sub.name!r} reads {len(sub.inputs)} and gives {len(sub.outputs)} tensor(s); "
                "x * sigmoid(beta * x) reads one and gives one"
            )
        out = sub.outputs[0].node
        match = match_at(SCALED, out) or match_at(PLAIN, out)
        matched = {n.id for n in match.matched if not isinstance(n.op, Const)} if match is not None else set()
        if match is None or matched != {n.id for n in sub.compute_nodes()} or match.port("x") != sub.inputs[0]:
            kinds = ", ".join(sorted({n.type for n in sub.compute_nodes()}))
            raise ConversionError(
                f"sub-graph {sub.name!r} is not x * sigmoid(beta * x) (it holds {kinds}); "
                "only such sub-graphs become ExampleSwish"
            )
        beta = 1.0
        value = match.constant("beta") if "beta" in match.ports else None
        if value is not None:
            if value.size != 1:
                raise ConversionError(f"sub-graph {sub.name!r}: beta must be a scalar, got shape {value.shape}")
            beta = float(value.reshape(()))
        return [rw.op(ExampleSwish(beta=beta), sub.inputs[0], name=sub.name)]
