"""Object-detection ops: prior boxes, SSD/YOLO heads, proposals and NMS.

The prior-box generators live in ``_priors`` (they carry the folding arithmetic) and are
listed here with the rest of the family.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.ops import Op, attr
from irconv.types import Dim, ElementType, MaybeShape, format_shape

from irconv_opset.ops._attrs import INDEX_TYPES, CoercedAttrs
from irconv_opset.ops._priors import PriorBox, PriorBox_v1, PriorBoxClustered
from irconv_opset.ops._spatial import input_shape, input_type, set_output
from irconv_opset.rules import require_rank
from irconv_opset.shapes import in_value

if TYPE_CHECKING:
    from irconv.graph import Node


class CodeType(str, enum.Enum):
    corner = "caffe.PriorBoxParameter.CORNER"
    center_size = "caffe.PriorBoxParameter.CENTER_SIZE"
    corner_size = "caffe.PriorBoxParameter.CORNER_SIZE"


@dataclass(eq=False)
class DetectionOutput(CoercedAttrs, Op):
    """DetectionOutput-8: SSD box decoding + NMS -> [1, 1, N, 7] rows (image, label, conf, x1, y1, x2, y2).

    Inputs: box_logits [B, P*4 (or P*C*4)], class_preds [B, P*C], proposals [1 or B, 1 or 2,
    P*4 (normalized) or P*5], optional aux class/box predictions.
    """

    type = "DetectionOutput"
    version = 8
    arity = (3, 5)

    background_label_id: int = attr(0)
    top_k: int = attr(-1)
    variance_encoded_in_target: bool = attr(False)
    keep_top_k: tuple[int, ...] = attr((-1,))
    #: the runtime refuses ``CORNER_SIZE``, which Caffe declares
    code_type: CodeType = attr(CodeType.corner, choices=(CodeType.corner, CodeType.center_size))
    share_location: bool = attr(True)
    nms_threshold: float = attr(0.0)
    confidence_threshold: float = attr(0.0)
    clip_after_nms: bool = attr(False)
    clip_before_nms: bool = attr(False)
    decrease_label_id: bool = attr(False)
    normalized: bool = attr(False)
    input_height: int = attr(1)
    input_width: int = attr(1)
    objectness_score: float = attr(0.0)

    def _classes(self, node: Node, priors: Dim) -> Dim:
        preds = input_shape(node, 1)
        if preds is None or preds[-1] is None or not priors:
            return None
        return preds[-1] // priors

    def infer(self, node: Node) -> None:
        boxes, proposals = input_shape(node, 0), input_shape(node, 2)
        batch = boxes[0] if boxes else None
        priors: Dim = None
        if proposals is not None and proposals[-1] is not None:
            priors = proposals[-1] // (4 if self.normalized else 5)
        self._require_layout(node, boxes, proposals, priors)
        rows: Dim = None
        keep = self.keep_top_k[0] if self.keep_top_k else -1
        if batch is not None:
            if keep > 0:
                rows = batch * keep
            else:
                classes = self._classes(node, priors)
                per_class = self.top_k if self.top_k > 0 else priors
                rows = None if classes is None or per_class is None else batch * per_class * classes
        set_output(node, 0, (1, 1, rows, 7), input_type(node, 0))

    def _require_layout(self, node: Node, boxes: MaybeShape, proposals: MaybeShape, priors: Dim) -> None:
        """The runtime's rules on how the attributes lay the inputs out: proposals hold
        ``prior_box_size`` (4 normalized, else 5) numbers per prior, and a second row of
        variances unless they are encoded in the target; box logits hold 4 numbers per prior
        (per prior and class without ``share_location``)."""
        size = 4 if self.normalized else 5
        rows = 1 if self.variance_encoded_in_target else 2
        problem = ""
        if proposals is not None and len(proposals) == 3:
            if proposals[2] is not None and proposals[2] % size:
                problem = (
                    f"the proposals' last dim {proposals[2]} is not a multiple of {size} (normalized={self.normalized})"
                )
            elif proposals[1] is not None and proposals[1] != rows:
                problem = (
                    f"the proposals have {proposals[1]} row(s), variance_encoded_in_target="
                    f"{self.variance_encoded_in_target} needs {rows}"
                )
        classes = 1 if self.share_location else self._classes(node, priors)
        if (not problem and boxes is not None and len(boxes) == 2 and boxes[1] is not None
                and priors is not None and classes is not None):
            expected = priors * classes * 4
            if boxes[1] != expected:
                problem = (
                    f"the box logits have {boxes[1]} values per image, share_location={self.share_location} "
                    f"needs {expected}"
                )
        if problem:
            raise ConversionError(f"node {quoted(node.name)} ({self.describe()}): {problem}")


@dataclass(eq=False)
class DetectionOutput_v1(DetectionOutput):
    """DetectionOutput-1: as version 8 with an explicit ``num_classes``."""

    type = "DetectionOutput"
    version = 1

    num_classes: int = attr(1)

    def _classes(self, node: Node, priors: Dim) -> Dim:
        return self.num_classes


@dataclass(eq=False)
class RegionYolo(CoercedAttrs, Op):
    """RegionYolo-1: YOLO detection head; flattens axes [axis, end_axis] when ``do_softmax``."""

    type = "RegionYolo"
    version = 1
    arity = (1, 1)

    coords: int = attr(4)
    classes: int = attr(1)
    num: int = attr(1)
    do_softmax: bool = attr(True)
    mask: tuple[int, ...] = attr(())
    axis: int = attr(1)
    end_axis: int = attr(3)
    anchors: tuple[float, ...] = attr(())

    def infer(self, node: Node) -> None:
        data = input_shape(node, 0)
        if data is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        rank = len(data)
        if self.do_softmax:
            first = self.axis % rank
            last = self.end_axis % rank
            span = data[first : last + 1]
            known = [d for d in span if d is not None]
            merged = int(np.prod(known)) if len(known) == len(span) else None
            shape = (*data[:first], merged, *data[last + 1 :])
        else:
            shape = (data[0], (self.classes + self.coords + 1) * len(self.mask), *data[2:])
        set_output(node, 0, shape, input_type(node, 0))


@dataclass(eq=False)
class ReorgYolo(CoercedAttrs, Op):
    """ReorgYolo-2: [N, C, H, W] -> [N, C*stride², H/stride, W/stride]."""

    type = "ReorgYolo"
    version = 2
    arity = (1, 1)

    stride: tuple[int, ...] = attr((2, 2))

    def infer(self, node: Node) -> None:
        data = input_shape(node, 0)
        if data is None:
            set_output(node, 0, None, input_type(node, 0))
            return
        s = self.stride[0]
        shape = (
            data[0],
            None if data[1] is None else data[1] * s * s,
            *(None if d is None else d // s for d in data[2:]),
        )
        set_output(node, 0, shape, input_type(node, 0))


@dataclass(eq=False)
class Proposal_v1(CoercedAttrs, Op):
    """Proposal-1: region proposals [B*post_nms_topn, 5] (batch index, x1, y1, x2, y2)."""

    type = "Proposal"
    version = 1
    arity = (3, 3)

    base_size: int = attr(1)
    pre_nms_topn: int = attr(1)
    post_nms_topn: int = attr(1)
    nms_thresh: float = attr(0.0)
    feat_stride: int = attr(1)
    min_size: int = attr(1)
    ratio: tuple[float, ...] = attr(())
    scale: tuple[float, ...] = attr(())
    clip_before_nms: bool = attr(True)
    clip_after_nms: bool = attr(False)
    normalize: bool = attr(False)
    box_size_scale: float = attr(1.0)
    box_coordinate_scale: float = attr(1.0)
    framework: str = attr("", choices=("", "tensorflow"))

    def _rows(self, node: Node) -> Dim:
        scores = input_shape(node, 0)
        batch = scores[0] if scores else None
        return None if batch is None else batch * self.post_nms_topn

    def infer(self, node: Node) -> None:
        set_output(node, 0, (self._rows(node), 5), input_type(node, 0))


@dataclass(eq=False)
class Proposal(Proposal_v1):
    """Proposal-4: adds a second output, the proposals' scores [B*post_nms_topn]."""

    type = "Proposal"
    version = 4
    outputs = 2

    def infer(self, node: Node) -> None:
        rows = self._rows(node)
        set_output(node, 0, (rows, 5), input_type(node, 0))
        set_output(node, 1, (rows,), input_type(node, 0))


