"""Per-op conformance: every TF op with an irconv extractor, against TensorFlow itself.

Each case traces a small ``tf.function`` on random inputs, freezes it, converts it with
irconv, runs the IR on OpenVINO's CPU plugin and compares with TensorFlow's result. The
op list comes from the registered extractors, so an extractor without a case fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

R = np.random.default_rng(7)


def f32(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return R.uniform(low, high, shape).astype(np.float32)


def i32(*shape: int, low: int = -5, high: int = 5) -> np.ndarray:
    return R.integers(low, high, shape).astype(np.int32)


def bools(*shape: int) -> np.ndarray:
    return R.random(shape) > 0.5


@dataclass
class Case:
    fn: Callable[..., Any]
    inputs: list[np.ndarray]
    atol: float = 1e-5
    variables: dict[str, np.ndarray] | None = None  # set: a SavedModel with these variables
    options: dict[str, Any] | None = None  # convert_model keywords


def _tf() -> Any:
    import tensorflow as tf

    return tf


def cases() -> dict[str, Case]:
    from tests.tf.tensor_list_cases import tensor_list_cases

    tf = _tf()
    raw = tf.raw_ops
    x4 = f32(1, 8, 8, 3)
    w = f32(3, 3, 3, 4)

    def unary(op: Any, low: float = -1.0, high: float = 1.0) -> Case:
        return Case(lambda x: op(x=x), [f32(2, 3, 4, low=low, high=high)])

    def binary(op: Any, a: np.ndarray | None = None, b: np.ndarray | None = None) -> Case:
        return Case(lambda x, y: op(x=x, y=y), [f32(2, 3, 4) if a is None else a, f32(3, 4) if b is None else b])

    def compare(op: Any) -> Case:
        return Case(lambda x, y: op(x=x, y=y), [i32(2, 3), i32(2, 3)])

    def reduce(op: Any, data: np.ndarray | None = None, keep: bool = False) -> Case:
        return Case(
            lambda x: op(input=x, axis=np.array([1, 2], np.int32), keep_dims=keep),
            [f32(2, 3, 4, 5) if data is None else data],
        )

    return {
        # element-wise arithmetic
        "Add": binary(raw.Add),
        "AddV2": binary(raw.AddV2),
        "AddN": Case(lambda a, b, c: raw.AddN(inputs=[a, b, c]), [f32(2, 3), f32(2, 3), f32(2, 3)]),
        "BiasAdd": Case(lambda x: raw.BiasAdd(value=x, bias=f32(3)), [x4]),
        "Sub": binary(raw.Sub),
        "Mul": binary(raw.Mul),
        "RealDiv": binary(raw.RealDiv, b=f32(3, 4, low=0.5, high=2.0)),
        "Div": Case(lambda x, y: raw.Div(x=x, y=y), [i32(2, 6, low=-20, high=20), i32(2, 6, low=1, high=6)]),
        "FloorDiv": Case(lambda x, y: raw.FloorDiv(x=x, y=y), [f32(2, 6, low=-9, high=9), f32(2, 6, low=0.5, high=3)]),
        "TruncateDiv": Case(
            lambda x, y: raw.TruncateDiv(x=x, y=y), [i32(2, 6, low=-20, high=20), i32(2, 6, low=1, high=6)]
        ),
        "FloorMod": Case(lambda x, y: raw.FloorMod(x=x, y=y), [i32(2, 6, low=0, high=20), i32(2, 6, low=1, high=6)]),
        "Maximum": binary(raw.Maximum),
        "Minimum": binary(raw.Minimum),
        "Pow": binary(raw.Pow, a=f32(2, 3, 4, low=0.5, high=2.0)),
        "SquaredDifference": binary(raw.SquaredDifference),
        "Greater": compare(raw.Greater),
        "GreaterEqual": compare(raw.GreaterEqual),
        "Less": compare(raw.Less),
        "LessEqual": compare(raw.LessEqual),
        "Equal": compare(raw.Equal),
        "NotEqual": compare(raw.NotEqual),
        "LogicalAnd": Case(lambda x, y: raw.LogicalAnd(x=x, y=y), [bools(2, 3), bools(2, 3)]),
        "LogicalOr": Case(lambda x, y: raw.LogicalOr(x=x, y=y), [bools(2, 3), bools(2, 3)]),
        "LogicalNot": Case(lambda x: raw.LogicalNot(x=x), [bools(2, 3)]),
        # activations and unary math
        "Relu": Case(lambda x: raw.Relu(features=x), [f32(2, 3, 4)]),
        "Relu6": Case(lambda x: raw.Relu6(features=x * 8.0), [f32(2, 3, 4)]),
        "LeakyRelu": Case(lambda x: raw.LeakyRelu(features=x, alpha=0.3), [f32(2, 3, 4)]),
        "Elu": Case(lambda x: raw.Elu(features=x), [f32(2, 3, 4)]),
        "Selu": Case(lambda x: raw.Selu(features=x), [f32(2, 3, 4)]),
        "Sigmoid": unary(raw.Sigmoid),
        "Tanh": unary(raw.Tanh),
        "Softplus": Case(lambda x: raw.Softplus(features=x), [f32(2, 3, 4)]),
        "Softsign": Case(lambda x: raw.Softsign(features=x), [f32(2, 3, 4)]),
        "Softmax": Case(lambda x: raw.Softmax(logits=x), [f32(2, 3, 4)]),
        "LogSoftmax": Case(lambda x: raw.LogSoftmax(logits=x), [f32(2, 3, 4)]),
        "Exp": unary(raw.Exp),
        "Log": unary(raw.Log, 0.1, 3.0),
        "Sqrt": unary(raw.Sqrt, 0.1, 3.0),
        "Rsqrt": unary(raw.Rsqrt, 0.1, 3.0),
        "Reciprocal": unary(raw.Reciprocal, 0.5, 3.0),
        "Inv": unary(raw.Inv, 0.5, 3.0),
        "Square": unary(raw.Square),
        "Abs": unary(raw.Abs),
        "Neg": unary(raw.Neg),
        "Sign": unary(raw.Sign),
        "Floor": unary(raw.Floor, -5, 5),
        "Ceil": unary(raw.Ceil, -5, 5),
        "Round": Case(lambda x: raw.Round(x=x), [np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3, -0.7]], np.float32)]),
        "Erf": unary(raw.Erf, -2, 2),
        "Erfc": unary(raw.Erfc, -2, 2),
        "Sin": unary(raw.Sin),
        "Cos": unary(raw.Cos),
        "Tan": unary(raw.Tan),
        "Asin": unary(raw.Asin, -0.9, 0.9),
        "Acos": unary(raw.Acos, -0.9, 0.9),
        "Atan": unary(raw.Atan),
        "Sinh": unary(raw.Sinh),
        "Cosh": unary(raw.Cosh),
        "Acosh": unary(raw.Acosh, 1.0, 3.0),
        "Asinh": unary(raw.Asinh, -3.0, 3.0),
        "Atanh": unary(raw.Atanh, -0.9, 0.9),
        "Log1p": unary(raw.Log1p, -0.5, 3.0),
        "Expm1": unary(raw.Expm1, -2.0, 2.0),
        "Rint": Case(lambda x: raw.Rint(x=x), [np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3, -0.7]], np.float32)]),
        "Mod": Case(
            lambda x, y: raw.Mod(x=x, y=y),
            [i32(2, 6, low=-20, high=20), np.array([[3, -3, 2, -2, 5, -5]] * 2, np.int32)],
        ),
        "TruncateMod": Case(
            lambda x, y: raw.TruncateMod(x=x, y=y), [f32(2, 6, low=-9, high=9), f32(2, 6, low=0.5, high=3)]
        ),
        "DivNoNan": Case(
            lambda x, y: raw.DivNoNan(x=x, y=y), [f32(2, 4), np.array([[1.0, 0.0, -2.0, 0.0]] * 2, np.float32)]
        ),
        "BiasAddV1": Case(lambda x: raw.BiasAddV1(value=x, bias=f32(3)), [x4]),
        "BitwiseAnd": Case(
            lambda x, y: raw.BitwiseAnd(x=x, y=y), [i32(2, 5, low=-50, high=50), i32(2, 5, low=-50, high=50)]
        ),
        "BitwiseOr": Case(
            lambda x, y: raw.BitwiseOr(x=x, y=y), [i32(2, 5, low=-50, high=50), i32(2, 5, low=-50, high=50)]
        ),
        "BitwiseXor": Case(
            lambda x, y: raw.BitwiseXor(x=x, y=y), [i32(2, 5, low=-50, high=50), i32(2, 5, low=-50, high=50)]
        ),
        "Invert": Case(lambda x: raw.Invert(x=x), [i32(2, 5, low=-50, high=50)]),
        "IsInf": Case(lambda x: raw.IsInf(x=x), [np.array([[1.0, np.inf, -np.inf, np.nan, 0.0]], np.float32)]),
        "IsNan": Case(lambda x: raw.IsNan(x=x), [np.array([[1.0, np.inf, -np.inf, np.nan, 0.0]], np.float32)]),
        "IsFinite": Case(lambda x: raw.IsFinite(x=x), [np.array([[1.0, np.inf, -np.inf, np.nan, 0.0]], np.float32)]),
        # rearranging
        "Roll": Case(
            lambda x: raw.Roll(input=x, shift=np.array([2, -1], np.int32), axis=np.array([1, -1], np.int32)),
            [f32(2, 5, 3)],
        ),
        "ReverseV2": Case(lambda x: raw.ReverseV2(tensor=x, axis=np.array([0, -1], np.int32)), [f32(2, 3, 4)]),
        "ReverseSequence": Case(
            lambda x: raw.ReverseSequence(
                input=x, seq_lengths=np.array([3, 0, 5, 1], np.int64), seq_dim=1, batch_dim=0
            ),
            [f32(4, 5, 2)],
        ),
        "MatrixBandPart": Case(
            lambda x: raw.MatrixBandPart(input=x, num_lower=np.int64(1), num_upper=np.int64(-1)), [f32(2, 4, 5)]
        ),
        "Cumprod": Case(
            lambda x: raw.Cumprod(x=x, axis=np.int32(1), exclusive=True, reverse=True), [f32(2, 5, 3, low=0.5, high=2)]
        ),
        # neural network
        "Conv3D": Case(
            lambda x: raw.Conv3D(input=x, filter=f32(2, 3, 3, 3, 4), strides=[1, 1, 2, 2, 1], padding="SAME"),
            [f32(1, 4, 6, 6, 3)],
            atol=1e-4,
        ),
        "MaxPool3D": Case(
            lambda x: raw.MaxPool3D(input=x, ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="VALID"),
            [f32(1, 4, 6, 6, 3)],
        ),
        "AvgPool3D": Case(
            lambda x: raw.AvgPool3D(input=x, ksize=[1, 2, 3, 3, 1], strides=[1, 1, 2, 2, 1], padding="SAME"),
            [f32(1, 4, 6, 6, 3)],
        ),
        "Conv2D": Case(lambda x: raw.Conv2D(input=x, filter=w, strides=[1, 2, 2, 1], padding="SAME"), [x4], atol=1e-4),
        "DepthwiseConv2dNative": Case(
            lambda x: raw.DepthwiseConv2dNative(input=x, filter=f32(3, 3, 3, 2), strides=[1, 1, 1, 1], padding="VALID"),
            [x4],
            atol=1e-4,
        ),
        "Conv2DBackpropInput": Case(
            lambda x: raw.Conv2DBackpropInput(
                input_sizes=np.array([1, 16, 16, 3], np.int32),
                filter=f32(3, 3, 3, 5),
                out_backprop=x,
                strides=[1, 2, 2, 1],
                padding="SAME",
            ),
            [f32(1, 8, 8, 5)],
            atol=1e-4,
        ),
        "MaxPool": Case(lambda x: raw.MaxPool(input=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), [x4]),
        "AvgPool": Case(lambda x: raw.AvgPool(value=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), [x4]),
        "MaxPoolV2": Case(
            lambda x: raw.MaxPoolV2(
                input=x,
                ksize=np.array([1, 3, 3, 1], np.int32),
                strides=np.array([1, 2, 2, 1], np.int32),
                padding="VALID",
            ),
            [x4],
        ),
        "L2Loss": Case(lambda x: raw.L2Loss(t=x), [f32(2, 3, 4)]),
        "FakeQuantWithMinMaxArgs": Case(
            lambda x: raw.FakeQuantWithMinMaxArgs(inputs=x, min=-1.3, max=2.2, num_bits=8), [f32(3, 40, low=-2, high=3)]
        ),
        "FakeQuantWithMinMaxVars": Case(
            lambda x: raw.FakeQuantWithMinMaxVars(
                inputs=x, min=np.float32(-0.7), max=np.float32(0.9), num_bits=4, narrow_range=True
            ),
            [f32(3, 40, low=-1, high=1)],
        ),
        "FusedBatchNorm": Case(lambda x: _bn(raw.FusedBatchNorm, x), [x4], atol=1e-4),
        "FusedBatchNormV2": Case(lambda x: _bn(raw.FusedBatchNormV2, x), [x4], atol=1e-4),
        "FusedBatchNormV3": Case(lambda x: _bn(raw.FusedBatchNormV3, x), [x4], atol=1e-4),
        "MatMul": Case(lambda a, b: raw.MatMul(a=a, b=b, transpose_b=True), [f32(3, 5), f32(4, 5)], atol=1e-5),
        "BatchMatMul": Case(lambda a, b: raw.BatchMatMul(x=a, y=b, adj_x=True), [f32(2, 5, 3), f32(2, 5, 4)]),
        "BatchMatMulV2": Case(lambda a, b: raw.BatchMatMulV2(x=a, y=b), [f32(2, 3, 5), f32(5, 4)]),
        "BatchMatMulV3": Case(
            lambda a, b: raw.BatchMatMulV3(x=a, y=b, Tout=tf.float32, adj_y=True), [f32(2, 3, 5), f32(2, 4, 5)]
        ),
        "Einsum": Case(lambda a, b: raw.Einsum(inputs=[a, b], equation="bij,bjk->bik"), [f32(2, 3, 5), f32(2, 5, 4)]),
        "ResizeBilinear": Case(
            lambda x: raw.ResizeBilinear(images=x, size=np.array([12, 10], np.int32), half_pixel_centers=True),
            [x4],
            atol=1e-5,
        ),
        "ResizeNearestNeighbor": Case(
            lambda x: raw.ResizeNearestNeighbor(images=x, size=np.array([16, 12], np.int32)), [x4]
        ),
        "DepthToSpace": Case(lambda x: raw.DepthToSpace(input=x, block_size=2), [f32(1, 4, 4, 8)]),
        "SpaceToDepth": Case(lambda x: raw.SpaceToDepth(input=x, block_size=2), [f32(1, 4, 4, 3)]),
        # array
        "Identity": Case(lambda x: raw.Identity(input=x) + 1.0, [f32(2, 3)]),
        "IdentityN": Case(lambda x, y: raw.IdentityN(input=[x, y])[1] * 2.0, [f32(2, 3), f32(3)]),
        "StopGradient": Case(lambda x: raw.StopGradient(input=x) + 1.0, [f32(2, 3)]),
        "PreventGradient": Case(lambda x: raw.PreventGradient(input=x) + 1.0, [f32(2, 3)]),
        "Snapshot": Case(lambda x: raw.Snapshot(input=x) + 1.0, [f32(2, 3)]),
        "CheckNumerics": Case(lambda x: raw.CheckNumerics(tensor=x, message="bad") + 1.0, [f32(2, 3)]),
        "EnsureShape": Case(lambda x: raw.EnsureShape(input=x, shape=[2, 3]) + 1.0, [f32(2, 3)]),
        "PlaceholderWithDefault": Case(  # kept as an input by default: tests/tf/test_wrong_numbers.py
            lambda x: x + raw.PlaceholderWithDefault(input=f32(2, 3), shape=[2, 3]),
            [f32(2, 3)],
            options={"freeze_placeholder_with_default": True},
        ),
        "Reshape": Case(lambda x: raw.Reshape(tensor=x, shape=np.array([4, -1], np.int32)), [f32(2, 3, 4)]),
        "Transpose": Case(lambda x: raw.Transpose(x=x, perm=np.array([2, 0, 1], np.int32)), [f32(2, 3, 4)]),
        "ExpandDims": Case(lambda x: raw.ExpandDims(input=x, axis=-1), [f32(2, 3)]),
        "Squeeze": Case(lambda x: raw.Squeeze(input=x, axis=[1]), [f32(2, 1, 3, 1)]),
        "ConcatV2": Case(lambda a, b: raw.ConcatV2(values=[a, b], axis=-1), [f32(2, 3), f32(2, 4)]),
        "Concat": Case(lambda a, b: raw.Concat(concat_dim=0, values=[a, b]), [f32(2, 3), f32(1, 3)]),
        "Pack": Case(lambda a, b: raw.Pack(values=[a, b], axis=1), [f32(2, 3), f32(2, 3)]),
        "Unpack": Case(lambda x: raw.Unpack(value=x, num=3, axis=1), [f32(2, 3, 4)]),
        "Split": Case(lambda x: raw.Split(axis=1, value=x, num_split=2), [f32(2, 6)]),
        "SplitV": Case(
            lambda x: raw.SplitV(value=x, size_splits=np.array([1, 2, -1], np.int32), axis=1, num_split=3), [f32(2, 6)]
        ),
        "StridedSlice": Case(
            lambda x: raw.StridedSlice(
                input=x,
                begin=np.array([0, 1, 0], np.int32),
                end=np.array([0, 5, 2], np.int32),
                strides=np.array([1, 2, 1], np.int32),
                begin_mask=1,
                end_mask=1,
                shrink_axis_mask=4,
            ),
            [f32(2, 6, 4)],
        ),
        "Slice": Case(
            lambda x: raw.Slice(input=x, begin=np.array([1, 0], np.int32), size=np.array([-1, 2], np.int32)),
            [f32(4, 5)],
        ),
        "Pad": Case(lambda x: raw.Pad(input=x, paddings=np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32)), [x4]),
        "PadV2": Case(
            lambda x: raw.PadV2(input=x, paddings=np.array([[1, 0], [0, 2]], np.int32), constant_values=np.float32(3)),
            [f32(2, 3)],
        ),
        "MirrorPad": Case(
            lambda x: raw.MirrorPad(input=x, paddings=np.array([[1, 1], [2, 2]], np.int32), mode="REFLECT"), [f32(4, 5)]
        ),
        "Tile": Case(lambda x: raw.Tile(input=x, multiples=np.array([2, 1, 3], np.int32)), [f32(2, 3, 4)]),
        "Fill": Case(lambda x: raw.Fill(dims=tf.shape(x), value=np.float32(2.5)) + x, [f32(2, 3)]),
        "BroadcastTo": Case(lambda x: raw.BroadcastTo(input=x, shape=np.array([2, 3, 4], np.int32)), [f32(3, 1)]),
        "Shape": Case(lambda x: raw.Shape(input=x, out_type=tf.int32), [f32(2, 3, 4)]),
        "Size": Case(lambda x: raw.Size(input=x, out_type=tf.int32), [f32(2, 3, 4)]),
        "Rank": Case(lambda x: raw.Rank(input=x), [f32(2, 3, 4)]),
        "Cast": Case(lambda x: raw.Cast(x=x * 10.0, DstT=tf.int32), [f32(2, 3)]),
        "Range": Case(
            lambda x: raw.Range(start=np.int32(1), limit=raw.Size(input=x, out_type=tf.int32), delta=np.int32(2)),
            [f32(3, 4)],
        ),
        "ZerosLike": Case(lambda x: raw.ZerosLike(x=x) + 1.0, [f32(2, 3)]),
        "OnesLike": Case(lambda x: raw.OnesLike(x=x) * x, [f32(2, 3)]),
        "Select": Case(lambda c, a, b: raw.Select(condition=c, x=a, y=b), [bools(2, 3), f32(2, 3), f32(2, 3)]),
        "SelectV2": Case(lambda c, a, b: raw.SelectV2(condition=c, t=a, e=b), [bools(2, 3), f32(2, 3), f32(3)]),
        "GatherV2": Case(
            lambda x: raw.GatherV2(params=x, indices=np.array([[2, 0], [1, 1]], np.int32), axis=1), [f32(3, 4, 2)]
        ),
        "Gather": Case(lambda x: raw.Gather(params=x, indices=np.array([2, 0], np.int32)), [f32(3, 4)]),
        "ResourceGather": Case(
            lambda m, i: tf.gather(m.table, i),
            [np.array([[1, 0], [2, 2]], np.int32)],
            variables={"table": f32(4, 3)},
        ),
        "GatherNd": Case(
            lambda x: raw.GatherNd(params=x, indices=np.array([[0, 1], [2, 3]], np.int32)), [f32(3, 4, 2)]
        ),
        "OneHot": Case(
            lambda i: raw.OneHot(indices=i, depth=5, on_value=np.float32(2.0), off_value=np.float32(-1.0)),
            [np.array([0, 3, 4, 1], np.int32)],
        ),
        "Cumsum": Case(lambda x: raw.Cumsum(x=x, axis=1, exclusive=True), [f32(2, 5)]),
        # detection
        "NonMaxSuppressionV2": Case(
            lambda b, s: raw.NonMaxSuppressionV2(boxes=b, scores=s, max_output_size=5, iou_threshold=0.5), _nms_inputs()
        ),
        "NonMaxSuppressionV3": Case(
            lambda b, s: raw.NonMaxSuppressionV3(
                boxes=b, scores=s, max_output_size=6, iou_threshold=0.4, score_threshold=np.float32(0.2)
            ),
            _nms_inputs(),
        ),
        "NonMaxSuppressionV4": Case(
            lambda b, s: raw.NonMaxSuppressionV4(
                boxes=b,
                scores=s,
                max_output_size=12,
                iou_threshold=0.5,
                score_threshold=np.float32(0.3),
                pad_to_max_output_size=True,
            ),
            _nms_inputs(),
        ),
        "NonMaxSuppressionV5": Case(
            lambda b, s: raw.NonMaxSuppressionV5(
                boxes=b,
                scores=s,
                max_output_size=6,
                iou_threshold=0.5,
                score_threshold=np.float32(0.1),
                soft_nms_sigma=np.float32(0.0),
            ),
            _nms_inputs(),
        ),
        "CropAndResize": Case(
            lambda img, boxes: raw.CropAndResize(
                image=img,
                boxes=boxes,
                box_ind=np.array([0, 1, 1], np.int32),
                crop_size=np.array([5, 4], np.int32),
                extrapolation_value=-1.0,
            ),
            [
                f32(2, 9, 11, 3),
                np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.0, 0.2, 1.0], [-0.2, 0.3, 1.1, 0.6]], np.float32),
            ],
        ),
        # control flow
        "While": Case(lambda x: _while_loop(tf, x, stateless=False), [f32(2, 3)]),
        "StatelessWhile": Case(lambda x: _while_loop(tf, x, stateless=True), [f32(2, 3)]),
        "If": Case(lambda x, c: _cond(tf, x, c, stateless=False), [f32(2, 3), np.array(True)]),
        "StatelessIf": Case(lambda x, c: _cond(tf, x, c, stateless=True), [f32(2, 3), np.array(False)]),
        "Where": Case(lambda c: tf.where(c), [bools(3, 4)]),
        "ClipByValue": Case(
            lambda x: raw.ClipByValue(t=x, clip_value_min=np.float32(-0.3), clip_value_max=np.float32(0.4)), [f32(3, 4)]
        ),
        "SpaceToBatchND": Case(
            lambda x: raw.SpaceToBatchND(
                input=x, block_shape=np.array([2, 2], np.int32), paddings=np.array([[1, 1], [0, 2]], np.int32)
            ),
            [f32(2, 6, 6, 3)],
        ),
        "BatchToSpaceND": Case(
            lambda x: raw.BatchToSpaceND(
                input=x, block_shape=np.array([2, 2], np.int32), crops=np.array([[1, 1], [0, 2]], np.int32)
            ),
            [f32(8, 4, 4, 3)],
        ),
        # reductions
        "Mean": reduce(raw.Mean),
        "Sum": reduce(raw.Sum, keep=True),
        "Max": reduce(raw.Max),
        "Min": reduce(raw.Min),
        "Prod": reduce(raw.Prod),
        "EuclideanNorm": Case(
            lambda x: raw.EuclideanNorm(input=x, axis=np.array([1, 2], np.int32), keep_dims=True), [f32(2, 3, 4, 5)]
        ),
        "All": Case(lambda x: raw.All(input=x, axis=np.array([1], np.int32)), [bools(3, 4)]),
        "Any": Case(lambda x: raw.Any(input=x, axis=np.array([1], np.int32)), [bools(3, 4)]),
        "ArgMax": Case(lambda x: raw.ArgMax(input=x, dimension=1, output_type=tf.int32), [f32(3, 7)]),
        "ArgMin": Case(lambda x: raw.ArgMin(input=x, dimension=0), [f32(3, 7)]),
        "TopKV2": Case(lambda x: raw.TopKV2(input=x, k=3), [f32(2, 9)]),
        **tensor_list_cases(Case),
        **family_cases(),
    }


#: Further op families, one module each (``tests/tf/op_cases_<family>.py``): each defines
#: ``op_cases(case_type) -> {TF op: Case}`` and may define ``NO_ZERO_SIZE`` ({op: reason}).
OP_CASE_FAMILIES = ("composite", "scatter", "nn_extra", "fourier", "partition", "sampling", "resampling", "linalg", "ragged", "combined_nms", "sets")


def _family_modules() -> list[Any]:
    import importlib

    return [importlib.import_module(f"tests.tf.op_cases_{family}") for family in OP_CASE_FAMILIES]


def family_cases() -> dict[str, Case]:
    result: dict[str, Case] = {}
    for module in _family_modules():
        result.update(module.op_cases(Case))
    return result


def _bn(op: Any, x: Any) -> Any:
    c = 3
    return op(
        x=x,
        scale=f32(c, low=0.5, high=1.5),
        offset=f32(c),
        mean=f32(c),
        variance=f32(c, low=0.5, high=1.5),
        epsilon=0.001,
        is_training=False,
    )[0]


def _nms_inputs() -> list[np.ndarray]:
    corners = R.uniform(0, 1, (20, 2)).astype(np.float32)
    sizes = R.uniform(0.1, 0.4, (20, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + sizes], axis=1)
    scores = R.permutation(20).astype(np.float32) / 20.0  # distinct scores: one valid order
    return [boxes, scores]


def _while_loop(tf: Any, x: Any, stateless: bool) -> Any:
    """Doubles x until its sum passes 50 (a data-dependent trip count)."""

    def cond(i: Any, y: Any) -> Any:
        return tf.logical_and(i < 20, tf.reduce_sum(tf.abs(y)) < 50.0)

    def body(i: Any, y: Any) -> Any:
        return i + 1, y * 2.0 + 0.1

    out = tf.raw_ops.While if not stateless else tf.raw_ops.StatelessWhile
    cond_fn = tf.function(cond).get_concrete_function(tf.TensorSpec([], tf.int32), tf.TensorSpec([2, 3], tf.float32))
    body_fn = tf.function(body).get_concrete_function(tf.TensorSpec([], tf.int32), tf.TensorSpec([2, 3], tf.float32))
    i, y = out(input=[tf.constant(0), x], cond=cond_fn, body=body_fn)
    return y + tf.cast(i, tf.float32)


def _cond(tf: Any, x: Any, c: Any, stateless: bool) -> Any:
    spec = tf.TensorSpec([2, 3], tf.float32)
    then_fn = tf.function(lambda y: [y * 3.0]).get_concrete_function(spec)
    else_fn = tf.function(lambda y: [y - 1.0]).get_concrete_function(spec)
    op = tf.raw_ops.StatelessIf if stateless else tf.raw_ops.If
    return op(cond=c, input=[x], Tout=[tf.float32], then_branch=then_fn, else_branch=else_fn)[0]


@pytest.fixture(scope="module")
def all_cases() -> dict[str, Case]:
    return cases()


def registered_tf_ops() -> list[str]:
    from irconv.plugins.manager import PluginHost

    host = PluginHost()  # another plugin failing must not hide the TF op list
    registry = host.registry()
    (tf_plugin,) = [p for p in host.plugins() if p.name == "tf"]
    assert tf_plugin.status == "active", f"irconv-tf failed: {tf_plugin.error}"
    return sorted(p.item.op for p in registry.all_extractors("tf") if p.plugin.name == "tf")


@pytest.mark.parametrize("op", registered_tf_ops())
def test_op_matches_tensorflow(op: str, all_cases: dict[str, Case], tf_check: Any) -> None:
    assert op in all_cases, f"TF op {op} has an extractor but no conformance case"
    case = all_cases[op]
    tf_check(case.fn, case.inputs, op=op, atol=case.atol, variables=case.variables, options=case.options)


# ------------------------------------------------------------------ zero-size variants
#: Ops whose zero-size variant is not meaningful, with the reason (checked: listed ops must exist).
NO_ZERO_SIZE = {
    "ResourceGather": "the input is an index tensor into a variable; an empty index list is in Gather's case",
}


for _module in _family_modules():
    NO_ZERO_SIZE.update(getattr(_module, "NO_ZERO_SIZE", {}))


def _zero_size(case: Case) -> Case:
    """The same case with a zero first dimension (an empty batch, an empty list) on input 0
    and on every input of the same rank and first dimension (the operands it pairs with)."""
    first = case.inputs[0]

    def emptied(x: np.ndarray) -> np.ndarray:
        if x.ndim == first.ndim and x.shape[:1] == first.shape[:1]:
            return np.zeros((0, *x.shape[1:]), x.dtype)
        return x

    return Case(case.fn, [emptied(x) for x in case.inputs], case.atol, case.variables, case.options)


def every_second_slow(ids: list[str]) -> list[Any]:
    """The quick run takes every second case (a fixed sample: the README's test command stays
    within CI's time); ``-m slow`` runs the others."""
    return [pytest.param(case, marks=() if i % 2 == 0 else pytest.mark.slow) for i, case in enumerate(ids)]


@pytest.mark.parametrize("op", every_second_slow(registered_tf_ops()))
def test_zero_size_matches_tensorflow(op: str, all_cases: dict[str, Case], tf_check: Any) -> None:
    """Input 0 with a zero-size first dimension, wherever TensorFlow accepts one."""
    case = all_cases[op]
    if op in NO_ZERO_SIZE:
        pytest.skip(NO_ZERO_SIZE[op])
    if case.inputs[0].ndim == 0:
        pytest.skip("input 0 is a scalar")
    variant = _zero_size(case)
    try:
        tensorflow_result(variant)
    except Exception as exc:  # TF's own refusal (shape checks) means there is no such case
        pytest.skip(f"TensorFlow refuses it: {type(exc).__name__}")
    tf_check(variant.fn, variant.inputs, op=op, atol=variant.atol, variables=variant.variables, options=variant.options)


def tensorflow_result(case: Case) -> Any:
    import tensorflow as tf

    specs = [tf.TensorSpec(x.shape, tf.as_dtype(x.dtype)) for x in case.inputs]
    return tf.function(case.fn).get_concrete_function(*specs)(*[tf.constant(x) for x in case.inputs])


# ------------------------------------------------------- computed-argument variants
def variant_cases() -> dict[str, tuple[str, Case]]:
    """{case id: (TF op, case)}: first, shape-like arguments (sizes, axes, permutations,
    paddings, counts) fed as model inputs, so only the runtime knows them (with their -1 and
    0 special values); then attributes, element types and empty results the per-op cases
    do not reach."""
    tf = _tf()
    raw = tf.raw_ops

    def i(*values: int) -> np.ndarray:
        return np.array(values, np.int32)

    def i2(rows: list[list[int]]) -> np.ndarray:
        return np.array(rows, np.int32)

    return {
        "Reshape": ("Reshape", Case(lambda x, s: raw.Reshape(tensor=x, shape=s), [f32(2, 3, 4), i(4, -1)])),
        "Reshape/zero_dim": ("Reshape", Case(lambda x, s: raw.Reshape(tensor=x, shape=s), [f32(2, 0, 4), i(0, 8)])),
        "Transpose": ("Transpose", Case(lambda x, p: raw.Transpose(x=x, perm=p), [f32(2, 3, 4), i(2, 0, 1)])),
        "ExpandDims": ("ExpandDims", Case(lambda x, a: raw.ExpandDims(input=x, axis=a), [f32(2, 3), i(1)])),
        "ExpandDims/scalar_axis": (
            "ExpandDims",
            Case(lambda x, a: raw.ExpandDims(input=x, axis=a), [f32(2, 3), np.int32(-1)]),
        ),
        "ExpandDims/negative": ("ExpandDims", Case(lambda x, a: raw.ExpandDims(input=x, axis=a), [f32(2, 3), i(-3)])),
        "Slice": ("Slice", Case(lambda x, b, n: raw.Slice(input=x, begin=b, size=n), [f32(4, 5), i(1, 2), i(-1, 2)])),
        "Slice/all_minus_one": (
            "Slice",
            Case(lambda x, b, n: raw.Slice(input=x, begin=b, size=n), [f32(4, 5), i(0, 1), i(-1, -1)]),
        ),
        "Slice/empty": (
            "Slice",
            Case(lambda x, b, n: raw.Slice(input=x, begin=b, size=n), [f32(4, 5), i(1, 2), i(0, 2)]),
        ),
        "StridedSlice": (
            "StridedSlice",
            Case(
                lambda x, b, e: raw.StridedSlice(input=x, begin=b, end=e, strides=i(1, 2), end_mask=1),
                [f32(4, 6), i(1, 1), i(0, 6)],
            ),
        ),
        "Pad": ("Pad", Case(lambda x, p: raw.Pad(input=x, paddings=p), [f32(2, 3), i2([[1, 0], [2, 1]])])),
        "PadV2": (
            "PadV2",
            Case(
                lambda x, p: raw.PadV2(input=x, paddings=p, constant_values=np.float32(-2)),
                [f32(2, 3), i2([[0, 1], [1, 1]])],
            ),
        ),
        "MirrorPad": (
            "MirrorPad",
            Case(lambda x, p: raw.MirrorPad(input=x, paddings=p, mode="SYMMETRIC"), [f32(3, 4), i2([[1, 2], [2, 0]])]),
        ),
        "Tile": ("Tile", Case(lambda x, m: raw.Tile(input=x, multiples=m), [f32(2, 3), i(2, 3)])),
        "Tile/zero": ("Tile", Case(lambda x, m: raw.Tile(input=x, multiples=m), [f32(2, 3), i(0, 3)])),
        "Fill": ("Fill", Case(lambda d: raw.Fill(dims=d, value=np.float32(1.5)), [i(2, 3)])),
        "Fill/zero": ("Fill", Case(lambda d: raw.Fill(dims=d, value=np.float32(1.5)), [i(2, 0)])),
        "BroadcastTo": ("BroadcastTo", Case(lambda x, s: raw.BroadcastTo(input=x, shape=s), [f32(3, 1), i(2, 3, 4)])),
        "Range": (
            "Range",
            Case(lambda a, b, d: raw.Range(start=a, limit=b, delta=d), [np.int32(7), np.int32(-2), np.int32(-3)]),
        ),
        "Range/empty": (
            "Range",
            Case(lambda a, b, d: raw.Range(start=a, limit=b, delta=d), [np.int32(5), np.int32(5), np.int32(1)]),
        ),
        "SplitV": (
            "SplitV",
            Case(lambda x: raw.SplitV(value=x, size_splits=i(2, -1, 0), axis=-1, num_split=3), [f32(2, 5)]),
        ),
        "Mean": ("Mean", Case(lambda x, a: raw.Mean(input=x, axis=a, keep_dims=True), [f32(2, 3, 4), i(0, 2)])),
        "Mean/drop_axes": ("Mean", Case(lambda x, a: raw.Mean(input=x, axis=a), [f32(2, 3, 4), i(2, -3)])),
        "Max/drop_all_axes": ("Max", Case(lambda x, a: raw.Max(input=x, axis=a), [f32(2, 3), i(1, 0)])),
        "Sum/drop_scalar_axis": ("Sum", Case(lambda x, a: raw.Sum(input=x, axis=a), [f32(2, 3, 4), np.int32(1)])),
        "Sum/empty_axes": ("Sum", Case(lambda x, a: raw.Sum(input=x, axis=a), [f32(2, 3), np.zeros(0, np.int32)])),
        "TopKV2": ("TopKV2", Case(lambda x, k: raw.TopKV2(input=x, k=k), [f32(2, 9), np.int32(4)])),
        "ResizeBilinear": (
            "ResizeBilinear",
            Case(lambda x, s: raw.ResizeBilinear(images=x, size=s), [f32(1, 5, 6, 2), i(7, 3)]),
        ),
        "ResizeNearestNeighbor": (
            "ResizeNearestNeighbor",
            Case(
                lambda x, s: raw.ResizeNearestNeighbor(images=x, size=s, half_pixel_centers=True),
                [f32(1, 5, 6, 2), i(9, 4)],
            ),
        ),
        "SpaceToBatchND": (
            "SpaceToBatchND",
            Case(
                lambda x, b, p: raw.SpaceToBatchND(input=x, block_shape=b, paddings=p),
                [f32(1, 4, 6, 2), i(2, 3), i2([[0, 2], [0, 0]])],
            ),
        ),
        "BatchToSpaceND": (
            "BatchToSpaceND",
            Case(
                lambda x, b, c: raw.BatchToSpaceND(input=x, block_shape=b, crops=c),
                [f32(6, 2, 2, 3), i(2, 3), i2([[1, 0], [0, 2]])],
            ),
        ),
        "NonMaxSuppressionV3": (
            "NonMaxSuppressionV3",
            Case(
                lambda b, s, n: raw.NonMaxSuppressionV3(
                    boxes=b, scores=s, max_output_size=n, iou_threshold=0.4, score_threshold=np.float32(0.2)
                ),
                [*_nms_inputs(), np.int32(4)],
            ),
        ),
        "NonMaxSuppressionV3/zero": (
            "NonMaxSuppressionV3",
            Case(
                lambda b, s, n: raw.NonMaxSuppressionV3(
                    boxes=b, scores=s, max_output_size=n, iou_threshold=0.4, score_threshold=np.float32(0.2)
                ),
                [*_nms_inputs(), np.int32(0)],
            ),
        ),
        "OneHot": (
            "OneHot",
            Case(
                lambda x, d: raw.OneHot(indices=x, depth=d, on_value=np.float32(1), off_value=np.float32(0)),
                [np.array([0, 2, -1, 3], np.int32), np.int32(4)],
            ),
        ),
        "GatherV2": (
            "GatherV2",
            Case(lambda x, j: raw.GatherV2(params=x, indices=j, axis=np.int32(1)), [f32(3, 4), i(3, 0, 0)]),
        ),
        "Squeeze": ("Squeeze", Case(lambda x: raw.Squeeze(input=x), [f32(1, 3, 1, 2)])),
        "Roll": (
            "Roll",
            Case(lambda x, n, a: raw.Roll(input=x, shift=n, axis=a), [f32(3, 4), np.int32(-5), np.int32(1)]),
        ),
        "ReverseV2": ("ReverseV2", Case(lambda x, a: raw.ReverseV2(tensor=x, axis=a), [f32(2, 3, 4), i(1)])),
        "MatrixBandPart": (
            "MatrixBandPart",
            Case(
                lambda x, lo, hi: raw.MatrixBandPart(input=x, num_lower=lo, num_upper=hi),
                [f32(3, 4), np.int32(0), np.int32(1)],
            ),
        ),
        "Cumprod/inclusive": (
            "Cumprod",
            Case(lambda x: raw.Cumprod(x=x, axis=np.int32(-1)), [f32(3, 4, low=0.5, high=2)]),
        ),
        "Conv3D/valid_strided": (  # TF's CPU kernel has no dilation and no NCDHW
            "Conv3D",
            Case(
                lambda x: raw.Conv3D(input=x, filter=f32(2, 2, 3, 3, 4), strides=[1, 2, 1, 2, 1], padding="VALID"),
                [f32(2, 5, 6, 7, 3)],
                atol=1e-4,
            ),
        ),
        # attributes and types the first cases do not reach, and empty results at run time
        "Select/vector_condition": (
            "Select",
            Case(lambda c, a, b: raw.Select(condition=c, x=a, y=b), [np.array([True, False]), f32(2, 3), f32(2, 3)]),
        ),
        "Selu/f16": ("Selu", Case(lambda x: raw.Selu(features=x), [f32(2, 3).astype(np.float16)], atol=1e-3)),
        "LeakyRelu/f16": (
            "LeakyRelu",
            Case(lambda x: raw.LeakyRelu(features=x, alpha=0.3), [f32(2, 3).astype(np.float16)], atol=1e-3),
        ),
        "BiasAdd/NCHW_rank3": (
            "BiasAdd",
            Case(lambda x: raw.BiasAdd(value=x, bias=f32(3), data_format="NCHW"), [f32(2, 3, 4)]),
        ),
        "BiasAdd/NCDHW": (
            "BiasAdd",
            Case(lambda x: raw.BiasAdd(value=x, bias=f32(3), data_format="NCHW"), [f32(1, 3, 2, 2, 2)]),
        ),
        "FloorDiv/int_negative": (
            "FloorDiv",
            Case(
                lambda x, y: raw.FloorDiv(x=x, y=y),
                [i32(2, 6, low=-20, high=20), np.array([[3, -3, 2, -2, 5, -5]] * 2, np.int32)],
            ),
        ),
        "FloorMod/int_negative": (
            "FloorMod",
            Case(
                lambda x, y: raw.FloorMod(x=x, y=y),
                [i32(2, 6, low=-20, high=20), np.array([[3, -3, 2, -2, 5, -5]] * 2, np.int32)],
            ),
        ),
        "Cast/to_bool": ("Cast", Case(lambda x: raw.Cast(x=x, DstT=tf.bool), [np.array([0.0, 0.5, -1.0], np.float32)])),
        "Cast/negative_truncates": (
            "Cast",
            Case(lambda x: raw.Cast(x=x, DstT=tf.int32), [np.array([-1.7, -0.5, 2.9, 3.5], np.float32)]),
        ),
        "Where/none": ("Where", Case(lambda c: tf.where(c), [np.zeros((3, 4), bool)])),
        "TopKV2/k_zero": ("TopKV2", Case(lambda x: raw.TopKV2(input=x, k=0), [f32(2, 5)])),
        "TopKV2/ties": (
            "TopKV2",
            Case(lambda x: raw.TopKV2(input=x, k=3), [np.array([[1, 3, 3, 2, 3, 1]], np.float32)]),
        ),
        "ArgMax/ties": (
            "ArgMax",
            Case(lambda x: raw.ArgMax(input=x, dimension=1), [np.array([[1, 3, 3, 2, 3, 1]], np.float32)]),
        ),
        "NonMaxSuppressionV3/no_boxes": (
            "NonMaxSuppressionV3",
            Case(
                lambda b, s: raw.NonMaxSuppressionV3(
                    boxes=b, scores=s, max_output_size=3, iou_threshold=0.5, score_threshold=np.float32(0)
                ),
                [np.zeros((0, 4), np.float32), np.zeros(0, np.float32)],
            ),
        ),
        "GatherV2/no_indices": (
            "GatherV2",
            Case(lambda x, j: raw.GatherV2(params=x, indices=j, axis=0), [f32(3, 4), np.zeros(0, np.int32)]),
        ),
        "OneHot/out_of_range": (
            "OneHot",
            Case(
                lambda x: raw.OneHot(indices=x, depth=3, on_value=np.float32(1), off_value=np.float32(0)),
                [np.array([0, -1, 2, 5], np.int32)],
            ),
        ),
        "MatMul/int32": (
            "MatMul",
            Case(lambda a, b: raw.MatMul(a=a, b=b), [i32(3, 4, low=-3000, high=3000), i32(4, 2, low=-3000, high=3000)]),
        ),
        "ConcatV2/empty_operand": (
            "ConcatV2",
            Case(lambda a, b: raw.ConcatV2(values=[a, b], axis=0), [np.zeros((0, 3), np.float32), f32(2, 3)]),
        ),
        "CropAndResize/no_boxes": (
            "CropAndResize",
            Case(
                lambda img, b, j: raw.CropAndResize(image=img, boxes=b, box_ind=j, crop_size=i(2, 2)),
                [f32(1, 5, 5, 3), np.zeros((0, 4), np.float32), np.zeros(0, np.int32)],
            ),
        ),
        "Max/empty_axis": ("Max", Case(lambda x: raw.Max(input=x, axis=i(1)), [np.zeros((2, 0), np.float32)])),
        "Min/empty_axis_int": (
            "Min",
            Case(lambda x: raw.Min(input=x, axis=i(0), keep_dims=True), [np.zeros((0, 3), np.int32)]),
        ),
        "Prod/empty_axis": ("Prod", Case(lambda x: raw.Prod(input=x, axis=i(1)), [np.zeros((2, 0), np.float32)])),
        "Mean/int": ("Mean", Case(lambda x: raw.Mean(input=x, axis=i(1)), [i32(2, 5, low=-7, high=7)])),
        "Size/int64": ("Size", Case(lambda x: raw.Size(input=x, out_type=tf.int64), [f32(2, 3)])),
        "Shape/int64": ("Shape", Case(lambda x: raw.Shape(input=x, out_type=tf.int64), [f32(2, 3)])),
        "ResizeBilinear/uint8": (
            "ResizeBilinear",
            Case(
                lambda x: raw.ResizeBilinear(images=x, size=i(5, 7), half_pixel_centers=True),
                [R.integers(0, 255, (1, 4, 4, 3)).astype(np.uint8)],
                atol=1e-4,
            ),
        ),
        "BatchMatMulV3/int8_to_int32": (
            "BatchMatMulV3",
            Case(
                lambda a, b: raw.BatchMatMulV3(x=a, y=b, Tout=tf.int32),
                [R.integers(-128, 127, (2, 3, 8)).astype(np.int8), R.integers(-128, 127, (8, 4)).astype(np.int8)],
            ),
        ),
        "FusedBatchNormV3/training": (
            "FusedBatchNormV3",
            Case(
                lambda x: raw.FusedBatchNormV3(
                    x=x,
                    scale=f32(3) + 1.5,
                    offset=f32(3),
                    mean=f32(3),
                    variance=f32(3) + 1.5,
                    epsilon=0.001,
                    exponential_avg_factor=0.25,
                    is_training=True,
                )[:3],
                [f32(2, 4, 5, 3)],
                atol=1e-4,
            ),
        ),
        "FusedBatchNormV3/NCHW": (
            "FusedBatchNormV3",
            Case(
                lambda x: raw.FusedBatchNormV3(
                    x=x,
                    scale=f32(3) + 1.5,
                    offset=f32(3),
                    mean=f32(3),
                    variance=f32(3) + 1.5,
                    epsilon=0.001,
                    is_training=False,
                    data_format="NCHW",
                )[0],
                [f32(2, 3, 4, 5)],
                atol=1e-4,
            ),
        ),
    }


@pytest.fixture(scope="module")
def all_variant_cases() -> dict[str, tuple[str, Case]]:
    return variant_cases()


VARIANT_IDS = [
    "Reshape", "Reshape/zero_dim", "Transpose", "ExpandDims", "ExpandDims/scalar_axis", "ExpandDims/negative",
    "Slice", "Slice/all_minus_one", "Slice/empty", "StridedSlice", "Pad", "PadV2", "MirrorPad", "Tile", "Tile/zero",
    "Fill", "Fill/zero", "BroadcastTo", "Range", "Range/empty", "SplitV", "Mean", "Sum/empty_axes", "TopKV2",
    "ResizeBilinear", "ResizeNearestNeighbor", "SpaceToBatchND", "BatchToSpaceND", "NonMaxSuppressionV3",
    "NonMaxSuppressionV3/zero", "OneHot", "GatherV2", "Squeeze",
    "Select/vector_condition", "Selu/f16", "LeakyRelu/f16", "BiasAdd/NCHW_rank3", "BiasAdd/NCDHW",
    "FloorDiv/int_negative", "FloorMod/int_negative", "Cast/to_bool", "Cast/negative_truncates", "Where/none",
    "TopKV2/k_zero", "TopKV2/ties", "ArgMax/ties", "NonMaxSuppressionV3/no_boxes", "GatherV2/no_indices",
    "OneHot/out_of_range", "MatMul/int32", "ConcatV2/empty_operand", "CropAndResize/no_boxes", "Max/empty_axis",
    "Min/empty_axis_int", "Prod/empty_axis", "Mean/int", "Size/int64", "Shape/int64", "ResizeBilinear/uint8",
    "BatchMatMulV3/int8_to_int32", "FusedBatchNormV3/training", "FusedBatchNormV3/NCHW",
    "Roll", "ReverseV2", "MatrixBandPart", "Cumprod/inclusive", "Conv3D/valid_strided",
    "Mean/drop_axes", "Max/drop_all_axes", "Sum/drop_scalar_axis",
]  # fmt: skip


@pytest.mark.parametrize("case_id", every_second_slow(VARIANT_IDS))
def test_variant_matches_tensorflow(
    case_id: str, all_variant_cases: dict[str, tuple[str, Case]], tf_check: Any
) -> None:
    op, case = all_variant_cases[case_id]
    tf_check(case.fn, case.inputs, op=op, atol=case.atol, options=case.options)


def test_variant_ids_are_listed(all_variant_cases: dict[str, tuple[str, Case]]) -> None:
    assert sorted(VARIANT_IDS) == sorted(all_variant_cases)
