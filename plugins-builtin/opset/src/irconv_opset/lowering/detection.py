"""Detection lowerings every front end shares: Faster R-CNN's region proposals.

Caffe's Proposal layer (and py-faster-rcnn's Python one) and MXNet's ``_contrib_Proposal``
generate py-faster-rcnn's anchors and decode boxes the same way up to MXNet's delta
adjustment, which its front end makes before calling :func:`proposal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from irconv.ops import Op

from irconv_opset import Proposal

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import Node, OutPort


@dataclass(frozen=True)
class ProposalSettings:
    """What a region-proposal layer reads from its framework's attributes."""

    base_size: int
    pre_nms_topn: int
    post_nms_topn: int
    nms_thresh: float
    feat_stride: int
    min_size: int
    ratios: tuple[float, ...]
    scales: tuple[float, ...]


def proposal(
    ctx: ExtractContext, settings: ProposalSettings, scores: OutPort, deltas: OutPort, image_info: OutPort
) -> Node:
    """Proposal-4 over ``scores`` [N, 2A, H, W] and ``deltas`` [N, 4A, H, W], with
    ``image_info`` the 1-D [height, width, scale(s)] of the image. Boxes are clipped to the
    image before NMS, in pixels (not normalised), as py-faster-rcnn does. Output 0 holds the
    boxes, output 1 their scores."""
    op = Proposal(
        base_size=settings.base_size,
        pre_nms_topn=settings.pre_nms_topn,
        post_nms_topn=settings.post_nms_topn,
        nms_thresh=settings.nms_thresh,
        feat_stride=settings.feat_stride,
        min_size=settings.min_size,
        ratio=list(settings.ratios),
        scale=list(settings.scales),
        clip_before_nms=True,
        clip_after_nms=False,
        normalize=False,
        box_size_scale=1.0,
        box_coordinate_scale=1.0,
        framework="",
    )
    return ctx.add(op, [scores, deltas, image_info], suffix="proposal")


PROPOSAL_OPS: tuple[type[Op], ...] = (Proposal,)
