"""``Unsqueeze(Gather(v, i, 0), 0)`` -> ``Gather(v, [i], 0)`` for a 1-D ``v`` and a scalar ``i``."""

from __future__ import annotations

import numpy as np
from irconv import (
    Graph,
    Match,
    Node,
    Pat,
    PatternRewrite,
    Rewriter,
    TransformContext,
    any_,
    const,
    op,
    rewrite_greedily,
)


def _constant(node: Node) -> np.ndarray | None:
    return node.out_port(0).constant(shape_derived=False)


def _pattern() -> Pat:
    from irconv_opset import Gather, Unsqueeze

    def scalar(node: Node) -> bool:
        value = _constant(node)
        return value is not None and value.ndim == 0 and value.dtype.kind in "iu"

    def leading_axis(node: Node) -> bool:
        value = _constant(node)
        return value is not None and value.size == 1 and int(value.reshape(-1)[0]) in (0, -1)

    element = op(
        Gather,
        any_("vector"),
        const("index", where=scalar),
        const("axis", where=leading_axis),
        single_use=True,
        bind="element",
    )
    return op(Unsqueeze, element, const("axes", where=leading_axis), bind="root")


class GatherAsVector(PatternRewrite):
    """Unsqueeze(Gather(v, i, axis 0), axes [0]) -> Gather(v, [i], axis 0), for a 1-D ``v``
    and a scalar ``i``: ``[v[i]]`` either way, one layer fewer.

    PyTorch's TorchScript-based ONNX exporter reads each dimension of a shape this way
    (``Shape -> Gather -> Unsqueeze -> Concat``) to build the target of a ``view``.
    """

    id = "llm.gather_as_vector"
    run_before = ("fuse.merge_common_subexpressions",)
    pattern = _pattern()

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [self], frozen=ctx.is_frozen) > 0

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset import Gather

        vector, root = match.port("vector"), match["root"]
        shape = vector.data.shape
        if shape is None or len(shape) != 1 or match.op("element", Gather).batch_dims != 0:
            return False
        index = _constant(match["index"])
        assert index is not None  # the pattern's condition
        gathered = rw.op(
            Gather(batch_dims=0),
            vector,
            rw.const(index.reshape(1), like=root),
            rw.const(np.int64(0), like=root),
            like=root,
        )
        rw.replace(root, gathered)
        return True
