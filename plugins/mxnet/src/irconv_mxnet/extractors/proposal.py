"""``_contrib_Proposal`` (Faster R-CNN's RPN) as Proposal-4, made exact by adjusting the deltas.

Both generate the same anchors (py-faster-rcnn's, base size ``feature_stride``), but they
decode differently: for an anchor of width ``w`` MXNet puts the box at
``ctr ± (exp(dw) * w - 1) / 2`` around ``ctr = x1 + (w - 1) / 2``, while Proposal-4 uses
``ctr' ± exp(dw') * w / 2`` around ``ctr' = x1 + w / 2`` and then counts ``x2 - x1 + 1`` as
the width. With ``dx' = dx - 0.5 / w`` and ``dw' = log(exp(dw) - 1 / w)`` (and the same for
y/h) Proposal-4 produces MXNet's boxes, and its size filter and NMS see MXNet's widths.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, const_like, i64, require_rank
from irconv.graph import Node, OutPort
from irconv_opset import (
    Concat,
    Equal,
    Exp,
    FloorMod,
    Gather,
    Log,
    Maximum,
    ReduceMin,
    Reshape,
    Select,
    ShapeOf,
    Split,
    Subtract,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.detection import PROPOSAL_OPS, ProposalSettings
from irconv_opset.lowering.detection import proposal as lower_proposal


def anchor_sizes(stride: int, ratios: list[float], scales: list[float]) -> np.ndarray:
    """[A, 2] widths and heights of the anchors, ratio-major as MXNet enumerates them."""
    sizes = []
    area = float(stride * stride)
    for ratio in ratios:
        width = np.floor(np.sqrt(np.floor(area / ratio)) + 0.5)
        height = np.floor(width * ratio + 0.5)
        sizes += [(width * scale, height * scale) for scale in scales]
    return np.asarray(sizes, np.float64)


def _adjusted_deltas(ctx: ExtractContext, deltas: OutPort, sizes: np.ndarray) -> OutPort:
    """[N, 4A, H, W] deltas (dx, dy, dw, dh per anchor) re-expressed for Proposal-4."""
    anchors = len(sizes)
    grouped = ctx.op(Reshape(special_zero=True), deltas, i64(ctx, [0, anchors, 4, -1], "grouped"),
                     suffix="grouped")
    parts = ctx.add(Split(num_splits=4), [grouped, i64(ctx, 2, "axis")], "split")
    inverse = 1.0 / sizes  # [A, 2]

    def per_anchor(values: np.ndarray, name: str) -> OutPort:
        return const_like(ctx, values.reshape(1, anchors, 1, 1), deltas, name)

    dx = ctx.op(Subtract(), parts.out_port(0), per_anchor(0.5 * inverse[:, 0], "half_inv_w"), suffix="dx")
    dy = ctx.op(Subtract(), parts.out_port(1), per_anchor(0.5 * inverse[:, 1], "half_inv_h"), suffix="dy")
    tiny = const_like(ctx, 1e-12, deltas, "tiny")

    def log_size(port: OutPort, inv: np.ndarray, name: str) -> OutPort:
        shrunk = ctx.op(Subtract(), ctx.op(Exp(), port, suffix=f"{name}_exp"), per_anchor(inv, f"inv_{name}"),
                        suffix=f"{name}_minus_one")
        return ctx.op(Log(), ctx.op(Maximum(), shrunk, tiny, suffix=f"{name}_positive"), suffix=name)

    dw = log_size(parts.out_port(2), inverse[:, 0], "dw")
    dh = log_size(parts.out_port(3), inverse[:, 1], "dh")
    joined = ctx.op(Concat(axis=2), dx, dy, dw, dh, suffix="adjusted")
    return ctx.op(Reshape(special_zero=False), joined, shape_of(ctx, deltas, "deltas_shape"), suffix="deltas")


def proposal(node: Node, ctx: ExtractContext) -> list[OutPort]:
    if ctx.attrs.bool("iou_loss", False):
        raise ctx.attrs.bad("iou_loss", True, "IoU-loss box deltas are not supported")
    if require_rank(ctx) != 4:
        raise ConversionError(f"{ctx.where()}: cls_prob must be [N, 2A, H, W], got {ctx.input_shape(0)}")
    info = ctx.input_shape(2)
    if info is None or len(info) != 2 or info[0] != 1:
        raise ConversionError(f"{ctx.where()}: Proposal needs im_info of shape [1, 3] (batch 1), got {info}")
    stride = ctx.attrs.int("feature_stride", 16)
    ratios = ctx.attrs.floats("ratios", [0.5, 1.0, 2.0])
    scales = ctx.attrs.floats("scales", [4.0, 8.0, 16.0, 32.0])
    settings = ProposalSettings(
        base_size=stride,
        pre_nms_topn=ctx.attrs.int("rpn_pre_nms_top_n", 6000),
        post_nms_topn=ctx.attrs.int("rpn_post_nms_top_n", 300),
        nms_thresh=ctx.attrs.float("threshold", 0.7),
        feat_stride=stride,
        min_size=ctx.attrs.int("rpn_min_size", 16),
        ratios=tuple(ratios),
        scales=tuple(scales),
    )
    deltas = _adjusted_deltas(ctx, ctx.input(1), anchor_sizes(stride, ratios, scales))
    # Proposal-4 takes one image's [height, width, scale]: MXNet's im_info is [1, 3].
    image = ctx.op(Reshape(special_zero=False), ctx.input(2), i64(ctx, [-1], "flat"), suffix="image_info")
    found = lower_proposal(ctx, settings, ctx.input(0), deltas, image)
    order = _cycled_rows(ctx, found.out_port(0), settings.post_nms_topn)
    rois = ctx.op(Gather(), found.out_port(0), order, i64(ctx, 0, "axis"), suffix="rois")
    if not ctx.attrs.bool("output_score", False):
        return [rois]
    scores = ctx.op(Gather(), found.out_port(1), order, i64(ctx, 0, "axis"), suffix="scores")
    return [rois, ctx.op(Reshape(special_zero=False), scores, i64(ctx, [-1, 1], "column"))]


def _cycled_rows(ctx: ExtractContext, rois: OutPort, rows: int) -> OutPort:
    """Row indices that repeat the kept proposals to fill all ``rows``, as MXNet does
    (Proposal-4 ends the kept ones with a row whose batch index is -1, then zeros)."""
    batch_index = ctx.op(Gather(), rois, i64(ctx, 0), i64(ctx, 1, "axis"), suffix="batch_index")
    ended = ctx.op(Equal(), batch_index, const_like(ctx, -1, rois, "end_marker"), suffix="ended")
    positions = i64(ctx, np.arange(rows), "positions")
    kept = ctx.op(ReduceMin(keep_dims=False),
                  ctx.op(Select(), ended, positions, i64(ctx, rows, "all_rows"), suffix="end_positions"),
                  i64(ctx, [0], "axis0"), suffix="kept")
    kept = ctx.op(Maximum(), kept, i64(ctx, 1, "at_least_one"), suffix="kept_nonzero")
    return ctx.op(FloorMod(), positions, kept, suffix="cycled")



PROPOSAL = aliases("mxnet", ["_contrib_Proposal", "Proposal"], proposal,
                   produces=[Reshape, Split, Subtract, Exp, Maximum, Log, Concat, ShapeOf, *PROPOSAL_OPS, Gather, Equal,
                             Select, ReduceMin, FloorMod])