@dataclass(eq=False)
class GenerateProposals(CoercedAttrs, Op):
    """GenerateProposals-9: per image, proposals from anchors [H, W, A, 4] moved by deltas
    [N, 4A, H, W] and scored by scores [N, A, H, W], clipped to im_info [N, 3 or 4]
    (height, width, scales), the small ones dropped, then NMS: the kept boxes [R, 4], their
    scores [R] and how many each image has [N] (R at most N * post_nms_count)."""

    type = "GenerateProposals"
    version = 9
    outputs = 3
    arity = (4, 4)

    min_size: float = attr(0.0)
    nms_threshold: float = attr(0.0)
    pre_nms_count: int = attr(1)
    post_nms_count: int = attr(1)
    normalized: bool = attr(True)
    nms_eta: float = attr(1.0)
    roi_num_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)

    def infer(self, node: Node) -> None:
        scores = input_shape(node, 3)
        images = scores[0] if scores else None
        set_output(node, 0, (None, 4), input_type(node, 2))
        set_output(node, 1, (None,), input_type(node, 2))
        set_output(node, 2, (images,), self.roi_num_type)


class DecayFunction(str, enum.Enum):
    linear = "linear"
    gaussian = "gaussian"


class BoxEncoding(enum.Enum):
    corner = "corner"
    center = "center"


