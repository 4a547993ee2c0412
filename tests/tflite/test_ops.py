"""One TFLite builtin operator per case, made by TensorFlow's converter from a small
tf.function, converted by irconv and run by OpenVINO against the LiteRT interpreter;
float, and full-integer int8 for the operators quantized models use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_support import ModelCache, assert_close, compare, quantization_steps, within_one_step

RNG = np.random.default_rng(7)


def _image(shape: tuple[int, ...] = (1, 8, 8, 4)) -> np.ndarray:
    return RNG.uniform(-1, 1, shape).astype(np.float32)


@dataclass
class Case:
    """``fn`` on ``inputs``; ``op`` is the TFLite operator the model must contain."""

    op: str
    fn: Callable[..., Any]
    inputs: list[np.ndarray]
    int8: bool = False
    atol: float = 1e-5
    extra: dict[str, Any] = field(default_factory=dict)


def _tf() -> Any:
    import tensorflow as tf

    return tf


def _boxes(count: int) -> np.ndarray:
    """[count, 4] boxes (y1, x1, y2, x2), many overlapping."""
    corner = RNG.uniform(0, 0.6, (count, 2))
    return np.concatenate([corner, corner + RNG.uniform(0.1, 0.4, (count, 2))], 1).astype(np.float32)


def _weights(*shape: int) -> np.ndarray:
    return RNG.uniform(-0.5, 0.5, shape).astype(np.float32)


W_CONV = _weights(3, 3, 4, 6)
W_DEPTHWISE = _weights(3, 3, 4, 2)
W_DENSE = _weights(4 * 8 * 8, 5)
W_TRANSPOSED = _weights(3, 3, 6, 4)
B6 = _weights(6)

CASES: dict[str, Case] = {
    "conv_same_relu": Case("CONV_2D", lambda x: _tf().nn.relu(
        _tf().nn.conv2d(x, W_CONV, 1, "SAME") + B6), [_image()], int8=True),
    "conv_valid_stride2_relu6": Case("CONV_2D", lambda x: _tf().nn.relu6(
        _tf().nn.conv2d(x, W_CONV, 2, "VALID")), [_image()], int8=True),
    "conv_dilated": Case("CONV_2D", lambda x: _tf().nn.conv2d(x, W_CONV, 1, "SAME", dilations=2), [_image()]),
    "depthwise_multiplier2": Case("DEPTHWISE_CONV_2D", lambda x: _tf().nn.depthwise_conv2d(
        x, W_DEPTHWISE, [1, 1, 1, 1], "SAME"), [_image()], int8=True),
    "depthwise_stride2": Case("DEPTHWISE_CONV_2D", lambda x: _tf().nn.depthwise_conv2d(
        x, W_DEPTHWISE[..., :1], [1, 2, 2, 1], "VALID"), [_image()]),
    "transpose_conv_same": Case("TRANSPOSE_CONV", lambda x: _tf().nn.conv2d_transpose(
        x, W_TRANSPOSED, [1, 16, 16, 6], 2, "SAME"), [_image()]),
    "transpose_conv_valid": Case("TRANSPOSE_CONV", lambda x: _tf().nn.conv2d_transpose(
        x, W_TRANSPOSED, [1, 18, 18, 6], 2, "VALID"), [_image()]),
    "fully_connected": Case("FULLY_CONNECTED", lambda x: _tf().matmul(
        _tf().reshape(x, [1, -1]), W_DENSE), [_image()], int8=True),
    "average_pool": Case("AVERAGE_POOL_2D", lambda x: _tf().nn.avg_pool2d(x, 3, 2, "SAME"), [_image()], int8=True),
    "max_pool": Case("MAX_POOL_2D", lambda x: _tf().nn.max_pool2d(x, 2, 2, "VALID"), [_image()], int8=True),
    "add_relu": Case("ADD", lambda a, b: _tf().nn.relu(a + b), [_image(), _image()], int8=True),
    "add_broadcast": Case("ADD", lambda a: a + _weights(4), [_image()]),
    "sub": Case("SUB", lambda a, b: a - b, [_image(), _image()], int8=True),
    "mul": Case("MUL", lambda a, b: a * b, [_image(), _image()], int8=True),
    "div": Case("DIV", lambda a, b: a / (_tf().abs(b) + 1), [_image(), _image()]),
    "maximum": Case("MAXIMUM", lambda a, b: _tf().maximum(a, b), [_image(), _image()]),
    "minimum": Case("MINIMUM", lambda a, b: _tf().minimum(a, b), [_image(), _image()]),
    "squared_difference": Case("SQUARED_DIFFERENCE", lambda a, b: _tf().math.squared_difference(a, b),
                               [_image(), _image()]),
    "concatenation": Case("CONCATENATION", lambda a, b: _tf().concat([a, b], -1), [_image(), _image()], int8=True),
    "reshape": Case("RESHAPE", lambda x: _tf().reshape(x, [1, 16, 16]), [_image()], int8=True),
    "softmax": Case("SOFTMAX", lambda x: _tf().nn.softmax(_tf().reshape(x, [1, -1])), [_image()], int8=True),
    "log_softmax": Case("LOG_SOFTMAX", lambda x: _tf().nn.log_softmax(x), [_image()]),
    "mean": Case("MEAN", lambda x: _tf().reduce_mean(x, [1, 2], keepdims=True), [_image()], int8=True),
    "sum": Case("SUM", lambda x: _tf().reduce_sum(x, [1]), [_image()]),
    "reduce_max": Case("REDUCE_MAX", lambda x: _tf().reduce_max(x, [2]), [_image()]),
    "pad": Case("PAD", lambda x: _tf().pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]), [_image()], int8=True),
    "mirror_pad": Case("MIRROR_PAD", lambda x: _tf().pad(x, [[0, 0], [1, 1], [2, 2], [0, 0]], "REFLECT"),
                       [_image()]),
    "resize_bilinear": Case("RESIZE_BILINEAR", lambda x: _tf().compat.v1.image.resize_bilinear(
        x, [16, 12], half_pixel_centers=True), [_image()], int8=True),
    "resize_bilinear_align_corners": Case("RESIZE_BILINEAR", lambda x: _tf().compat.v1.image.resize_bilinear(
        x, [15, 15], align_corners=True), [_image()]),
    "resize_nearest": Case("RESIZE_NEAREST_NEIGHBOR", lambda x: _tf().compat.v1.image.resize_nearest_neighbor(
        x, [16, 16], half_pixel_centers=True), [_image()]),
    "resize_nearest_align_corners": Case("RESIZE_NEAREST_NEIGHBOR", lambda x: _tf().compat.v1.image.
                                         resize_nearest_neighbor(x, [13, 11], align_corners=True), [_image()]),
    "resize_nearest_asymmetric": Case("RESIZE_NEAREST_NEIGHBOR", lambda x: _tf().compat.v1.image.
                                      resize_nearest_neighbor(x, [13, 11]), [_image()]),
    "resize_bilinear_asymmetric": Case("RESIZE_BILINEAR", lambda x: _tf().compat.v1.image.resize_bilinear(
        x, [13, 11]), [_image()]),
    "transpose": Case("TRANSPOSE", lambda x: _tf().transpose(x, [0, 3, 1, 2]), [_image()], int8=True),
    "strided_slice": Case("STRIDED_SLICE", lambda x: x[:, 1:7:2, ::-1, 1:], [_image()], int8=True),
    "strided_slice_shrink": Case("STRIDED_SLICE", lambda x: x[:, 2, :, 1], [_image()]),
    "slice": Case("SLICE", lambda x: _tf().slice(x, [0, 1, 2, 0], [1, 4, -1, 2]), [_image()]),
    "slice_computed": Case("SLICE", lambda x, i: _tf().slice(x, _tf().stack([0, i[0], 1, 0]),
                                                            _tf().stack([1, 3, i[0] + 1, -1])),
                           [_image(), np.array([2], np.int32)]),
    "gather": Case("GATHER", lambda x: _tf().gather(x, [3, 0, 2], axis=3), [_image()]),
    "pack": Case("PACK", lambda a, b: _tf().stack([a, b], 1), [_image(), _image()]),
    "unpack": Case("UNPACK", lambda x: _tf().unstack(x, axis=3), [_image()]),
    "split": Case("SPLIT", lambda x: _tf().split(x, 2, axis=3), [_image()]),
    "split_v": Case("SPLIT_V", lambda x: _tf().split(x, [1, 3], axis=3), [_image()]),
    "tile": Case("TILE", lambda x: _tf().tile(x, [1, 2, 1, 3]), [_image()]),
    "logistic": Case("LOGISTIC", lambda x: _tf().sigmoid(x), [_image()], int8=True),
    "tanh": Case("TANH", lambda x: _tf().tanh(x), [_image()], int8=True),
    "hard_swish": Case("HARD_SWISH", lambda x: x * _tf().nn.relu6(x + 3) / 6, [_image()], int8=True),
    "leaky_relu": Case("LEAKY_RELU", lambda x: _tf().nn.leaky_relu(x, 0.1), [_image()], int8=True),
    "elu": Case("ELU", lambda x: _tf().nn.elu(x), [_image()]),
    "gelu": Case("GELU", lambda x: _tf().nn.gelu(x, approximate=False), [_image()], atol=1e-4),
    "exp": Case("EXP", lambda x: _tf().exp(x), [_image()]),
    "log": Case("LOG", lambda x: _tf().math.log(_tf().abs(x) + 0.1), [_image()]),
    "sqrt_rsqrt": Case("RSQRT", lambda x: _tf().math.rsqrt(_tf().abs(x) + 0.1) + _tf().sqrt(_tf().abs(x)),
                       [_image()], atol=1e-4),
    "abs_neg": Case("NEG", lambda x: -_tf().abs(x), [_image()]),
    "square": Case("SQUARE", lambda x: _tf().square(x), [_image()]),
    "floor_ceil": Case("FLOOR", lambda x: _tf().floor(x * 3) + _tf().math.ceil(x * 2), [_image()]),
    "cast": Case("CAST", lambda x: _tf().cast(x * 10, _tf().int32), [_image()]),
    "arg_max": Case("ARG_MAX", lambda x: _tf().argmax(x, axis=3), [_image()]),
    "l2_normalization": Case("L2_NORMALIZATION", lambda x: _tf().math.l2_normalize(x, -1), [_image()]),
    "batch_matmul": Case("BATCH_MATMUL", lambda a, b: _tf().matmul(a, b, transpose_b=True),
                         [_image((2, 3, 4)), _image((2, 5, 4))]),
    "depth_to_space": Case("DEPTH_TO_SPACE", lambda x: _tf().nn.depth_to_space(x, 2), [_image()]),
    "space_to_depth": Case("SPACE_TO_DEPTH", lambda x: _tf().nn.space_to_depth(x, 2), [_image()]),
    "greater_select": Case("SELECT", lambda a, b: _tf().where(a > b, a, b * 2), [_image(), _image()]),
    "abs": Case("ABS", lambda x: _tf().abs(x) * 2, [_image()]),
    "arg_min": Case("ARG_MIN", lambda x: _tf().argmin(x, axis=1), [_image()]),
    "cumsum": Case("CUMSUM", lambda x: _tf().cumsum(x, axis=2, exclusive=True, reverse=True), [_image()]),
    "equal": Case("EQUAL", lambda a, b: _tf().equal(_tf().round(a * 2), _tf().round(b * 2)), [_image(), _image()]),
    "not_equal": Case("NOT_EQUAL", lambda a, b: _tf().not_equal(_tf().round(a), _tf().round(b)),
                      [_image(), _image()]),
    "less": Case("LESS", lambda a, b: _tf().less(a, b), [_image(), _image()]),
    "less_equal": Case("LESS_EQUAL", lambda a, b: _tf().less_equal(a, b), [_image(), _image()]),
    "greater_equal": Case("GREATER_EQUAL", lambda a, b: _tf().greater_equal(a, b), [_image(), _image()]),
    "logical": Case("LOGICAL_OR", lambda a, b: _tf().logical_or(_tf().logical_and(a > 0, b > 0),
                                                                  _tf().logical_not(a > b)), [_image(), _image()]),
    "floor_div": Case("FLOOR_DIV", lambda a, b: _tf().math.floordiv(a * 10, _tf().abs(b) + 1), [_image(), _image()]),
    "floor_div_int": Case("FLOOR_DIV", lambda a, b: _tf().math.floordiv(a, b) + _tf().math.floormod(a, b),
                          [RNG.integers(-20, 20, (4, 6)).astype(np.int32),
                           np.where(RNG.random((4, 6)) < 0.5, -1, 1).astype(np.int32) * RNG.integers(1, 6, (4, 6)).astype(np.int32)]),
    "floor_mod": Case("FLOOR_MOD", lambda a, b: _tf().math.floormod(a * 10, _tf().abs(b) + 1), [_image(), _image()],
                      atol=1e-4),
    "gather_nd": Case("GATHER_ND", lambda x: _tf().gather_nd(x, [[0, 1, 2], [0, 3, 4]]), [_image()]),
    "pow": Case("POW", lambda a, b: _tf().pow(_tf().abs(a) + 0.5, b), [_image(), _image()], atol=1e-4),
    "reverse": Case("REVERSE_V2", lambda x: _tf().reverse(x, [2]), [_image()]),
    "round": Case("ROUND", lambda x: _tf().round(x * 4), [_image()]),
    "sin_cos": Case("SIN", lambda x: _tf().sin(x) + _tf().cos(x), [_image()]),
    "topk": Case("TOPK_V2", lambda x: _tf().math.top_k(_tf().reshape(x, [16, 16]), 3), [_image()]),
    "range": Case("RANGE", lambda x, n: x * _tf().cast(_tf().range(0, n[0], 2), _tf().float32),
                  [_image((4,)), np.array([8], np.int32)]),
    "broadcast_to": Case("BROADCAST_TO", lambda x: _tf().broadcast_to(x, [2, 8, 8, 4]), [_image()]),
    "reduce_min_prod": Case("REDUCE_MIN", lambda x: _tf().reduce_min(x, [1]) * _tf().reduce_prod(x, [1]),
                            [_image()]),
    "padv2": Case("PADV2", lambda x: _tf().pad(x, [[0, 0], [1, 1], [0, 2], [0, 0]], constant_values=-2.0),
                  [_image()]),
    "lrn": Case("LOCAL_RESPONSE_NORMALIZATION", lambda x: _tf().nn.local_response_normalization(
        x, depth_radius=2, bias=1.0, alpha=0.5, beta=0.75), [_image()], atol=1e-4),
    "lrn_bias": Case("LOCAL_RESPONSE_NORMALIZATION", lambda x: _tf().nn.local_response_normalization(
        x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75), [_image()], atol=1e-4),
    "relu": Case("RELU", lambda x: _tf().nn.relu(x), [_image()]),
    "relu6": Case("RELU6", lambda x: _tf().nn.relu6(x), [_image() * 8]),
    "sign": Case("SIGN", lambda x: _tf().sign(x), [_image()]),
    "ceil": Case("CEIL", lambda x: _tf().math.ceil(x * 3), [_image()]),
    "add_n": Case("ADD_N", lambda a, b, c: _tf().add_n([a, b, c]), [_image(), _image(), _image()]),
    "space_to_batch_nd": Case("SPACE_TO_BATCH_ND", lambda x: _tf().space_to_batch_nd(x, [2, 2], [[0, 0], [2, 0]]),
                              [_image((1, 6, 8, 4))], int8=True),
    "batch_to_space_nd": Case("BATCH_TO_SPACE_ND", lambda x: _tf().batch_to_space(x, [2, 2], [[0, 1], [1, 0]]),
                              [_image((4, 4, 4, 3))], int8=True),
    "one_hot": Case("ONE_HOT", lambda i: _tf().one_hot(i, 5, on_value=2.0, off_value=-1.0, axis=1),
                    [RNG.integers(-1, 6, (3, 4)).astype(np.int32)]),
    "unique": Case("UNIQUE", lambda x: _tf().unique(_tf().round(x * 2)), [_image((12,))]),
    "where": Case("WHERE", lambda x: _tf().where(x > 0.3), [_image((2, 3, 4))]),
    "reverse_sequence": Case("REVERSE_SEQUENCE", lambda x: _tf().reverse_sequence(x, [3, 5], seq_axis=1, batch_axis=0),
                             [_image((2, 5, 3))]),
    "matrix_diag": Case("MATRIX_DIAG", lambda x: _tf().linalg.diag(x), [_image((2, 4))]),
    "matrix_set_diag": Case("MATRIX_SET_DIAG", lambda x, d: _tf().linalg.set_diag(x, d),
                            [_image((2, 3, 4)), _image((2, 3))]),
    "scatter_nd": Case("SCATTER_ND", lambda u: _tf().scatter_nd([[1], [3], [1]], u, [6, 4]), [_image((3, 4))]),
    "segment_sum": Case("SEGMENT_SUM", lambda x: _tf().math.segment_sum(x, [0, 0, 1, 2, 2]), [_image((5, 3))]),
    "unsorted_segment_sum_prod": Case("UNSORTED_SEGMENT_PROD", lambda x: _tf().math.unsorted_segment_sum(
        x, [2, 0, 2, 1, 0], 3) + _tf().math.unsorted_segment_prod(x, [1, 0, 2, 1, 0], 3), [_image((5, 3))]),
    "unsorted_segment_max_min": Case("UNSORTED_SEGMENT_MAX", lambda x: _tf().math.unsorted_segment_max(
        x, [2, 0, 2, 1, 0], 3) - _tf().math.unsorted_segment_min(x, [1, 0, 2, 1, 0], 3), [_image((5, 3))]),
    "rfft2d_abs": Case("RFFT2D", lambda x: _tf().abs(_tf().signal.rfft2d(x)), [_image((2, 8, 8))], atol=1e-4),
    "rfft_real_imag": Case("RFFT2D", lambda x: _tf().math.real(_tf().signal.rfft(x)) * _tf().math.imag(
        _tf().signal.rfft(x)), [_image((3, 16))], atol=1e-4),
    "conv_3d": Case("CONV_3D", lambda x: _tf().nn.relu(_tf().nn.conv3d(x, _weights(2, 3, 3, 3, 4), [1, 1, 2, 2, 1],
                                                                      "SAME")), [_image((1, 4, 6, 6, 3))]),
    "conv_3d_transpose": Case("CONV_3D_TRANSPOSE", lambda x: _tf().nn.conv3d_transpose(
        x, _weights(2, 3, 3, 5, 4), [1, 6, 8, 8, 5], 2, "SAME"), [_image((1, 3, 4, 4, 4))]),
    "bucketize": Case("BUCKETIZE", lambda x: _tf().raw_ops.Bucketize(input=x, boundaries=[-0.5, 0.0, 0.5]),
                      [_image()]),
    "atan2": Case("ATAN2", lambda a, b: _tf().math.atan2(a, b), [_image(), _image()]),
    "bitwise_xor_shift": Case("BITWISE_XOR", lambda a, b: _tf().bitwise.right_shift(
        _tf().bitwise.bitwise_xor(a, b), b % 8), [RNG.integers(-100, 100, (4, 5)).astype(np.int32),
                                                  RNG.integers(0, 50, (4, 5)).astype(np.int32)]),
    "non_max_suppression": Case("NON_MAX_SUPPRESSION_V4", lambda b, s: _tf().image.non_max_suppression(
        b, s, 6, 0.4, 0.2), [_boxes(20), RNG.uniform(0, 1, 20).astype(np.float32)]),
    "non_max_suppression_scores": Case("NON_MAX_SUPPRESSION_V5", lambda b, s: _tf().image.non_max_suppression_with_scores(
        b, s, 6, 0.4, 0.2, soft_nms_sigma=0.5), [_boxes(20), RNG.uniform(0, 1, 20).astype(np.float32)], atol=1e-4),
    "fake_quant": Case("QUANTIZE", lambda x: _tf().quantization.fake_quant_with_min_max_args(
        x, -0.8, 0.7, num_bits=8), [_image()]),
}


def _made(name: str, case: Case, mode: str, cache: ModelCache) -> Any:
    return cache.from_function(f"op_{name}_{mode}", case.fn, case.inputs, mode)


def _operators(path: Path) -> set[str]:
    from ai_edge_litert.interpreter import Interpreter

    return {op["op_name"] for op in Interpreter(model_path=str(path))._get_ops_details()}  # noqa: SLF001


@pytest.mark.parametrize("name", sorted(CASES))
def test_float(name: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    case = CASES[name]
    made = _made(name, case, "float", tflite_models)
    assert case.op in _operators(made.path), "the converter did not make the operator under test"
    assert_close(compare(made.path, made.inputs, tmp_path), atol=case.atol, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if case.int8))
def test_int8(name: str, tflite_models: ModelCache, tmp_path: Path) -> None:
    """Full-integer model with int8 inputs and outputs, converted with the command line's
    defaults (f16 constants): within one step of LiteRT on 99.9% of the elements."""
    case = CASES[name]
    made = _made(name, case, "int8_io", tflite_models)
    assert case.op in _operators(made.path), "the converter did not make the operator under test"
    compared = compare(made.path, made.inputs, tmp_path, compress_to_fp16=True)
    assert min(within_one_step(compared, quantization_steps(made.path))) >= 0.999
