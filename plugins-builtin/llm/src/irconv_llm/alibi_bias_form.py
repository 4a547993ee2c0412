"""ALiBi attention bias written the way OpenVINO's SDPA-to-PagedAttention rewrite reads it."""

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
from irconv.narrow_float import widen


def _slopes(node: Node) -> bool:
    """A float constant, one nonzero finite slope per head (``[heads]`` or ``[heads, 1]``)."""
    value = node.out_port(0).constant(shape_derived=False)
    if value is None or value.ndim not in (1, 2) or (value.ndim == 2 and value.shape[1] != 1):
        return False
    try:
        slopes = np.asarray(widen(value))
    except ValueError:
        return False
    return slopes.dtype.kind == "f" and bool(np.all(np.isfinite(slopes)) and np.all(slopes != 0))


def _scalar(node: Node) -> bool:
    value = node.out_port(0).constant(shape_derived=False)
    return value is not None and value.size == 1 and np.asarray(widen(value)).dtype.kind == "f"


def _patterns() -> tuple[Pat, ...]:
    from irconv_opset import Convert, Divide, Multiply, Reshape, Select

    found = []
    for convert_inner in (False, True):
        for convert_outer in (False, True):
            product: Pat = op(Multiply, const("slopes", where=_slopes), any_("positions"), bind="product")
            if convert_inner:
                product = op(Convert, product, single_use=True)
            inner = op(Reshape, product, bind="inner", single_use=True)
            if convert_outer:
                inner = op(Convert, inner, single_use=True)
            outer = op(Reshape, inner, bind="outer", single_use=True)
            scaled = (
                op(Multiply, outer, const("scale", where=_scalar), bind="scaled", commutative=True, single_use=True),
                op(Divide, outer, const("divisor", where=_scalar), bind="scaled", single_use=True),
            )
            for bias in (*scaled, outer):
                if bias is outer and not (convert_inner or convert_outer):
                    continue  # already the form the rewrite reads
                found.append(op(Select, any_("condition"), any_("fill"), bias, bind="root"))
    return tuple(found)


class AlibiBiasForm(PatternRewrite):
    """``Select(c, f, s * Reshape(Reshape(slopes * positions)))`` with a constant scalar ``s``
    (or a division by one) and/or a dtype Convert in the Reshape chain (Falcon's ALiBi: the
    product taken in bf16, widened, divided by sqrt(head size)) ->
    ``Select(c, f, Reshape(Reshape((slopes * s) * (widened product / slopes))))``.

    Same values up to f32 rounding (the narrow product's rounding is kept). This is the
    ALiBi form (Bloom's) that OpenVINO's ``SDPAToPagedAttention`` reads its per-head slopes
    from: the constant first operand of the Multiply under two Reshapes under the mask's
    Select. When it finds none, GenAI's default PagedAttention backend runs attention with
    no position bias at all. PagedAttention adds ``slope * distance`` in f32, so the slopes
    it takes already carry the scale; a product rounded to a narrow float (bf16: past position
    256, sooner for slopes that are not powers of two) is not reproduced there.
    """

    id = "llm.alibi_bias_form"
    pattern = _patterns()

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [self], frozen=ctx.is_frozen) > 0

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset import Convert, Divide, Multiply

        root, inner, outer = match["root"], match["inner"], match["outer"]
        bias = root.in_port(2).get_source()
        product = match.port("product")
        if bias is None:
            return False
        dtype = bias.data.element_type
        if dtype is None or not dtype.is_float or dtype.numpy.kind != "f":
            return False
        if bias.data.shape is None or bias.data.shape != outer.out_port(0).data.shape:
            return False  # the scale broadcasts the bias to another shape
        slopes = np.asarray(widen(match.constant("slopes")), np.float64)
        scale = 1.0
        if "scale" in match.ports:
            scale = float(np.asarray(widen(match.constant("scale"))).reshape(-1)[0])
        elif "divisor" in match.ports:
            scale = 1.0 / float(np.asarray(widen(match.constant("divisor"))).reshape(-1)[0])
        if not np.isfinite(scale) or scale == 0:
            return False
        widened = product
        if product.data.element_type != dtype:
            widened = rw.op(Convert(destination_type=dtype), product, like=inner)
        positions = rw.op(Divide(), widened, rw.const(slopes.astype(dtype.numpy), like=inner), like=inner)
        scaled_slopes = rw.const((slopes * scale).astype(dtype.numpy), like=inner)
        biased = rw.op(Multiply(), scaled_slopes, positions, like=match["product"])
        reshaped = rw.op(inner.op, biased, inner.in_port(1).get_source(), like=inner)
        rw.replace(bias.node, rw.op(outer.op, reshaped, outer.in_port(1).get_source(), like=outer))
        return True