def _nms_counts(node: Node) -> tuple[Dim, Dim, Dim, int | None]:
    """(batches, classes, boxes, max_output_boxes_per_class or None when not constant)."""
    boxes, scores = input_shape(node, 0), input_shape(node, 1)
    batches = boxes[0] if boxes else None
    count = boxes[1] if boxes else None
    classes = scores[1] if scores else None
    limit = in_value(node, 2) if node.num_inputs() > 2 else None
    return batches, classes, count, None if limit is None else int(np.asarray(limit).reshape(-1)[0])


def require_nms_boxes(node: Node) -> None:
    """The runtime's NonMaxSuppression rules: boxes [batches, boxes, 4] and scores
    [batches, classes, boxes], the batches and box counts shared."""
    require_rank(node, 0, "boxes", 3)
    require_rank(node, 1, "scores", 3)
    boxes, scores = input_shape(node, 0), input_shape(node, 1)
    if boxes is not None and boxes[2] not in (None, 4):
        raise ConversionError(
            f"node {quoted(node.name)} ({node.op.describe()}): input 0 (boxes) has {boxes[2]} coordinates per box "
            f"(shape {format_shape(boxes)}), expected 4"
        )
    if boxes is None or scores is None:
        return
    for what, box_dim, score_dim in (("batches", boxes[0], scores[0]), ("boxes", boxes[1], scores[2])):
        if box_dim is not None and score_dim is not None and box_dim != score_dim:
            raise ConversionError(
                f"node {quoted(node.name)} ({node.op.describe()}): the boxes {format_shape(boxes)} and the scores "
                f"{format_shape(scores)} disagree on the number of {what}"
            )


@dataclass(eq=False)
class NonMaxSuppression_v1(CoercedAttrs, Op):
    """NonMaxSuppression-1: selected (batch, class, box) triples, -1-padded to a static count."""

    type = "NonMaxSuppression"
    version = 1
    arity = (2, 5)

    box_encoding: BoxEncoding = attr(BoxEncoding.corner)
    sort_result_descending: bool = attr(True)

    def _index_type(self) -> ElementType:
        return ElementType.i64

    def _selected(self, node: Node) -> Dim:
        # Versions 1 and 3 size the output as min(boxes, max_output_boxes_per_class * classes).
        _, classes, count, limit = _nms_counts(node)
        if limit is None or classes is None or count is None:
            return None
        return min(count, limit * classes)

    def infer(self, node: Node) -> None:
        require_nms_boxes(node)
        set_output(node, 0, (self._selected(node), 3), self._index_type())


@dataclass(eq=False)
class NonMaxSuppression_v3(NonMaxSuppression_v1):
    """NonMaxSuppression-3: adds ``output_type``."""

    type = "NonMaxSuppression"
    version = 3

    output_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)

    def _index_type(self) -> ElementType:
        return self.output_type


@dataclass(eq=False)
class NonMaxSuppression_v4(NonMaxSuppression_v3):
    """NonMaxSuppression-4: output sized batches * classes * min(boxes, max_output_boxes_per_class)."""

    type = "NonMaxSuppression"
    version = 4

    def _selected(self, node: Node) -> Dim:
        batches, classes, count, limit = _nms_counts(node)
        if limit is None or batches is None or classes is None or count is None:
            return None
        return batches * classes * min(count, limit)


