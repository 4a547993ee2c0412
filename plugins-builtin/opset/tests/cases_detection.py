"""Cases for the detection family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    DetectionOutput,
    DetectionOutput_v1,
    GenerateProposals,
    MatrixNms,
    MulticlassNms,
    MulticlassNms_v8,
    NonMaxSuppression,
    NonMaxSuppression_v1,
    NonMaxSuppression_v3,
    NonMaxSuppression_v4,
    NonMaxSuppression_v5,
    PriorBox,
    PriorBox_v1,
    PriorBoxClustered,
    Proposal,
    Proposal_v1,
    RegionYolo,
    ReorgYolo,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(13)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def sizes(*values: int, dtype: type = np.int64):  # type: ignore[no-untyped-def]
    return const(np.array(values, dtype))


# Six unit-spaced boxes per image, pairwise disjoint (IoU 0).
DISJOINT_BOXES = np.tile(np.array([[i, 0.0, i + 0.5, 0.5] for i in range(6)], np.float32), (2, 1, 1))

CASES: list[OpCase] = [
    # SSD300 conv4_3-like priors (Caffe: min 30, max 60, ratio 2, flip, step 8, offset 0.5).
    OpCase(
        PriorBox_v1(
            min_size=(30.0,),
            max_size=(60.0,),
            aspect_ratio=(2.0,),
            flip=True,
            clip=False,
            step=8.0,
            offset=0.5,
            variance=(0.1, 0.1, 0.2, 0.2),
        ),
        [sizes(38, 38), sizes(300, 300)],
        id="priorbox1_ssd_conv4",
    ),
    OpCase(
        PriorBox_v1(min_size=(162.0,), max_size=(213.0,), aspect_ratio=(2.0, 3.0), flip=True, clip=True, offset=0.5),
        [sizes(3, 3), sizes(300, 300)],
        id="priorbox1_no_step_clip",
    ),
    OpCase(
        PriorBox_v1(
            min_size=(16.0, 32.0),
            max_size=(),
            aspect_ratio=(2.0, 0.5, 2.0),
            flip=False,
            step=16.0,
            offset=0.5,
            scale_all_sizes=False,
            variance=(0.1,),
        ),
        [sizes(4, 5, dtype=np.int32), sizes(64, 80, dtype=np.int32)],
        id="priorbox1_mxnet_like",
    ),
    OpCase(
        PriorBox(
            min_size=(30.0,),
            max_size=(60.0,),
            aspect_ratio=(2.0, 3.0),
            flip=True,
            step=8.0,
            offset=0.5,
            variance=(0.1, 0.1, 0.2, 0.2),
            min_max_aspect_ratios_order=False,
        ),
        [sizes(5, 4), sizes(40, 32)],
        id="priorbox8_ratios_first",
    ),
    OpCase(
        PriorBox(
            min_size=(),
            aspect_ratio=(2.0,),
            flip=False,
            step=32.0,
            offset=0.5,
            fixed_size=(32.0,),
            density=(2.0,),
            variance=(0.1, 0.1, 0.2, 0.2),
        ),
        [sizes(3, 3), sizes(96, 96)],
        id="priorbox8_fixed_size_density",
    ),
    OpCase(
        PriorBox(
            min_size=(),
            step=16.0,
            offset=0.5,
            fixed_size=(16.0, 48.0),
            fixed_ratio=(2.0,),
            density=(1.0, 3.0),
            clip=True,
        ),
        [sizes(2, 3), sizes(32, 48)],
        id="priorbox8_fixed_ratio",
    ),
    OpCase(
        PriorBoxClustered(
            width=(9.4, 25.1, 14.7),
            height=(15.0, 39.6, 25.5),
            clip=False,
            step_w=16.0,
            step_h=16.0,
            offset=0.5,
            variance=(0.1, 0.1, 0.2, 0.2),
        ),
        [sizes(4, 6), sizes(64, 96)],
        id="priorbox_clustered",
    ),
    OpCase(
        PriorBoxClustered(width=(20.0, 40.0), height=(30.0, 10.0), clip=True, offset=0.5, variance=(0.2,)),
        [sizes(3, 3), sizes(60, 40)],
        id="priorbox_clustered_no_step",
    ),
    OpCase(
        DetectionOutput(keep_top_k=(20,), top_k=50, nms_threshold=0.45, confidence_threshold=0.01, normalized=True),
        [tensor(2, 8 * 4), tensor(2, 8 * 3), const(rng.random((1, 2, 8 * 4)).astype(np.float32))],
        id="detection_output8_keep",
        check_values=False,
    ),
    OpCase(
        DetectionOutput(keep_top_k=(-1,), top_k=5, nms_threshold=0.45, normalized=False),
        [tensor(1, 6 * 4), tensor(1, 6 * 4), const(rng.random((1, 2, 6 * 5)).astype(np.float32))],
        id="detection_output8_top_k",
        check_values=False,
    ),
    OpCase(
        DetectionOutput_v1(num_classes=3, keep_top_k=(-1,), top_k=-1, nms_threshold=0.45, normalized=True),
        [tensor(1, 8 * 4), tensor(1, 8 * 3), const(rng.random((1, 2, 8 * 4)).astype(np.float32))],
        id="detection_output1",
        check_values=False,
    ),
    OpCase(
        RegionYolo(coords=4, classes=20, num=5, do_softmax=True, axis=1, end_axis=3),
        [tensor(1, 125, 13, 13)],
        id="region_yolo_v2",
        check_values=False,
    ),
    OpCase(
        RegionYolo(coords=4, classes=80, num=9, do_softmax=False, mask=(0, 1, 2), axis=1, end_axis=3),
        [tensor(1, 255, 13, 13)],
        id="region_yolo_v3",
        check_values=False,
    ),
    OpCase(ReorgYolo(stride=(2, 2)), [tensor(1, 64, 26, 26)], id="reorg_yolo", check_values=False),
    OpCase(
        Proposal(
            base_size=16,
            pre_nms_topn=100,
            post_nms_topn=20,
            nms_thresh=0.7,
            feat_stride=16,
            min_size=16,
            ratio=(0.5, 1.0, 2.0),
            scale=(8.0, 16.0, 32.0),
        ),
        [tensor(1, 18, 6, 8), tensor(1, 36, 6, 8), const(np.array([96, 128, 1], np.float32))],
        id="proposal",
        check_values=False,
    ),
    OpCase(
        GenerateProposals(min_size=1.0, nms_threshold=0.7, pre_nms_count=100, post_nms_count=20, normalized=False,
                          roi_num_type="i32"),
        [const(np.array([[64, 80, 1], [48, 64, 1]], np.float32)), const(np.abs(tensor(4, 5, 3, 4)) * 8),
         tensor(2, 12, 4, 5), tensor(2, 3, 4, 5)],
        id="generate_proposals",
        check_values=False,
    ),
    OpCase(
        NonMaxSuppression(box_encoding="center", output_type="i32"),
        [
            rng.random((1, 6, 4)).astype(np.float32),
            rng.random((1, 2, 6)).astype(np.float32),
            const(np.int64(3)),
            const(np.float32(0.5)),
            const(np.float32(0.1)),
        ],
        id="nms",
        check_values=False,
        dynamic=False,  # the CPU plugin needs a static boxes shape
    ),
    OpCase(
        Proposal_v1(
            base_size=16,
            pre_nms_topn=50,
            post_nms_topn=10,
            nms_thresh=0.7,
            feat_stride=16,
            min_size=16,
            ratio=(1.0,),
            scale=(8.0, 16.0),
            framework="tensorflow",
        ),
        [tensor(1, 4, 5, 5), tensor(1, 8, 5, 5), const(np.array([80, 80, 1], np.float32))],
        id="proposal_v1",
        check_values=False,
    ),
    # Boxes that never overlap, so every box survives and the row count is deterministic.
    # Versions 1 and 3 declare min(boxes, limit * classes) rows, but the CPU plugin returns
    # batches * classes * min(boxes, limit) rows (the version-4 count): one batch and one
    # class keep both counts equal so the runtime can check the declared shape.
    *(
        OpCase(
            version(**attrs),
            [
                DISJOINT_BOXES[:batches],
                rng.random((batches, classes, 6)).astype(np.float32),
                const(np.int64(limit)),
                const(np.float32(0.5)),
            ],
            id=f"nms_{version.version}_limit{limit}",
            check_values=False,
            dynamic=False,  # the CPU plugin needs a static boxes shape
        )
        for version, attrs, batches, classes in (
            (NonMaxSuppression_v1, {}, 1, 1),
            (NonMaxSuppression_v3, {"output_type": "i32"}, 1, 1),
            (NonMaxSuppression_v4, {}, 2, 3),
            (NonMaxSuppression_v5, {"sort_result_descending": False}, 2, 3),
        )
        for limit in (2, 10)
    ),
    OpCase(
        MatrixNms(sort_result_type="score", output_type="i32", keep_top_k=5, decay_function="gaussian"),
        [DISJOINT_BOXES, rng.random((2, 3, 6)).astype(np.float32)],
        id="matrix_nms",
        check_values=False,
        dynamic=False,  # the CPU plugin needs static boxes shapes
    ),
    OpCase(
        MulticlassNms_v8(sort_result_type="classid", iou_threshold=0.5, background_class=0),
        [DISJOINT_BOXES, rng.random((2, 3, 6)).astype(np.float32)],
        id="multiclass_nms8",
        check_values=False,
        dynamic=False,  # the CPU plugin needs static boxes shapes
    ),
    OpCase(
        MulticlassNms(iou_threshold=0.5, output_type="i32"),
        [
            DISJOINT_BOXES[:1].repeat(3, axis=0),
            rng.random((3, 6)).astype(np.float32),
            const(np.array([2, 4], np.int32)),
        ],
        id="multiclass_nms9_rois_num",
        check_values=False,
        dynamic=False,  # the CPU plugin needs static boxes shapes
    ),
]
