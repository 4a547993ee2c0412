"""Box utilities: box_nms (and the NMS-on-rows building block MultiBoxDetection uses) and
box_decode."""

from __future__ import annotations

import math

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import aliases, const_like, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Abs,
    Add,
    Broadcast,
    Concat,
    Convert,
    CumSum,
    Equal,
    Exp,
    Gather,
    GatherND,
    Greater,
    GreaterEqual,
    LogicalAnd,
    Minimum,
    Multiply,
    NotEqual,
    ReduceMax,
    ReduceMin,
    ReduceSum,
    Reshape,
    ScatterNDUpdate,
    Select,
    ShapeOf,
    Slice,
    Split,
    Subtract,
    TopK,
    Unsqueeze,
)
from irconv_opset.build import shape_of
from irconv_opset.lowering.nms import SUPPRESS_OPS, BoxEncoding, suppress

#: What ``separate_classes`` and ``select_rows`` build, for the extractors using them.
SELECT_ROWS_PRODUCES = (ReduceMax, Abs, Multiply, Add, Unsqueeze, Select, *SUPPRESS_OPS, Gather, GatherND, Equal,
                        Convert, CumSum, ReduceSum, Subtract, Concat, ShapeOf, Broadcast, ScatterNDUpdate)


def separate_classes(ctx: ExtractContext, boxes: OutPort, ids: OutPort) -> OutPort:
    """Boxes [..., A, 4] shifted by their class ids [..., A] past every other class's boxes
    (IoU 0 across classes), so one single-class NMS serves any set of class ids."""
    rank = boxes.data.shape
    axes = list(range(len(rank))) if rank is not None else [0, 1]
    span = ctx.op(ReduceMax(keep_dims=False), ctx.op(Abs(), boxes, suffix="abs"), i64(ctx, axes), suffix="extent")
    span = ctx.op(Add(), ctx.op(Multiply(), span, const_like(ctx, 4, boxes, "four"), suffix="wide"),
                  const_like(ctx, 1, boxes, "one"), suffix="span")
    shift = ctx.op(Unsqueeze(), ctx.op(Multiply(), ids, span, suffix="class_shift"), i64(ctx, [-1]),
                   suffix="class_shift_col")
    return ctx.op(Add(), boxes, shift, suffix="boxes_by_class")


def select_rows(ctx: ExtractContext, rows: OutPort, boxes: OutPort, scores: OutPort, valid: OutPort,
                iou: float, center: bool = False) -> OutPort:
    """Per batch item, the ``rows`` [B, A, W] that NMS keeps (boxes [B, A, 4], scores and
    ``valid`` [B, A]), sorted by score, followed by -1 rows: [B, A, W].

    NonMaxSuppression gives (batch, class, box) triples sorted by score; each kept row is
    scattered to its batch item at its rank among that item's triples.
    """

    shape = rows.data.shape
    assert shape is not None and shape[0] is not None and shape[1] is not None
    batch, count = int(shape[0]), int(shape[1])
    masked = ctx.op(Select(), valid, scores, const_like(ctx, -1e30, scores, "lowest"), suffix="masked_scores")
    selected = suppress(
        ctx,
        boxes,
        ctx.op(Unsqueeze(), masked, i64(ctx, [1]), suffix="nms_scores"),
        i64(ctx, [count], "max_boxes"),
        const_like(ctx, [iou], scores, "iou"),
        const_like(ctx, [-1e29], scores, "score_threshold"),
        encoding=BoxEncoding.CENTER if center else BoxEncoding.CORNER,
        suffix="nms",
    ).out_port(0)
    item_and_box = ctx.op(Gather(), selected, i64(ctx, [0, 2]), i64(ctx, 1, "axis"), suffix="item_box")
    kept = ctx.op(GatherND(), rows, item_and_box, suffix="kept")
    item = ctx.op(Gather(), selected, i64(ctx, [0]), i64(ctx, 1, "axis"), suffix="item")  # [M, 1]
    one_hot = ctx.op(Convert(destination_type=ElementType.i64),
                     ctx.op(Equal(), item, i64(ctx, np.arange(batch)), suffix="is_item"), suffix="one_hot")
    seen = ctx.op(CumSum(), one_hot, i64(ctx, 0, "axis"), suffix="seen")  # [M, B]
    rank = ctx.op(ReduceSum(keep_dims=True), ctx.op(Multiply(), seen, one_hot, suffix="own"), i64(ctx, [1]),
                  suffix="rank_plus_one")
    rank = ctx.op(Subtract(), rank, i64(ctx, 1, "one"), suffix="rank")
    where = ctx.op(Concat(axis=1), item, rank, suffix="where")
    width = shape_of(ctx, rows, "rows_shape")
    empty = ctx.op(Broadcast(), const_like(ctx, -1, rows, "minus_one"), width, suffix="empty")
    return ctx.op(ScatterNDUpdate(), empty, where, kept, suffix="selected_rows")


