"""One MXNet op (or a few) per case: symbols written by the tests with seeded random
inputs and weights, run by MXNet and by irconv + OpenVINO, compared within 1e-4 relative."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

mx = pytest.importorskip("mxnet")
sym = mx.sym

Case = tuple[Any, dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray]]
RNG_SEED = 1234


def rand(*shape: int, low: float = -1.0, high: float = 1.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(RNG_SEED + seed).uniform(low, high, shape).astype(np.float32)


def data(*shape: int) -> dict[str, np.ndarray]:
    return {"data": rand(*shape, low=-2, high=2)}


X = sym.Variable("data")


def unary(build: Callable[[Any], Any], *shape: int) -> Callable[[], Case]:
    return lambda: (build(X), data(*shape), {}, {})


def conv(**kw: Any) -> Callable[[], Case]:
    def make() -> Case:
        channels, group = 4, kw.get("num_group", 1)
        spatial = len(kw["kernel"])
        filters = 8 if group == 4 else 6
        out = sym.Convolution(X, name="conv", num_filter=filters, **kw)
        args = {"conv_weight": rand(filters, channels // group, *kw["kernel"], seed=1)}
        if not kw.get("no_bias", False):
            args["conv_bias"] = rand(filters, seed=2)
        return out, data(1, channels, *([9] * spatial)), args, {}

    return make


def deconv(**kw: Any) -> Callable[[], Case]:
    def make() -> Case:
        channels, group = 4, kw.get("num_group", 1)
        out = sym.Deconvolution(X, name="deconv", num_filter=6, **kw)
        args = {"deconv_weight": rand(channels, 6 // group, *kw["kernel"], seed=1)}
        if not kw.get("no_bias", True):
            args["deconv_bias"] = rand(6, seed=2)
        return out, data(1, channels, 5, 7), args, {}

    return make


def batch_norm(shape: tuple[int, ...], **kw: Any) -> Callable[[], Case]:
    def make() -> Case:
        axis = kw.get("axis", 1)
        c = shape[axis]
        out = sym.BatchNorm(X, name="bn", **kw)
        args = {"bn_gamma": rand(c, low=0.5, high=1.5, seed=1), "bn_beta": rand(c, seed=2)}
        aux = {"bn_moving_mean": rand(c, seed=3), "bn_moving_var": rand(c, low=0.5, high=1.5, seed=4)}
        return out, data(*shape), args, aux

    return make


def fully_connected(shape: tuple[int, ...], flatten: bool) -> Callable[[], Case]:
    def make() -> Case:
        inner = int(np.prod(shape[1:])) if flatten else shape[-1]
        out = sym.FullyConnected(X, name="fc", num_hidden=5, flatten=flatten)
        return out, data(*shape), {"fc_weight": rand(5, inner, seed=1), "fc_bias": rand(5, seed=2)}, {}

    return make


def binary(build: Callable[[Any, Any], Any], a: tuple[int, ...], b: tuple[int, ...],
           integral: bool = False) -> Callable[[], Case]:
    def make() -> Case:
        y = sym.Variable("other")
        first, second = rand(*a, low=-2, high=2), rand(*b, low=-2, high=2, seed=5)
        if integral:  # comparisons: make ties happen
            first, second = np.round(first), np.round(second)
        return build(X, y), {"data": first, "other": second}, {}, {}

    return make


def positive(build: Callable[[Any], Any], *shape: int) -> Callable[[], Case]:
    return lambda: (build(X), {"data": rand(*shape, low=0.1, high=3.0)}, {}, {})


def with_params(build: Callable[[Any], Any], shape: tuple[int, ...], args: dict[str, tuple[int, ...]],
                low: float = -1.0) -> Callable[[], Case]:
    def make() -> Case:
        values = {k: rand(*s, low=low, high=1.5, seed=i + 1) for i, (k, s) in enumerate(args.items())}
        return build(X), data(*shape), values, {}

    return make


CASES: dict[str, Callable[[], Case]] = {
    # convolutions
    "conv_3x3_pad": conv(kernel=(3, 3), pad=(1, 1)),
    "conv_stride_dilate_nobias": conv(kernel=(3, 3), stride=(2, 2), dilate=(2, 2), no_bias=True),
    "conv_grouped": conv(kernel=(3, 3), num_group=2, pad=(1, 1)),
    "conv_depthwise": conv(kernel=(3, 3), num_group=4, stride=(2, 1)),
    "conv_1d": conv(kernel=(3,), pad=(1,), layout="NCW"),
    "conv_3d": conv(kernel=(2, 3, 3), layout="NCDHW"),
    "deconv_stride_pad_adj": deconv(kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1), no_bias=False),
    "deconv_grouped": deconv(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_group=2),
    "fc_flatten": fully_connected((2, 3, 2, 2), True),
    "fc_no_flatten": fully_connected((2, 3, 4), False),
    # normalization
    "batchnorm_fix_gamma": batch_norm((2, 3, 4, 4), fix_gamma=True),
    "batchnorm": batch_norm((2, 3, 4, 4), fix_gamma=False, eps=1e-5),
    "batchnorm_global_stats": batch_norm((2, 3, 4), fix_gamma=False, use_global_stats=True),
    "batchnorm_last_axis": batch_norm((2, 3, 5), fix_gamma=False, axis=-1),
    "instance_norm": with_params(lambda x: sym.InstanceNorm(x, name="in", eps=1e-3), (2, 3, 4, 5),
                                 {"in_gamma": (3,), "in_beta": (3,)}),
    "layer_norm": with_params(lambda x: sym.LayerNorm(x, name="ln"), (2, 3, 6), {"ln_gamma": (6,), "ln_beta": (6,)}),
    "layer_norm_axis1": with_params(lambda x: sym.LayerNorm(x, name="ln", axis=1), (2, 3, 6),
                                    {"ln_gamma": (3,), "ln_beta": (3,)}),
    "l2norm_instance": unary(lambda x: sym.L2Normalization(x, mode="instance"), 2, 3, 4, 4),
    "l2norm_channel": unary(lambda x: sym.L2Normalization(x, mode="channel"), 2, 3, 4, 4),
    "l2norm_spatial": unary(lambda x: sym.L2Normalization(x, mode="spatial"), 2, 3, 4, 4),
    "lrn": unary(lambda x: sym.LRN(x, nsize=3, alpha=1e-3, beta=0.75, knorm=2.0), 1, 6, 4, 4),
    # activations
    **{f"activation_{a}": unary(lambda x, a=a: sym.Activation(x, act_type=a), 2, 3, 4)
       for a in ("relu", "sigmoid", "tanh", "softrelu", "softsign")},
    "leaky": unary(lambda x: sym.LeakyReLU(x, act_type="leaky", slope=0.1), 2, 3, 4),
    "elu": unary(lambda x: sym.LeakyReLU(x, act_type="elu", slope=0.7), 2, 3, 4),
    "selu": unary(lambda x: sym.LeakyReLU(x, act_type="selu"), 2, 3, 4),
    "gelu": unary(lambda x: sym.LeakyReLU(x, act_type="gelu"), 2, 3, 4),
    "rrelu": unary(lambda x: sym.LeakyReLU(x, act_type="rrelu")[0], 2, 3, 4),
    "prelu": with_params(lambda x: sym.LeakyReLU(x, act_type="prelu", name="p"), (2, 3, 4, 4), {"p_gamma": (3,)}),
    "hard_sigmoid": unary(lambda x: sym.hard_sigmoid(x, alpha=0.3, beta=0.4), 2, 5),
    # MXNet's oneDNN kernel takes the last axis of a 4-d input instead of flattening: 3-d here.
    "softmax_output": unary(lambda x: sym.SoftmaxOutput(x, name="softmax"), 2, 3, 4),
    "softmax_output_multi": unary(lambda x: sym.SoftmaxOutput(x, name="softmax", multi_output=True), 2, 3, 2, 2),
    "softmax_output_preserve": unary(lambda x: sym.SoftmaxOutput(x, name="softmax", preserve_shape=True), 2, 3, 4),
    "softmax_axis_temperature": unary(lambda x: sym.softmax(x, axis=1, temperature=2.0), 2, 3, 4),
    "log_softmax": unary(lambda x: sym.log_softmax(x), 2, 3, 4),
    "softmax_activation_channel": unary(lambda x: sym.SoftmaxActivation(x, mode="channel"), 2, 3, 4, 4),
    # pooling
    "maxpool_valid": unary(lambda x: sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max"), 1, 2, 8, 8),
    "maxpool_full": unary(lambda x: sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max",
                                                pooling_convention="full"), 1, 2, 8, 8),
    "avgpool_pad_counted": unary(lambda x: sym.Pooling(x, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg"),
                                 1, 2, 6, 6),
    "avgpool_pad_excluded": unary(lambda x: sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                                        count_include_pad=False), 1, 2, 7, 7),
    "avgpool_full_pad": unary(lambda x: sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                                    pooling_convention="full"), 1, 2, 8, 8),
    "avgpool_full_pad_excluded": unary(lambda x: sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                                             pool_type="avg", pooling_convention="full",
                                                             count_include_pad=False), 1, 2, 8, 8),
    "sumpool": unary(lambda x: sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="sum"), 1, 2, 6, 6),
    "lppool": unary(lambda x: sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=2), 1, 2, 6, 6),
    "global_max": unary(lambda x: sym.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="max"), 2, 3, 5, 5),
    "global_avg": unary(lambda x: sym.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="avg"), 2, 3, 5, 5),
    "pool_1d": unary(lambda x: sym.Pooling(x, kernel=(2,), stride=(2,), pool_type="max", layout="NCW"), 1, 2, 8),
    # arithmetic and comparisons
    "elemwise_add": binary(lambda a, b: sym.elemwise_add(a, b), (2, 3), (2, 3)),
    "elemwise_sub": binary(lambda a, b: sym.elemwise_sub(a, b), (2, 3), (2, 3)),
    "elemwise_mul": binary(lambda a, b: sym.elemwise_mul(a, b), (2, 3), (2, 3)),
    "elemwise_div": binary(lambda a, b: sym.elemwise_div(a, b), (2, 3), (2, 3)),
    "broadcast_add": binary(lambda a, b: sym.broadcast_add(a, b), (2, 3, 4), (1, 3, 1)),
    "broadcast_sub": binary(lambda a, b: sym.broadcast_sub(a, b), (2, 3, 4), (2, 1, 4)),
    "broadcast_mul": binary(lambda a, b: sym.broadcast_mul(a, b), (2, 3, 4), (4,)),
    "broadcast_div": binary(lambda a, b: sym.broadcast_div(a, b), (2, 3, 4), (2, 3, 1)),
    "broadcast_maximum": binary(lambda a, b: sym.broadcast_maximum(a, b), (2, 3), (1, 3)),
    "broadcast_minimum": binary(lambda a, b: sym.broadcast_minimum(a, b), (2, 3), (2, 1)),
    "broadcast_mod": binary(lambda a, b: sym.broadcast_mod(a, sym.abs(b) + 0.5), (2, 3), (2, 3)),
    "broadcast_hypot": binary(lambda a, b: sym.broadcast_hypot(a, b), (2, 3), (2, 3)),
    "broadcast_equal": binary(lambda a, b: sym.broadcast_equal(a, b), (3, 4), (1, 4), integral=True),
    "broadcast_not_equal": binary(lambda a, b: sym.broadcast_not_equal(a, b), (3, 4), (1, 4), integral=True),
    "broadcast_greater": binary(lambda a, b: sym.broadcast_greater(a, b), (3, 4), (1, 4), integral=True),
    "broadcast_greater_equal": binary(lambda a, b: sym.broadcast_greater_equal(a, b), (3, 4), (1, 4), integral=True),
    "broadcast_lesser": binary(lambda a, b: sym.broadcast_lesser(a, b), (3, 4), (1, 4), integral=True),
    "broadcast_lesser_equal": binary(lambda a, b: sym.broadcast_lesser_equal(a, b), (3, 4), (1, 4), integral=True),
    "broadcast_logical_and": binary(lambda a, b: sym.broadcast_logical_and(a, b), (3, 4), (3, 4), integral=True),
    "broadcast_logical_or": binary(lambda a, b: sym.broadcast_logical_or(a, b), (3, 4), (3, 4), integral=True),
    "broadcast_logical_xor": binary(lambda a, b: sym.broadcast_logical_xor(a, b), (3, 4), (3, 4), integral=True),
    "broadcast_power": binary(lambda a, b: sym.broadcast_power(sym.abs(a) + 0.1, b), (2, 3), (2, 3)),
    "operators": binary(lambda a, b: (a + b) * a - b / (sym.abs(b) + 1), (2, 3), (2, 3)),
    "add_n": binary(lambda a, b: sym.add_n(a, b, a), (2, 3), (2, 3)),
    "scalar_ops": unary(lambda x: 3.0 - (x + 1.5) * 2.0 / 4.0 + 1.0 / (sym.abs(x) + 1.0), 2, 3),
    "scalar_power_max_min": unary(lambda x: sym.maximum(sym.minimum(x ** 2.0, 2.5), 0.5) + 2.0 ** x, 2, 3),
    "scalar_compare": unary(lambda x: (sym.round(x) > 0) + (sym.round(x) <= 1) + (sym.round(x) == 1)
                            + (sym.round(x) != 0), 3, 4),
    "scalar_rminus_rdiv_mod": unary(lambda x: (1.0 - x) + 2.0 / (sym.abs(x) + 1) + x % 1.5, 3, 4),
    # unary math
    **{f"math_{f}": unary(lambda x, f=f: getattr(sym, f)(x), 2, 5)
       for f in ("negative", "abs", "sign", "exp", "sin", "cos", "tanh", "sigmoid", "relu", "floor", "ceil",
                 "round", "rint", "fix", "square", "erf", "arctan", "sinh", "logical_not")},
    **{f"math_{f}": positive(lambda x, f=f: getattr(sym, f)(x), 2, 5)
       for f in ("sqrt", "rsqrt", "log", "log2", "log10", "log1p", "reciprocal")},
    "clip": unary(lambda x: sym.clip(x, a_min=-0.5, a_max=0.75), 3, 4),
    "cast": unary(lambda x: sym.Cast(sym.Cast(x * 3, dtype="int32"), dtype="float32"), 3, 4),
    "dropout_blockgrad": unary(lambda x: sym.BlockGrad(sym.Dropout(x, p=0.5)) * 2, 2, 3),
    # shapes
    "flatten": unary(lambda x: sym.Flatten(x), 2, 3, 4),
    "concat": binary(lambda a, b: sym.Concat(a, b, a, dim=1), (2, 3, 4), (2, 2, 4)),
    "stack": binary(lambda a, b: sym.stack(a, b, axis=1), (2, 3), (2, 3)),
    **{f"reshape_{i}": unary(lambda x, s=s: sym.Reshape(x, shape=s), 2, 3, 4)
       for i, s in enumerate([(4, 0, 2), (0, -1), (-2,), (-3, 4), (-4, 1, 2, -2), (2, -4, -1, 3, -2), (-1,),
                              (0, -3), (-2, 1, 1)])},
    "reshape_reverse": unary(lambda x: sym.Reshape(x, shape=(-1, 0), reverse=True), 10, 5, 4),
    "transpose": unary(lambda x: sym.transpose(x, axes=(2, 0, 1)), 2, 3, 4),
    "transpose_default": unary(lambda x: sym.transpose(x), 2, 3, 4),
    "swapaxes": unary(lambda x: sym.SwapAxis(x, dim1=0, dim2=2), 2, 3, 4),
    "slice": unary(lambda x: sym.slice(x, begin=(0, 1, None), end=(2, None, -1)), 3, 4, 5),
    "slice_step": unary(lambda x: sym.slice(x, begin=(None, 3), end=(None, 0), step=(1, -2)), 3, 5),
    "slice_axis": unary(lambda x: sym.slice_axis(x, axis=1, begin=1, end=-1), 2, 5, 3),
    "slice_axis_none": unary(lambda x: sym.slice_axis(x, axis=-1, begin=-2, end=None), 2, 5, 3),
    "slice_like": binary(lambda a, b: sym.slice_like(a, b, axes=(1, 2)), (2, 5, 6), (2, 3, 4)),
    "slice_like_all": binary(lambda a, b: sym.slice_like(a, b), (3, 5), (2, 4)),
    "expand_dims": unary(lambda x: sym.expand_dims(x, axis=-1), 2, 3),
    "squeeze": unary(lambda x: sym.squeeze(x, axis=(1,)), 2, 1, 3),
    "squeeze_all": unary(lambda x: sym.squeeze(x), 1, 3, 1, 2),
    "split": unary(lambda x: sym.SliceChannel(x, num_outputs=3, axis=1)[1], 2, 6, 2),
    "split_squeeze": unary(lambda x: sym.split(x, num_outputs=2, axis=0, squeeze_axis=True)[0], 2, 3),
    "tile": unary(lambda x: sym.tile(x, reps=(2, 1, 3)), 2, 3),
    "repeat": unary(lambda x: sym.repeat(x, repeats=2, axis=1), 2, 3),
    "repeat_flat": unary(lambda x: sym.repeat(x, repeats=3), 2, 3),
    "broadcast_to": unary(lambda x: sym.broadcast_to(x, shape=(4, 0, 3)), 1, 2, 1),
    "broadcast_axis": unary(lambda x: sym.broadcast_axis(x, axis=(0, 2), size=(3, 2)), 1, 2, 1),
    "zeros_ones_like": unary(lambda x: sym.zeros_like(x) + sym.ones_like(x) * 2, 2, 3),
    "pad_constant": unary(lambda x: sym.Pad(x, mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1),
                                            constant_value=0.5), 1, 2, 3, 4),
    "pad_edge": unary(lambda x: sym.Pad(x, mode="edge", pad_width=(0, 0, 0, 0, 1, 2, 2, 1)), 1, 2, 3, 4),
    "pad_reflect": unary(lambda x: sym.Pad(x, mode="reflect", pad_width=(0, 0, 0, 0, 1, 2, 2, 1)), 1, 2, 4, 4),
    "crop_h_w": unary(lambda x: sym.Crop(x, h_w=(3, 2), offset=(1, 2), num_args=1), 1, 2, 6, 6),
    "crop_center": unary(lambda x: sym.Crop(x, h_w=(3, 2), center_crop=True, num_args=1), 1, 2, 6, 7),
    "crop_like": binary(lambda a, b: sym.Crop(a, b, num_args=2, offset=(1, 1)), (1, 2, 6, 6), (1, 2, 4, 3)),
    "upsampling_nearest": unary(lambda x: sym.UpSampling(x, scale=2, sample_type="nearest"), 1, 2, 3, 4),
    "upsampling_bilinear": with_params(lambda x: sym.UpSampling(x, sym.Variable("up_weight"), scale=2,
                                                                sample_type="bilinear", num_filter=3, name="up"),
                                       (1, 3, 4, 5), {"up_weight": (3, 1, 4, 4)}),
    # reductions and lookups
    "sum_axis": unary(lambda x: sym.sum(x, axis=1), 2, 3, 4),
    "mean_keepdims": unary(lambda x: sym.mean(x, axis=(1, 2), keepdims=True), 2, 3, 4),
    "max_all": unary(lambda x: sym.max(x), 2, 3, 4),
    "norm_all": unary(lambda x: sym.norm(x), 2, 3),
    "argmax_flat": unary(lambda x: sym.argmax(x), 2, 3),
    "min_exclude": unary(lambda x: sym.min(x, axis=1, exclude=True), 2, 3, 4),
    "prod": unary(lambda x: sym.prod(x, axis=-1), 2, 3, 4),
    "norm": unary(lambda x: sym.norm(x, axis=1), 2, 3, 4),
    "argmax": unary(lambda x: sym.argmax(x, axis=1), 2, 5, 3),
    "argmin_keepdims": unary(lambda x: sym.argmin(x, axis=0, keepdims=True), 4, 3),
    "take_clip": lambda: (sym.take(X, sym.Variable("idx"), axis=1),
                          {"data": rand(2, 4, 3), "idx": np.asarray([[0, 3], [5, -1]], np.float32)}, {}, {}),
    "take_wrap": lambda: (sym.take(X, sym.Variable("idx"), axis=0, mode="wrap"),
                          {"data": rand(4, 3), "idx": np.asarray([1, 6, -2], np.float32)}, {}, {}),
    "embedding": lambda: (sym.Embedding(X, input_dim=6, output_dim=3, name="emb"),
                          {"data": np.asarray([[0, 5, 2], [1, 1, 3]], np.float32)},
                          {"emb_weight": rand(6, 3, seed=1)}, {}),
    "where": lambda: (sym.where(sym.Variable("cond"), X, sym.Variable("other")),
                      {"cond": np.asarray([[1, 0, 2], [0, 0, 1]], np.float32), "data": rand(2, 3),
                       "other": rand(2, 3, seed=1)}, {}, {}),
    "where_rows": lambda: (sym.where(sym.Variable("cond"), X, sym.Variable("other")),
                           {"cond": np.asarray([1, 0], np.float32), "data": rand(2, 3),
                            "other": rand(2, 3, seed=1)}, {}, {}),
    # sorting, constants, resizing, adaptive pooling
    "topk_indices": unary(lambda x: sym.topk(x, k=3), 2, 6),
    "topk_value_axis0_ascend": unary(lambda x: sym.topk(x, k=2, axis=0, ret_typ="value", is_ascend=True), 4, 3),
    "topk_both": unary(lambda x: sym.topk(x, k=2, axis=1, ret_typ="both")[0] + sym.topk(x, k=2, axis=1,
                                                                                         ret_typ="both")[1], 3, 5),
    "topk_mask": unary(lambda x: sym.topk(x, k=2, ret_typ="mask"), 3, 5),
    "sort": unary(lambda x: sym.sort(x, axis=1), 3, 5),
    "sort_descending": unary(lambda x: sym.sort(x, axis=0, is_ascend=False), 4, 2),
    "argsort": unary(lambda x: sym.argsort(x), 3, 5),
    "arange_zeros_ones_full": unary(lambda x: sym.broadcast_add(x, sym.arange(0, 6, 2, repeat=2))
                                    + sym.broadcast_mul(x, sym.broadcast_add(sym.zeros((1, 6)) + sym.full((1, 6), 0.5),
                                                                       sym.ones((2, 1)))),
                                    2, 6),
    "bilinear_resize": unary(lambda x: sym.contrib.BilinearResize2D(x, height=7, width=9), 1, 2, 4, 5),
    "bilinear_resize_scale": unary(lambda x: sym.contrib.BilinearResize2D(x, scale_height=2.0, scale_width=1.5),
                                   1, 2, 4, 6),
    "bilinear_resize_like": binary(lambda a, b: sym.contrib.BilinearResize2D(a, b, mode="like"),
                                   (1, 2, 4, 5), (1, 2, 6, 3)),
    "adaptive_avg_pool": unary(lambda x: sym.contrib.AdaptiveAvgPooling2D(x, output_size=(3, 2)), 1, 2, 7, 5),
    "adaptive_avg_pool_1": unary(lambda x: sym.contrib.AdaptiveAvgPooling2D(x), 1, 2, 7, 5),
    "roi_align": lambda: (sym.contrib.ROIAlign(X, sym.Variable("rois"), pooled_size=(3, 3), spatial_scale=0.5,
                                               sample_ratio=2),
                          {"data": rand(1, 2, 10, 10), "rois": np.asarray([[0, 1, 2, 14, 12], [0, 3.5, 0, 9.2, 18]],
                                                                          np.float32)}, {}, {}),
    "roi_align_aligned": lambda: (sym.contrib.ROIAlign(X, sym.Variable("rois"), pooled_size=(2, 4), spatial_scale=0.5,
                                                       sample_ratio=2, aligned=True),
                                  {"data": rand(1, 2, 10, 10),
                                   "rois": np.asarray([[0, 3, 2, 14, 12], [0, 3.5, 4, 9.2, 18]], np.float32)}, {}, {}),
    "one_hot": lambda: (sym.one_hot(X, depth=4), {"data": np.asarray([0, 3, 1], np.float32)}, {}, {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_op_matches_mxnet(case: str, check_symbol) -> None:  # type: ignore[no-untyped-def]
    symbol, feeds, args, aux = CASES[case]()
    check_symbol(symbol, feeds, args, aux, name=case)


@pytest.mark.parametrize("target", [(9, 13), (10, 14)])
def test_deconvolution_target_shape(target: tuple[int, int], tmp_path, checkpoint, convert_run) -> None:  # type: ignore[no-untyped-def]
    """target_shape picks pad and adj. MXNet's oneDNN kernel rejects it, so the reference
    runs in a subprocess with oneDNN off (MXNet's own CPU kernel)."""
    import os
    import subprocess
    import sys

    from irconv_mxnet.testing import relative_error

    x, w = rand(1, 4, 5, 7, low=-2, high=2), rand(4, 6, 3, 3, seed=1)
    attrs = dict(kernel=(3, 3), stride=(2, 2), num_filter=6, no_bias=True, target_shape=target)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    code = (
        "import mxnet as mx, numpy as np, sys; d = sys.argv[1]; "
        "y = mx.nd.Deconvolution(mx.nd.array(np.load(d + '/x.npy')), mx.nd.array(np.load(d + '/w.npy')), "
        f"**{attrs!r}); np.save(d + '/y.npy', y.asnumpy())"
    )
    env = {**os.environ, "MXNET_MKLDNN_ENABLED": "0", "MXNET_STORAGE_FALLBACK_LOG_VERBOSE": "0"}
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, env=env, capture_output=True)
    want = np.load(tmp_path / "y.npy")
    path = checkpoint("deconv", sym.Deconvolution(X, name="deconv", **attrs), {"deconv_weight": w})
    (got,) = convert_run(path, {"data": x})
    assert got.shape == want.shape == (1, 6, *target)
    assert relative_error(got, want) <= 1e-4