@dataclass(eq=False)
class NonMaxSuppression_v5(NonMaxSuppression_v3):
    """NonMaxSuppression-5: soft-NMS input; outputs selected indices, their scores, and their count."""

    type = "NonMaxSuppression"
    version = 5
    arity = (2, 6)
    outputs = 3

    def infer(self, node: Node) -> None:
        require_nms_boxes(node)
        # How many boxes survive is only known at run time.
        scores_type = input_type(node, 1)
        set_output(node, 0, (None, 3), self.output_type)
        set_output(node, 1, (None, 3), scores_type if scores_type.is_float else ElementType.f32)
        set_output(node, 2, (1,), self.output_type)


@dataclass(eq=False)
class NonMaxSuppression(NonMaxSuppression_v5):
    """NonMaxSuppression-9: as version 5 (the runtime's newer implementation)."""

    type = "NonMaxSuppression"
    version = 9
    arity = (2, 6)


class SortResultType(str, enum.Enum):
    score = "score"
    classid = "classid"
    none = "none"


@dataclass(eq=False)
class MatrixNms(CoercedAttrs, Op):
    """MatrixNms-8: boxes [N, M, 4], scores [N, C, M] -> selected rows [?, 6] (class, score,
    x1, y1, x2, y2), their indices [?, 1] and the count per image [N]."""

    type = "MatrixNms"
    version = 8
    arity = (2, 2)
    outputs = 3

    sort_result_type: SortResultType = attr(SortResultType.none)
    sort_result_across_batch: bool = attr(False)
    output_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)
    score_threshold: float = attr(0.0)
    nms_top_k: int = attr(-1)
    keep_top_k: int = attr(-1)
    background_class: int = attr(-1)
    decay_function: DecayFunction = attr(DecayFunction.linear)
    gaussian_sigma: float = attr(2.0)
    post_threshold: float = attr(0.0)
    normalized: bool = attr(True)

    def _images(self, node: Node) -> Dim:
        boxes = input_shape(node, 0)
        return boxes[0] if boxes else None

    def infer(self, node: Node) -> None:
        # How many boxes survive is only known at run time.
        set_output(node, 0, (None, 6), input_type(node, 0))
        set_output(node, 1, (None, 1), self.output_type)
        set_output(node, 2, (self._images(node),), self.output_type)


@dataclass(eq=False)
class MulticlassNms_v8(CoercedAttrs, Op):
    """MulticlassNms-8: per-class NMS over boxes [N, M, 4] and scores [N, C, M]; outputs as MatrixNms."""

    type = "MulticlassNms"
    version = 8
    arity = (2, 2)
    outputs = 3

    sort_result_type: SortResultType = attr(SortResultType.none)
    sort_result_across_batch: bool = attr(False)
    output_type: ElementType = attr(ElementType.i64, choices=INDEX_TYPES)
    iou_threshold: float = attr(0.0)
    score_threshold: float = attr(0.0)
    nms_top_k: int = attr(-1)
    keep_top_k: int = attr(-1)
    background_class: int = attr(-1)
    nms_eta: float = attr(1.0)
    normalized: bool = attr(True)

    def _images(self, node: Node) -> Dim:
        boxes = input_shape(node, 0)
        return boxes[0] if boxes else None

    def infer(self, node: Node) -> None:
        set_output(node, 0, (None, 6), input_type(node, 0))
        set_output(node, 1, (None, 1), self.output_type)
        set_output(node, 2, (self._images(node),), self.output_type)


@dataclass(eq=False)
class MulticlassNms(MulticlassNms_v8):
    """MulticlassNms-9: also boxes [C, M, 4], scores [C, M] with a third input roisnum [N]."""

    type = "MulticlassNms"
    version = 9
    arity = (2, 3)

    def _images(self, node: Node) -> Dim:
        if node.num_inputs() > 2 and node.has_input(2):
            rois = input_shape(node, 2)
            return rois[0] if rois else None
        return super()._images(node)


OPS: tuple[type[Op], ...] = (
    PriorBox_v1,
    PriorBox,
    PriorBoxClustered,
    DetectionOutput_v1,
    DetectionOutput,
    RegionYolo,
    ReorgYolo,
    Proposal_v1,
    Proposal,
    GenerateProposals,
    NonMaxSuppression_v1,
    NonMaxSuppression_v3,
    NonMaxSuppression_v4,
    NonMaxSuppression_v5,
    NonMaxSuppression,
    MatrixNms,
    MulticlassNms_v8,
    MulticlassNms,
)