def box_nms(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """box_nms on rows [..., N, K] (each leading index a batch item): NonMaxSuppression on the boxes at
    ``coord_start``, scored by ``score_index``, per ``id_index`` class unless
    ``force_suppress``; kept rows sorted by score, then -1 rows, in the input's shape.

    Classes are kept apart by shifting each class's boxes past every other's (IoU 0 across
    classes), so a single-class NMS serves any class ids.
    """
    shape = ctx.input_shape(0)
    dims = [d for d in shape if d is not None] if shape is not None else []
    if shape is None or len(shape) < 2 or len(dims) != len(shape):
        raise ConversionError(f"{ctx.where()}: box_nms needs rows [..., N, K] of a static shape, got {shape}")
    count, width = dims[-2], dims[-1]
    batch = math.prod(dims[:-2])
    in_format = ctx.attrs.choice("in_format", ["corner", "center"], "corner")
    out_format = ctx.attrs.choice("out_format", ["corner", "center"], "corner")
    if in_format != out_format:
        raise ctx.attrs.bad("out_format", out_format, "converting box formats is not supported")
    start = ctx.attrs.int("coord_start", 2)
    score_index = ctx.attrs.int("score_index", 1)
    id_index = ctx.attrs.int("id_index", -1)
    background = ctx.attrs.int("background_id", -1)
    topk = ctx.attrs.int("topk", -1)
    x = ctx.input(0)
    rows = ctx.op(Reshape(special_zero=False), x, i64(ctx, [batch, count, width]), suffix="rows")

    def column(index: int, name: str) -> OutPort:
        return ctx.op(Gather(), rows, i64(ctx, index), i64(ctx, 2, "axis"), suffix=name)

    boxes = ctx.op(Slice(), rows, i64(ctx, [start]), i64(ctx, [start + 4]), i64(ctx, [1]), i64(ctx, [2]),
                   suffix="boxes")
    scores = column(score_index, "scores")
    valid = ctx.op(Greater(), scores, const_like(ctx, ctx.attrs.float("valid_thresh", 0.0), x, "valid_thresh"),
                   suffix="valid")
    if id_index >= 0:
        ids = column(id_index, "ids")
        if background >= 0:
            not_background = ctx.op(NotEqual(), ids, const_like(ctx, background, x, "background"), suffix="not_bg")
            valid = ctx.op(LogicalAnd(), valid, not_background, suffix="valid_fg")
        if not ctx.attrs.bool("force_suppress", False):
            boxes = separate_classes(ctx, boxes, ids)
    if 0 < topk < count:
        best = ctx.add(TopK(axis=1, mode="max", sort="value", index_element_type=ElementType.i64),
                       [scores, i64(ctx, topk, "k")], "topk")
        kth = ctx.op(ReduceMin(keep_dims=True), best.out_port(0), i64(ctx, [1]), suffix="kth")
        valid = ctx.op(LogicalAnd(), valid, ctx.op(GreaterEqual(), scores, kth, suffix="in_topk"), suffix="valid_k")
    out = select_rows(ctx, rows, boxes, scores, valid, ctx.attrs.float("overlap_thresh", 0.5),
                      center=in_format == "center")
    return [ctx.op(Reshape(special_zero=False), out, i64(ctx, dims))]


def box_decode(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Offsets [B, N, 4] (scaled by ``std0..3``) applied to anchors [1, N, 4] (corner or
    center format): corner boxes, the size exponent clipped at ``clip`` when positive."""
    x = ctx.input(0)
    stds = [ctx.attrs.float(f"std{i}", 1.0) for i in range(4)]
    a = ctx.add(Split(num_splits=4), [ctx.input(1), i64(ctx, -1, "axis")], "anchor_split")
    d = ctx.add(Split(num_splits=4), [x, i64(ctx, -1, "axis")], "offset_split")
    half = const_like(ctx, 0.5, x, "half")
    if ctx.attrs.choice("format", ["corner", "center"], "center") == "corner":
        left, top, right, bottom = (a.out_port(i) for i in range(4))
        width = ctx.op(Subtract(), right, left, suffix="anchor_w")
        height = ctx.op(Subtract(), bottom, top, suffix="anchor_h")
        cx = ctx.op(Add(), left, ctx.op(Multiply(), width, half, suffix="half_w"), suffix="anchor_cx")
        cy = ctx.op(Add(), top, ctx.op(Multiply(), height, half, suffix="half_h"), suffix="anchor_cy")
    else:
        cx, cy, width, height = (a.out_port(i) for i in range(4))

    def scaled(i: int) -> OutPort:
        port = d.out_port(i)
        return port if stds[i] == 1.0 else ctx.op(Multiply(), port, const_like(ctx, stds[i], x, f"std{i}"),
                                                  suffix=f"d{i}")

    clip = ctx.attrs.float("clip", -1.0)

    def size(i: int, anchor: OutPort) -> OutPort:
        exponent = scaled(i)
        if clip > 0:
            exponent = ctx.op(Minimum(), exponent, const_like(ctx, clip, x, "clip"), suffix=f"clipped{i}")
        return ctx.op(Multiply(), ctx.op(Multiply(), ctx.op(Exp(), exponent, suffix=f"exp{i}"), anchor,
                                         suffix=f"size{i}"), half, suffix=f"half_size{i}")

    ox = ctx.op(Add(), ctx.op(Multiply(), scaled(0), width, suffix="dx"), cx, suffix="ox")
    oy = ctx.op(Add(), ctx.op(Multiply(), scaled(1), height, suffix="dy"), cy, suffix="oy")
    ow, oh = size(2, width), size(3, height)
    corners = [ctx.op(Subtract(), ox, ow, suffix="x1"), ctx.op(Subtract(), oy, oh, suffix="y1"),
               ctx.op(Add(), ox, ow, suffix="x2"), ctx.op(Add(), oy, oh, suffix="y2")]
    return [ctx.op(Concat(axis=-1), *corners)]



BOX_NMS = aliases("mxnet", ["_contrib_box_nms", "_contrib_box_non_maximum_suppression", "box_nms"], box_nms,
                  produces=[Reshape, Gather, Slice, Greater, NotEqual, LogicalAnd, TopK, ReduceMin, GreaterEqual,
                            *SELECT_ROWS_PRODUCES])
BOX_DECODE = aliases("mxnet", ["_contrib_box_decode", "box_decode"], box_decode,
                     produces=[Split, Subtract, Add, Multiply, Minimum, Exp, Concat])
