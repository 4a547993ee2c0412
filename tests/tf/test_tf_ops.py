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


def _tf() -> Any:
    import tensorflow as tf

    return tf


def cases() -> dict[str, Case]:
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
        # neural network
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
        "PlaceholderWithDefault": Case(
            lambda x: x + raw.PlaceholderWithDefault(input=f32(2, 3), shape=[2, 3]), [f32(2, 3)]
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
        "All": Case(lambda x: raw.All(input=x, axis=np.array([1], np.int32)), [bools(3, 4)]),
        "Any": Case(lambda x: raw.Any(input=x, axis=np.array([1], np.int32)), [bools(3, 4)]),
        "ArgMax": Case(lambda x: raw.ArgMax(input=x, dimension=1, output_type=tf.int32), [f32(3, 7)]),
        "ArgMin": Case(lambda x: raw.ArgMin(input=x, dimension=0), [f32(3, 7)]),
        "TopKV2": Case(lambda x: raw.TopKV2(input=x, k=3), [f32(2, 9)]),
    }


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
    tf_check(case.fn, case.inputs, op=op, atol=case.atol, variables=case.variables)


def test_grouped_conv2d_matches_tensorflow(tf_check: Any) -> None:
    """Conv2D whose filters see a quarter of the channels (tf.keras Conv2D(groups=4))."""
    import tensorflow as tf

    weights = f32(3, 3, 2, 8)
    tf_check(
        lambda x: tf.raw_ops.Conv2D(input=x, filter=weights, strides=[1, 1, 1, 1], padding="SAME"),
        [f32(1, 6, 6, 8)],
        op="Conv2D",
        atol=1e-4,
    )
