"""Shape inference of the opB families on partially dynamic inputs, against OpenVINO's own.

The runtime harness (``test_ops_runtime.py``) runs each case fully static and fully
dynamic; here the inputs mix known and unknown dimensions (and unknown ranks), and the
oracle is the output partial shape OpenVINO's node factory infers for the same op and
attributes.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import numpy as np
import pytest
from irconv.ops import Op
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv.types import ElementType, MaybeShape
from irconv_opset import (
    AdaptiveAvgPool,
    AdaptiveMaxPool,
    AvgPool,
    Convolution,
    ConvolutionBackpropData,
    CTCGreedyDecoder,
    CTCGreedyDecoderSeqLen,
    DeformableConvolution,
    DetectionOutput,
    Einsum,
    FakeQuantize,
    GridSample,
    GroupConvolution,
    GroupConvolutionBackpropData,
    GRUCell,
    GRUSequence,
    Interpolate,
    Interpolate_v4,
    LSTMCell,
    LSTMSequence,
    MatMul,
    MatrixNms,
    MaxPool,
    MulticlassNms,
    NonMaxSuppression,
    NonMaxSuppression_v1,
    NonMaxSuppression_v3,
    NonMaxSuppression_v4,
    PriorBox,
    PriorBoxClustered,
    Proposal,
    PSROIPooling,
    RegionYolo,
    ReorgYolo,
    RNNCell,
    ROIAlign,
    ROIPooling,
    ScaledDotProductAttention,
)

F32 = np.float32


@dataclasses.dataclass
class Shaped:
    """A Parameter input of the given (partial) shape; ``shape=None`` is a dynamic rank."""

    shape: MaybeShape
    dtype: type = F32


def w(*shape: int) -> np.ndarray:
    return np.ones(shape, F32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


CONV = dict(strides=(2, 2), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
POOL = dict(kernel=(3, 3), strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0))

CASES: list[tuple[str, Op, list[Any]]] = [
    ("conv_dynamic_spatial", Convolution(**CONV), [Shaped((1, 3, None, 224)), w(8, 3, 3, 3)]),
    ("conv_dynamic_rank", Convolution(**CONV), [Shaped(None), w(8, 3, 3, 3)]),
    ("conv_dynamic_filters", Convolution(**CONV), [Shaped((None, 3, 32, 32)), Shaped((None, 3, 3, 3))]),
    (
        "conv_same_unknown_kernel",
        Convolution(**CONV, auto_pad="same_upper"),
        [Shaped((2, 3, 17, 9)), Shaped((4, 3, None, None))],
    ),
    ("group_conv_dynamic_batch", GroupConvolution(**CONV), [Shaped((None, 6, 10, 10)), w(3, 4, 2, 3, 3)]),
    ("deconv_dynamic_rank", ConvolutionBackpropData(**CONV), [Shaped(None), w(4, 2, 3, 3)]),
    (
        "deconv_output_shape_input",
        ConvolutionBackpropData(**CONV),
        [Shaped((1, 4, None, 5)), w(4, 2, 3, 3), Shaped((2,), np.int64)],
    ),
    ("maxpool_dynamic_height", MaxPool(**POOL, dilations=(1, 1), rounding_type="ceil"), [Shaped((1, 3, None, 15))]),
    ("maxpool_dynamic_rank", MaxPool(**POOL, dilations=(1, 1)), [Shaped(None)]),
    ("avgpool_dynamic_rank", AvgPool(**POOL, exclude_pad=True), [Shaped(None)]),
    ("avgpool_dynamic_batch", AvgPool(**POOL, rounding_type="ceil_torch"), [Shaped((None, 3, 10, 11))]),
    ("adaptive_avg_dynamic_sizes", AdaptiveAvgPool(), [Shaped((1, 3, 10, 10)), Shaped((2,), np.int64)]),
    ("matmul_dynamic_batch", MatMul(transpose_b=True), [Shaped((None, 4, 8)), w(6, 8)]),
    ("matmul_dynamic_rank", MatMul(), [Shaped(None), w(8, 6)]),
    ("matmul_vector", MatMul(), [Shaped((None,)), Shaped((2, None, 5))]),
    ("einsum_partial", Einsum(equation="bij,bjk->bik"), [Shaped((None, 3, 4)), Shaped((2, 4, None))]),
    ("einsum_ellipsis_partial", Einsum(equation="...ij->...ji"), [Shaped((None, 2, 3, 4))]),
    (
        "sdpa_partial",
        ScaledDotProductAttention(),
        [Shaped((1, None, 5, 8)), Shaped((1, 2, None, 8)), Shaped((1, 2, None, 3))],
    ),
    (
        "interpolate_dynamic_height",
        Interpolate(shape_calculation_mode="scales"),
        [Shaped((1, 3, None, 10)), np.array([2.0, 2.0], F32), i64(2, 3)],
    ),
    ("interpolate_sizes_unknown", Interpolate(), [Shaped((1, 3, 8, 8)), Shaped((2,), np.int64), i64(2, 3)]),
    (
        "roi_align_dynamic_rois",
        ROIAlign(pooled_h=2, pooled_w=3),
        [Shaped((1, 8, None, None)), Shaped((None, 4)), Shaped((None,), np.int32)],
    ),
    (
        "prior_box_unknown_layer",
        PriorBox(min_size=(30.0,), aspect_ratio=(2.0,), flip=True),
        [Shaped((2,), np.int64), i64(300, 300)],
    ),
    (
        "detection_output_dynamic_batch",
        DetectionOutput(keep_top_k=(10,), normalized=True),
        [Shaped((None, 32)), Shaped((None, 24)), Shaped((1, 2, 32))],
    ),
    ("region_yolo_dynamic", RegionYolo(classes=20, num=5, do_softmax=True), [Shaped((1, 125, None, 13))]),
    ("reorg_yolo_dynamic", ReorgYolo(stride=(2, 2)), [Shaped((None, 64, 26, None))]),
    (
        "lstm_cell_dynamic_batch",
        LSTMCell(hidden_size=4),
        [Shaped((None, 3)), Shaped((2, 4)), Shaped((None, 4)), w(16, 3), w(16, 4), w(16)],
    ),
    (
        "lstm_seq_partial",
        LSTMSequence(hidden_size=4, direction="bidirectional"),
        [
            Shaped((None, None, 3)),
            Shaped((2, 2, 4)),
            Shaped((None, 2, 4)),
            Shaped((None,), np.int32),
            w(2, 16, 3),
            w(2, 16, 4),
            w(2, 16),
        ],
    ),
    (
        "deformable_partial",
        DeformableConvolution(**CONV),
        [Shaped((None, 4, None, 16)), Shaped((1, 18, 7, None)), w(5, 4, 3, 3)],
    ),
    (
        "group_deconv_partial",
        GroupConvolutionBackpropData(**CONV, output_padding=(1, 0)),
        [Shaped((None, 4, 7, None)), w(2, 2, 3, 3, 3)],
    ),
    ("adaptive_max_dynamic_rank", AdaptiveMaxPool(), [Shaped(None), i64(3, 4)]),
    ("fake_quantize_partial", FakeQuantize(levels=255), [Shaped((None, 3, 8)), w(1, 3, 1), w(1, 3, 1), w(1), w(1)]),
    ("grid_sample_partial", GridSample(), [Shaped((None, 3, 10, 10)), Shaped((2, None, 7, 2))]),
    ("roi_pooling_dynamic", ROIPooling(pooled_h=2, pooled_w=2), [Shaped((1, None, 10, 10)), Shaped((None, 5))]),
    (
        "ps_roi_pooling_dynamic",
        PSROIPooling(output_dim=3, group_size=2),
        [Shaped((1, 12, None, None)), Shaped((None, 5))],
    ),
    (
        "interpolate4_scales_partial",
        Interpolate_v4(shape_calculation_mode="scales"),
        [Shaped((None, 3, 9, None)), i64(1, 1), np.array([0.5, 2.0], F32), i64(2, 3)],
    ),
    (
        "prior_box_clustered_partial",
        PriorBoxClustered(width=(1.0, 2.0), height=(2.0, 1.0)),
        [i64(4, 5), Shaped((2,), np.int64)],
    ),
    (
        "proposal_dynamic_batch",
        Proposal(post_nms_topn=30, ratio=(1.0,), scale=(8.0,)),
        [Shaped((None, 2, 6, 6)), Shaped((None, 4, 6, 6)), Shaped((3,))],
    ),
    ("nms_partial", NonMaxSuppression(), [Shaped((None, 10, 4)), Shaped((None, 2, 10)), np.array(4, np.int64)]),
    ("nms1_batches_classes", NonMaxSuppression_v1(), [Shaped((2, 10, 4)), Shaped((2, 3, 10)), np.array(2, np.int64)]),
    (
        "nms3_large_limit",
        NonMaxSuppression_v3(output_type="i32"),
        [Shaped((2, 10, 4)), Shaped((2, 3, 10)), np.array(20, np.int64)],
    ),
    ("nms4_batches_classes", NonMaxSuppression_v4(), [Shaped((2, 10, 4)), Shaped((2, 3, 10)), np.array(20, np.int64)]),
    ("nms4_no_limit", NonMaxSuppression_v4(), [Shaped((2, 10, 4)), Shaped((2, 3, 10))]),
    ("avgpool16_dilated_partial", AvgPool(**POOL, dilations=(2, 1)), [Shaped((None, 3, 17, None))]),
    ("matrix_nms_partial", MatrixNms(), [Shaped((None, 10, 4)), Shaped((2, 3, None))]),
    ("multiclass_nms_rois_num", MulticlassNms(), [Shaped((3, None, 4)), Shaped((3, None)), Shaped((4,), np.int32)]),
    ("ctc_greedy_partial", CTCGreedyDecoder(), [Shaped((None, 2, 5)), Shaped((20, None))]),
    ("ctc_greedy_seq_len_partial", CTCGreedyDecoderSeqLen(), [Shaped((None, 20, 5)), Shaped((3,), np.int32)]),
    ("gru_cell_dynamic_rank_x", GRUCell(hidden_size=4), [Shaped(None), Shaped((None, 4)), w(12, 3), w(12, 4), w(12)]),
    ("rnn_cell_partial", RNNCell(hidden_size=4), [Shaped((3, None)), Shaped((None, 4)), w(4, 3), w(4, 4), w(4)]),
    (
        "gru_seq_dynamic_rank_x",
        GRUSequence(hidden_size=4),
        [Shaped(None), Shaped((2, 1, 4)), Shaped((None,), np.int32), w(1, 12, 3), w(1, 12, 4), w(1, 12)],
    ),
]


def _ov_value(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [_ov_value(v) for v in value]
    return value


def _ov_attributes(op: Op) -> dict[str, Any]:
    return {
        f.metadata.get("ir") or f.name: _ov_value(getattr(op, f.name))
        for f in dataclasses.fields(op)  # type: ignore[arg-type]
        if f.metadata.get("emit", True)
    }


def _ours(op: Op, inputs: list[Any]) -> list[tuple[MaybeShape, ElementType]]:
    builder = GraphBuilder()
    ports = []
    for i, value in enumerate(inputs):
        if isinstance(value, Shaped):
            ports.append(builder.parameter(f"in{i}", value.shape, ElementType.from_numpy(value.dtype)))
        else:
            ports.append(builder.const(value))
    node = builder.node(op, *ports)
    infer_graph(builder.graph)
    return [(p.data.get_shape(), p.data.get_type()) for p in node.out_ports()]


def _openvino(op: Op, inputs: list[Any]) -> list[tuple[MaybeShape, str]]:
    import openvino as ov
    import openvino.opset14 as ops
    from openvino.utils.node_factory import NodeFactory

    args = []
    for value in inputs:
        if isinstance(value, Shaped):
            shape = (
                ov.PartialShape.dynamic()
                if value.shape is None
                else ov.PartialShape([-1 if d is None else d for d in value.shape])
            )
            args.append(ops.parameter(shape, value.dtype).output(0))
        else:
            args.append(ops.constant(value).output(0))
    node = NodeFactory(f"opset{op.version}").create(op.type, args, _ov_attributes(op))
    result = []
    for k in range(node.get_output_size()):
        shape = node.get_output_partial_shape(k)
        dims = None if shape.rank.is_dynamic else tuple(d.get_length() if d.is_static else None for d in shape)
        result.append((dims, node.get_output_element_type(k).get_type_name()))
    return result


# Cases where the specification lets us know more than OpenVINO infers: the offsets
# input of DeformableConvolution has the output's spatial size; AdaptiveMaxPool's output
# rank is 2 + len(output sizes) whatever the input's rank.
REFINES = {"deformable_partial", "adaptive_max_dynamic_rank"}


def _refines(ours: MaybeShape, theirs: MaybeShape) -> bool:
    """``ours`` agrees with every fact in ``theirs`` and may know more."""
    if theirs is None:
        return True
    return (
        ours is not None
        and len(ours) == len(theirs)
        and all(t is None or o == t for o, t in zip(ours, theirs, strict=False))
    )


@pytest.mark.parametrize(("case_id", "op", "inputs"), CASES, ids=[c[0] for c in CASES])
def test_partial_shape_inference_matches_openvino(case_id: str, op: Op, inputs: list[Any]) -> None:
    ours = [(shape, et.value) for shape, et in _ours(op, inputs)]
    theirs = _openvino(op, inputs)
    if case_id not in REFINES:
        assert ours == theirs
        return
    assert [et for _, et in ours] == [et for _, et in theirs]
    assert all(_refines(o, t) for (o, _), (t, _) in zip(ours, theirs, strict=False)), f"{ours} does not refine {theirs}"
    assert ours != theirs, "OpenVINO now infers as much: move the case out of REFINES"