@pytest.mark.parametrize("codes", [(0, -3, -2), (-1, 0), (0, -4, -1, 2, -2), (-3, -1)])
def test_reshape_with_dynamic_dims(codes: tuple[int, ...], check_symbol) -> None:  # type: ignore[no-untyped-def]
    """Dynamic input dims are read with ShapeOf: the IR stays reshapeable."""
    symbol = sym.Reshape(X, shape=codes)
    check_symbol(symbol, data(2, 4, 3, 5), name="reshape_dynamic", inputs=["data[?,4,3,?]"])


@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["forward", "bidirectional"])
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN_relu", "RNN_tanh"])
def test_gluon_recurrent_layer(kind: str, bidirectional: bool, layers: int, tmp_path, convert_run) -> None:  # type: ignore[no-untyped-def]
    """A hybridized gluon.rnn layer exports one fused RNN op over `_rnn_param_concat`."""
    from irconv_mxnet.testing import relative_error

    mx.random.seed(7)
    name, _, activation = kind.partition("_")
    if name == "RNN":
        net = mx.gluon.rnn.RNN(6, num_layers=layers, activation=activation, bidirectional=bidirectional,
                               input_size=4)
    else:
        net = getattr(mx.gluon.rnn, name)(6, num_layers=layers, bidirectional=bidirectional, input_size=4)
    net.initialize(mx.init.Uniform(0.5))
    net.hybridize()
    directions = 2 if bidirectional else 1
    x = rand(5, 3, 4, low=-1, high=1)
    states = [rand(layers * directions, 3, 6, seed=i + 1) for i in range(2 if name == "LSTM" else 1)]
    out, new_states = net(mx.nd.array(x), [mx.nd.array(s) for s in states])
    net.export(str(tmp_path / "rnn"))
    feeds = {"data0": x, **{f"data{i + 1}": s for i, s in enumerate(states)}}
    got = convert_run(tmp_path / "rnn-symbol.json", feeds)
    want = [out.asnumpy(), *(s.asnumpy() for s in new_states)]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        assert relative_error(g, w) <= 1e-4
