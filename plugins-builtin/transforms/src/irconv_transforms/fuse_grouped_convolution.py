"""Split -> N Convolutions -> Concat, in the same order -> one GroupConvolution."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from irconv import Graph, Node, Rewriter, TransformContext
from irconv_opset import Concat, Convolution, GroupConvolution, Split, VariadicSplit

from irconv_transforms import _weights
from irconv_transforms._fusion import HandFusion


class FuseGroupedConvolution(HandFusion):
    """``Concat_1(Conv(Split_1(x)[0], W0), ..., Conv(Split_1(x)[N-1], WN-1))`` -> GroupConvolution
    with weights stacked to [N, Co, Ci, k...]: the channel Split gives equal parts (Split, or
    VariadicSplit with equal lengths), output i feeds only the i-th Concat input's convolution,
    and the convolutions share attributes and weight shapes and feed only the Concat."""

    id = "fuse.grouped_convolution"
    run_after = (*HandFusion.run_after, "fuse.linear_forward")

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        frozen = ctx.is_frozen
        rw = Rewriter(graph)
        for concat in graph.by_type(Concat.type):
            if concat in graph:
                _fuse(rw, concat, frozen)
        return rw.modified


def _fuse(rw: Rewriter, concat: Node, frozen: Callable[[Node], bool]) -> None:
    shape = concat.out_port(0).data.shape
    if not isinstance(concat.op, Concat) or shape is None or concat.op.axis not in (1, 1 - len(shape)):
        return
    producers = [p.get_source() for p in concat.in_ports()]
    convs = [p.node for p in producers if p is not None and isinstance(p.node.op, Convolution)]
    if len(convs) < 2 or len(convs) != len(producers):
        return
    sources = [c.in_port(0).get_source() for c in convs]
    split = sources[0].node if sources[0] is not None else None
    if split is None or not isinstance(split.op, (Split, VariadicSplit)) or split.num_outputs() != len(convs):
        return
    if not _equal_channel_split(split):
        return
    weights = [w for w in (_weights.weights(c) for c in convs) if w is not None]
    if len(weights) != len(convs):
        return
    first = convs[0].op
    assert isinstance(first, Convolution)
    for i, (conv, source, w) in enumerate(zip(convs, sources, weights, strict=True)):
        if source is None or source.node is not split or source.idx != i or len(source.get_destinations()) != 1:
            return
        if w.shape != weights[0].shape or conv.op.ir_attributes() != first.ir_attributes():
            return
        if len(conv.out_port(0).get_destinations()) != 1 or conv.out_port(0).data.names:
            return
    if any(frozen(n) for n in [concat, split, *convs]):
        return
    stacked = np.stack(weights)
    op = GroupConvolution(strides=first.strides, dilations=first.dilations, pads_begin=first.pads_begin,
                          pads_end=first.pads_end, auto_pad=first.auto_pad)
    data = split.in_port(0).get_source()
    assert data is not None
    fused = rw.op(op, data, rw.const(stacked, like=concat), like=concat)
    rw.replace(concat, fused)


def _equal_channel_split(split: Node) -> bool:
    data = split.in_port(0).get_source()
    shape = None if data is None else data.data.shape
    axis = split.in_port(1).constant(shape_derived=False)
    if shape is None or axis is None or axis.size != 1:
        return False
    if int(axis.reshape(-1)[0]) % len(shape) != 1:
        return False
    if isinstance(split.op, VariadicSplit):
        lengths = split.in_port(2).constant(shape_derived=False)
        if lengths is None or len(set(int(v) for v in lengths.reshape(-1))) != 1:
            return False
    return True
