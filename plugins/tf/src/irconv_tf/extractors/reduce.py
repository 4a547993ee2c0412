"""Reductions, arg-max/min and top-k."""

from __future__ import annotations

from collections.abc import Callable

from irconv import ExtractContext
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.plugins import Extractor
from irconv_opset import (
    ReduceLogicalAnd,
    ReduceLogicalOr,
    ReduceMax,
    ReduceMean,
    ReduceMin,
    ReduceProd,
    ReduceSum,
    Squeeze,
)

from irconv_tf.dtypes import element_type
from irconv_tf.extractors._base import const_input, int_const, table


def _reduce(make: Callable[..., Op]) -> Callable[[Node, ExtractContext], Op]:
    def extract(node: Node, ctx: ExtractContext) -> Op:
        return make(keep_dims=bool(ctx.attr("keep_dims", False)))

    return extract


def _arg(mode: str) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        from irconv_opset import TopK

        axis = int(const_input(ctx, 1, "dimension"))
        out = element_type(ctx.attr("output_type", 9), node.name)
        topk = ctx.add(
            TopK(axis=axis, mode=mode, sort="none", index_element_type=out),
            [ctx.input(0), int_const(ctx, 1, "k")],
            suffix="TopK",
        )
        return [ctx.op(Squeeze(), topk.out_port(1), int_const(ctx, [axis], "axis"))]

    return extract


def _top_k(node: Node, ctx: ExtractContext) -> list[OutPort]:
    from irconv_opset import TopK

    out = element_type(ctx.attr("index_type", 3), node.name)
    sort = "value" if ctx.attr("sorted", True) else "none"
    topk = ctx.add(
        TopK(axis=-1, mode="max", sort=sort, index_element_type=out), [ctx.input(0), ctx.input(1)], suffix="TopK"
    )
    return [topk.out_port(0), topk.out_port(1)]


def extractors() -> list[Extractor]:
    return table(
        {
            "Mean": (_reduce(ReduceMean), "ReduceMean"),
            "Sum": (_reduce(ReduceSum), "ReduceSum"),
            "Max": (_reduce(ReduceMax), "ReduceMax"),
            "Min": (_reduce(ReduceMin), "ReduceMin"),
            "Prod": (_reduce(ReduceProd), "ReduceProd"),
            "All": (_reduce(ReduceLogicalAnd), "ReduceLogicalAnd"),
            "Any": (_reduce(ReduceLogicalOr), "ReduceLogicalOr"),
            "ArgMax": (_arg("max"), "TopK"),
            "ArgMin": (_arg("min"), "TopK"),
            "TopKV2": (_top_k, "TopK"),
        }
    )
