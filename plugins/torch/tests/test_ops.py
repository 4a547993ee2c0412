"""Each ATen op the front end extracts, converted from a one-op module and compared with
torch eager on the CPU (dtype variants; dynamic-shape variants where torch allows them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn
from torch.nn import functional as F
from torch_support import Fn, check_module


def f32(*shape: int) -> torch.Tensor:
    return torch.randn(*shape)


def ints(*shape: int, high: int = 10) -> torch.Tensor:
    return torch.randint(-high, high, shape)


def positive(*shape: int) -> torch.Tensor:
    return torch.rand(*shape) + 0.1


def _add_in_place(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    before = x.sum()
    x += y  # later uses of x see the sum; the sum taken before does not
    return x * before


def _add_into_first_row(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x[0].add_(y)  # writes through a view: torch's functionalisation is needed
    return x


def _put_middle_axis(x: torch.Tensor, i: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x[:, i] = v  # index dims in place of axis 1: v is (2, len(i), 3)
    return x


def _put_apart_axes(x: torch.Tensor, i: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x[i, :, i] = v  # indexed axes 0 and 2 apart: the index dims lead, v is (len(i), 2)
    return x


X = f32(2, 3, 8, 8)
CASES: dict[str, tuple[Callable[..., Any], tuple[torch.Tensor, ...]]] = {
    # arithmetic, with promotion
    "add": (lambda a, b: a + b, (f32(2, 3), f32(3))),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=2.5), (f32(2, 3), f32(2, 3))),
    "add_int64": (lambda a, b: a + b, (ints(2, 3), ints(2, 3))),
    "add_int32": (lambda a: a + 3, (ints(4).int(),)),
    "add_int_and_float": (lambda a: a + 0.5, (ints(4),)),
    "sub": (lambda a, b: a - b, (f32(2, 3), f32(2, 3))),
    "rsub": (lambda a: 1 - a, (f32(5),)),
    "mul": (lambda a, b: a * b, (f32(2, 3), f32(2, 1))),
    "mul_scalar": (lambda a: a * 3, (f32(4),)),
    "div": (lambda a, b: a / b, (f32(3, 4), positive(3, 4))),
    "div_ints": (lambda a, b: a / b, (ints(6), ints(6).abs() + 1)),
    "div_floor": (lambda a, b: torch.div(a, b, rounding_mode="floor"), (f32(6), positive(6))),
    "div_trunc": (lambda a, b: torch.div(a, b, rounding_mode="trunc"), (f32(6) * 5, positive(6))),
    "floordiv_ints": (lambda a, b: a // b, (ints(6), ints(6).abs() + 1)),
    "pow": (lambda a: a**2, (f32(5),)),
    "pow_tensor": (lambda a, b: a**b, (positive(5), f32(5))),
    "remainder": (lambda a, b: a % b, (ints(6), ints(6).abs() + 1)),
    "fmod": (lambda a, b: torch.fmod(a, b), (f32(6), positive(6))),
    "maximum": (torch.maximum, (f32(4), f32(4))),
    "minimum": (torch.minimum, (f32(4), f32(4))),
    # comparisons and logic
    "eq": (lambda a, b: a == b, (ints(6, high=2), ints(6, high=2))),
    "ne": (lambda a: a != 1, (ints(6, high=2),)),
    "lt": (lambda a, b: a < b, (f32(6), f32(6))),
    "le": (lambda a: a <= 0.1, (f32(6),)),
    "gt": (lambda a, b: a > b, (f32(6), ints(6))),
    "ge": (lambda a: a >= 0, (ints(6),)),
    "logical_and": (lambda a, b: torch.logical_and(a > 0, b > 0), (f32(6), f32(6))),
    "logical_or": (lambda a, b: torch.logical_or(a > 0, b > 0), (f32(6), f32(6))),
    "logical_not": (lambda a: torch.logical_not(a > 0), (f32(6),)),
    "where": (lambda c, a, b: torch.where(c > 0, a, b), (f32(2, 3), f32(2, 3), f32(3))),
    "masked_fill": (lambda a, m: a.masked_fill(m > 0, -1e4), (f32(2, 3), f32(2, 3))),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), (f32(6),)),
    "clamp_min": (lambda a: a.clamp(min=0.1), (f32(6),)),
    "clamp_int": (lambda a: a.clamp(-3, 3), (ints(6),)),
    # unary
    **{name: (getattr(torch, name), (f32(2, 5),)) for name in
       ("abs", "neg", "floor", "ceil", "sign", "relu", "exp", "sin", "cos", "tanh", "sigmoid", "erf", "atan")},
    "log": (torch.log, (positive(2, 5),)),
    "sqrt": (torch.sqrt, (positive(2, 5),)),
    "rsqrt": (torch.rsqrt, (positive(2, 5),)),
    "reciprocal": (torch.reciprocal, (positive(2, 5),)),
    "log1p": (torch.log1p, (positive(2, 5),)),
    "round": (torch.round, (f32(8) * 3,)),
    "trunc": (torch.trunc, (f32(8) * 3,)),
    "exp_of_ints": (torch.exp, (ints(4, high=3),)),
    # activations
    "gelu": (F.gelu, (f32(2, 8),)),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), (f32(2, 8),)),
    "silu": (F.silu, (f32(2, 8),)),
    "hardswish": (F.hardswish, (f32(2, 8) * 4,)),
    "hardsigmoid": (F.hardsigmoid, (f32(2, 8) * 4,)),
    "mish": (F.mish, (f32(2, 8),)),
    "hardtanh": (lambda a: F.hardtanh(a, -0.5, 2.0), (f32(2, 8),)),
    "relu6": (F.relu6, (f32(2, 8) * 5,)),
    "leaky_relu": (lambda a: F.leaky_relu(a, 0.2), (f32(2, 8),)),
    "elu": (F.elu, (f32(2, 8),)),
    "selu": (F.selu, (f32(2, 8),)),
    "softplus": (F.softplus, (f32(2, 8),)),
    "softplus_beta": (lambda a: F.softplus(a, beta=2.0), (f32(2, 8),)),
    "softmax": (lambda a: F.softmax(a, -1), (f32(2, 3, 5),)),
    "softmax_dim1": (lambda a: F.softmax(a, 1), (f32(2, 3, 5),)),
    "log_softmax": (lambda a: F.log_softmax(a, -1), (f32(2, 5),)),
    # convolution and pooling
    "conv1d": (nn.Conv1d(3, 4, 3, padding=1), (f32(1, 3, 10),)),
    "conv2d": (nn.Conv2d(3, 4, 3, stride=2, padding=1, dilation=1), (X,)),
    "conv2d_dilated": (nn.Conv2d(3, 4, 3, padding=2, dilation=2, bias=False), (X,)),
    "conv2d_grouped": (nn.Conv2d(4, 8, 3, groups=2), (f32(1, 4, 8, 8),)),
    "conv2d_depthwise": (nn.Conv2d(4, 4, 3, groups=4, padding=1), (f32(1, 4, 8, 8),)),
    "conv2d_same": (nn.Conv2d(3, 4, 3, padding="same"), (X,)),
    "conv3d": (nn.Conv3d(2, 3, 3, padding=1), (f32(1, 2, 4, 6, 6),)),
    "conv_transpose2d": (nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1), (X,)),
    "conv_transpose2d_grouped": (nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2), (f32(1, 4, 5, 5),)),
    "conv_transpose1d": (nn.ConvTranspose1d(3, 2, 4, stride=2), (f32(1, 3, 7),)),
    "max_pool2d": (nn.MaxPool2d(3, 2, 1), (X,)),
    "max_pool2d_ceil": (nn.MaxPool2d(3, 2, ceil_mode=True), (f32(1, 3, 10, 10),)),
    "max_pool2d_indices": (nn.MaxPool2d(2, return_indices=True), (X,)),
    "avg_pool2d": (nn.AvgPool2d(3, 2, 1), (X,)),
    "avg_pool2d_exclude_pad": (nn.AvgPool2d(3, 2, 1, count_include_pad=False), (X,)),
    "avg_pool1d": (nn.AvgPool1d(2), (f32(1, 3, 8),)),
    "adaptive_avg_pool2d": (nn.AdaptiveAvgPool2d((2, 3)), (f32(1, 3, 8, 9),)),
    "adaptive_avg_pool2d_global": (nn.AdaptiveAvgPool2d(1), (X,)),
    # products
    "linear": (nn.Linear(8, 4), (f32(2, 3, 8),)),
    "linear_no_bias": (nn.Linear(8, 4, bias=False), (f32(2, 8),)),
    "matmul": (torch.matmul, (f32(2, 3, 4), f32(4, 5))),
    "matmul_batched": (torch.matmul, (f32(2, 1, 3, 4), f32(3, 4, 5))),
    "bmm": (torch.bmm, (f32(2, 3, 4), f32(2, 4, 5))),
    "mm": (torch.mm, (f32(3, 4), f32(4, 5))),
    "addmm": (lambda b, x, y: torch.addmm(b, x, y, beta=0.5, alpha=2.0), (f32(5), f32(3, 4), f32(4, 5))),
    "einsum": (lambda a, b: torch.einsum("bij,bjk->bik", a, b), (f32(2, 3, 4), f32(2, 4, 5))),
    "embedding": (nn.Embedding(10, 4), (torch.randint(0, 10, (2, 5)),)),
    # normalisation
    "layer_norm": (nn.LayerNorm(8), (f32(2, 3, 8),)),
    "layer_norm_2d": (nn.LayerNorm((3, 8), elementwise_affine=False), (f32(2, 3, 8),)),
    "group_norm": (nn.GroupNorm(2, 4), (f32(2, 4, 5, 5),)),
    "batch_norm": (nn.BatchNorm2d(3), (X,)),
    "batch_norm_1d": (nn.BatchNorm1d(3), (f32(2, 3, 7),)),
    "instance_norm": (nn.InstanceNorm2d(3, affine=True), (X,)),
    # attention and resampling
    "sdpa": (F.scaled_dot_product_attention, (f32(2, 4, 6, 8), f32(2, 4, 7, 8), f32(2, 4, 7, 8))),
    "sdpa_causal": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                    (f32(1, 2, 5, 8), f32(1, 2, 5, 8), f32(1, 2, 5, 8))),
    "sdpa_float_mask_scale": (lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
                              (f32(1, 2, 5, 8), f32(1, 2, 6, 8), f32(1, 2, 6, 8), f32(5, 6))),
    "sdpa_bool_mask": (lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m > -1),
                       (f32(1, 2, 5, 8), f32(1, 2, 6, 8), f32(1, 2, 6, 8), f32(1, 1, 5, 6))),
    "interpolate_nearest": (lambda a: F.interpolate(a, scale_factor=2, mode="nearest"), (X,)),
    "interpolate_nearest_size": (lambda a: F.interpolate(a, size=(5, 11), mode="nearest"), (X,)),
    "interpolate_bilinear": (lambda a: F.interpolate(a, scale_factor=2, mode="bilinear"), (X,)),
    "interpolate_bilinear_aligned": (lambda a: F.interpolate(a, size=(5, 12), mode="bilinear", align_corners=True),
                                     (X,)),
    "interpolate_bicubic": (lambda a: F.interpolate(a, size=(12, 12), mode="bicubic"), (X,)),
    "pixel_shuffle": (nn.PixelShuffle(2), (f32(1, 8, 3, 3),)),
    # shapes
    "view": (lambda a: a.view(2, -1), (X,)),
    "reshape_flat": (lambda a: a.reshape(-1), (X,)),
    "flatten": (lambda a: torch.flatten(a, 1), (X,)),
    "flatten_middle": (lambda a: torch.flatten(a, 1, 2), (X,)),
    "permute": (lambda a: a.permute(0, 2, 3, 1), (X,)),
    "transpose": (lambda a: a.transpose(1, -1), (X,)),
    "t": (lambda a: a.t(), (f32(3, 4),)),
    "unsqueeze": (lambda a: a.unsqueeze(-1), (f32(3, 4),)),
    "squeeze_dim": (lambda a: a.squeeze(1), (f32(3, 1, 4),)),
    "squeeze_not_one": (lambda a: a.squeeze(0), (f32(3, 1, 4),)),
    "squeeze_all": (lambda a: a.squeeze(), (f32(3, 1, 4, 1),)),
    "expand": (lambda a: a.expand(2, -1, 4), (f32(1, 3, 1),)),
    "cat": (lambda a, b: torch.cat([a, b], 1), (f32(2, 3), f32(2, 4))),
    "cat_mixed_types": (lambda a, b: torch.cat([a, b], 0), (f32(2, 3), ints(1, 3))),
    "stack": (lambda a, b: torch.stack([a, b], -1), (f32(2, 3), f32(2, 3))),
    "slice": (lambda a: a[:, 1:3, ::2], (X,)),
    "slice_negative": (lambda a: a[..., -3:], (X,)),
    "select": (lambda a: a[:, 1], (X,)),
    "select_negative": (lambda a: a[..., -1], (X,)),
    "split": (lambda a: torch.split(a, 3, dim=1), (f32(2, 8),)),
    "split_sizes": (lambda a: torch.split(a, [2, 5, 1], dim=1), (f32(2, 8),)),
    "pow_of_a_number": (lambda a: 2.0**a, (f32(2, 3),)),
    "chunk": (lambda a: torch.chunk(a, 2, dim=-1), (f32(2, 8),)),
    "unbind": (lambda a: torch.unbind(a, 1), (f32(2, 3, 4),)),
    "to_dtype": (lambda a: a.to(torch.int32), (f32(6) * 10,)),
    "to_float": (lambda a: a.float(), (ints(6),)),
    "pad": (lambda a: F.pad(a, (1, 2, 0, 3), value=0.5), (X,)),
    "repeat": (lambda a: a.repeat(2, 1, 3), (f32(3, 4),)),
    "flip": (lambda a: torch.flip(a, [1, 2]), (f32(2, 3, 4),)),
    "roll": (lambda a: torch.roll(a, 2, 1), (f32(2, 5),)),
    "roll_flat": (lambda a: torch.roll(a, 3), (f32(2, 5),)),
    "clone_contiguous": (lambda a: a.transpose(0, 1).contiguous(), (f32(2, 5),)),
    # reductions
    "sum": (lambda a: a.sum(1), (X,)),
    "sum_all": (lambda a: a.sum(), (X,)),
    "sum_int": (lambda a: a.sum(-1, keepdim=True), (ints(3, 4),)),
    "mean": (lambda a: a.mean((2, 3), keepdim=True), (X,)),
    "amax": (lambda a: a.amax(-1), (X,)),
    "amin": (lambda a: a.amin((0, 1)), (X,)),
    "prod": (lambda a: a.prod(1), (positive(3, 4),)),
    "var": (lambda a: a.var(1), (f32(3, 6),)),
    "std_unbiased_false": (lambda a: a.std(-1, unbiased=False, keepdim=True), (f32(3, 6),)),
    "any": (lambda a: (a > 1).any(1), (f32(3, 6),)),
    "all": (lambda a: (a > -1).all(), (f32(3, 6),)),
    "max_dim": (lambda a: a.max(1), (f32(3, 6),)),
    "min_dim_keep": (lambda a: a.min(-1, keepdim=True), (f32(3, 6),)),
    "argmax": (lambda a: a.argmax(-1), (f32(3, 6),)),
    "argmin_flat": (lambda a: a.argmin(), (f32(3, 6),)),
    "topk": (lambda a: torch.topk(a, 3, dim=-1), (f32(3, 6),)),
    "topk_smallest": (lambda a: torch.topk(a, 2, dim=0, largest=False), (f32(4, 6),)),
    "cumsum": (lambda a: torch.cumsum(a, 1), (f32(3, 6),)),
    "norm": (lambda a: torch.linalg.vector_norm(a, dim=-1), (f32(3, 6),)),
    "normalize": (lambda a: F.normalize(a, dim=-1), (f32(3, 6),)),
    # creation and indexing
    "zeros_like": (lambda a: torch.zeros_like(a) + a, (f32(2, 3),)),
    "ones": (lambda a: a + torch.ones(2, 3), (f32(2, 3),)),
    "full": (lambda a: a * torch.full((3,), 2.5), (f32(2, 3),)),
    "arange": (lambda a: a + torch.arange(3), (f32(2, 3),)),
    "arange_step": (lambda a: a * torch.arange(1, 7, 2).float(), (f32(2, 3),)),
    "tril": (lambda a: torch.tril(a), (f32(4, 4),)),
    "triu_diagonal": (lambda a: torch.triu(a, 1), (f32(3, 5),)),
    "index_select": (lambda a, i: torch.index_select(a, 1, i), (f32(3, 5), torch.tensor([4, 0, 2]))),
    "gather": (lambda a, i: torch.gather(a, 1, i), (f32(3, 5), torch.randint(0, 5, (3, 2)))),
    "index_one": (lambda a, i: a[:, i], (f32(3, 5), torch.tensor([4, 0, 2]))),
    "index_two": (lambda a, i, j: a[i, j], (f32(3, 5), torch.tensor([2, 0]), torch.tensor([4, 1]))),
    "scatter": (lambda a, i, u: a.scatter(1, i, u), (f32(3, 5), torch.tensor([[0, 4], [1, 2], [3, 3]]), f32(3, 2))),
    "scatter_value": (lambda a, i: a.scatter(0, i, 2.5), (f32(3, 5), torch.randint(0, 3, (2, 5)))),
    "slice_assign": (lambda a, b: torch.slice_scatter(a, b, 1, 1, 5, 2), (f32(3, 6), f32(3, 2))),
    "index_put": (lambda a, i, v: torch.index_put(a, (i,), v), (f32(5, 4), torch.tensor([3, 0]), f32(2, 4))),
    "index_put_accumulate": (lambda a, i, v: torch.index_put(a, (i,), v, accumulate=True),
                             (f32(5, 4), torch.tensor([1, 4]), f32(4))),
    "index_put_two_indices": (lambda a, i, j: torch.index_put(a, (i, j), torch.tensor(7.0)),
                              (f32(4, 5, 3), torch.tensor([[0], [3]]), torch.tensor([1, 4]))),
    "index_put_middle_axis": (_put_middle_axis, (f32(2, 5, 3), torch.tensor([4, 1]), f32(2, 2, 3))),
    "index_put_apart_axes": (_put_apart_axes, (f32(3, 2, 3), torch.tensor([2, 0]), f32(2, 2))),
    "index_put_boolean_mask": (lambda a, m: torch.index_put(a, (m,), torch.tensor(-1.0)),
                               (f32(3, 4), torch.rand(3, 4) > 0.5)),
    "index_put_accumulate_repeated": (lambda a, i, j, v: torch.index_put(a, (i, j), v, accumulate=True),
                                      (f32(3, 4), torch.tensor([0, 2, 0]), torch.tensor([1, 1, 1]), f32(3))),
    "prelu": (nn.PReLU(3), (f32(2, 3, 4),)),
    # ops of torch.export's programs that are read without decomposing them
    "to_float_from_int64": (lambda a: a.to(torch.float32) * 1.5, (ints(2, 3),)),
    "type_as": (lambda a, b: a.type_as(b) + b, (ints(2, 3), f32(2, 3))),
    "new_ones": (lambda a: a + a.new_ones(2, 3), (f32(2, 3),)),
    "new_zeros": (lambda a: a + a.new_zeros((2, 3)), (f32(2, 3),)),
    "new_full": (lambda a: a * a.new_full((2, 3), 1.5), (f32(2, 3),)),
    "zeros": (lambda a: a + torch.zeros(2, 3, dtype=torch.int64), (ints(2, 3),)),
    "ones_like": (lambda a: a + torch.ones_like(a), (f32(2, 3),)),
    "and_masks": (lambda a, b: (a > 0) & (b > 0), (f32(2, 3), f32(2, 3))),
    "or_masks": (lambda a, b: (a > 0) | (b > 0), (f32(2, 3), f32(2, 3))),
    "xor_ints": (lambda a, b: a ^ b, (ints(2, 3), ints(2, 3))),
    "where_scalar_other": (lambda a: torch.where(a > 0, a, 0.5), (f32(2, 3),)),
    "where_scalar_self": (lambda a: torch.where(a > 0, 2.0, a), (f32(2, 3),)),
    "relu_in_place": (nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True), nn.Linear(4, 2)), (f32(3, 4),)),
    "add_in_place_then_used": (lambda a, b: _add_in_place(a * 2, b), (f32(2, 3), f32(2, 3))),
    "add_in_place_into_a_view": (lambda a, b: _add_into_first_row(a * 2, b), (f32(2, 3), f32(3))),
    "number_to_a_tensor_power": (lambda a: 2.0**a, (f32(2, 3),)),
    "chunk_uneven": (lambda a: torch.chunk(a, 3, dim=1), (f32(2, 7),)),
    "min_other": (lambda a, b: torch.min(a, b), (f32(2, 3), f32(3))),
    "max_other": (lambda a, b: torch.max(a, b), (f32(2, 3), f32(2, 3))),
    "broadcast_to": (lambda a: torch.broadcast_to(a, (4, 2, 3)), (f32(2, 1),)),
    "expand_as": (lambda a, b: a.expand_as(b) + b, (f32(1, 3), f32(4, 3))),
    "reshape_as": (lambda a, b: a.reshape_as(b) * b, (f32(2, 6), f32(3, 4))),
    "detach_in_place": (lambda a: (a * 2).detach_() + 1, (f32(2, 3),)),
    "dropout_in_eval": (nn.Dropout(0.5), (f32(2, 3),)),
    # sorting, and results whose length depends on the values
    "sort": (lambda a: torch.sort(a, dim=1), (f32(3, 6),)),
    "sort_descending_stable": (lambda a: torch.sort(a, dim=0, descending=True, stable=True), (ints(5, 3, high=3),)),
    "argsort": (lambda a: torch.argsort(a, dim=-1), (f32(4, 5),)),
    "argsort_descending": (lambda a: torch.argsort(a, dim=0, descending=True), (f32(4, 5),)),
    "topk_of_the_length": (lambda a: torch.topk(a, a.shape[1] // 2, dim=1), (f32(3, 6),)),
    "mask_index": (lambda a: a[a > 0], (f32(3, 4),)),
    "mask_index_inner": (lambda a: a[:, a[0] > 0], (f32(3, 6),)),
    "mask_index_two_axes": (lambda a, m: a[m], (f32(3, 4, 2), torch.rand(3, 4) > 0.5)),
    "masked_select_broadcast": (lambda a, m: torch.masked_select(a, m), (f32(3, 4), torch.rand(4) > 0.5)),
    "nonzero": (lambda a: torch.nonzero(a > 0), (f32(3, 4),)),
    "unique": (lambda a: torch.unique(a, return_inverse=True, return_counts=True), (ints(3, 5, high=4),)),
    "unfold_windows": (lambda a: a.unfold(2, 3, 2), (f32(2, 3, 9, 4),)),
    "unfold_last_axis_overlapping": (lambda a: a.unfold(-1, 4, 1) * 2, (f32(3, 7),)),
    "log2": (torch.log2, (positive(2, 5),)),
    "var_mean": (lambda a: torch.var_mean(a, dim=1, keepdim=True), (f32(2, 4, 3),)),
    "var_mean_reduced_uncorrected": (lambda a: torch.var_mean(a, dim=(0, 2), unbiased=False), (f32(2, 4, 3),)),
    "adaptive_max_pool2d": (nn.AdaptiveMaxPool2d((2, 3), return_indices=True), (f32(1, 3, 7, 8),)),
    "adaptive_max_pool1d": (nn.AdaptiveMaxPool1d(3), (f32(2, 3, 10),)),
    "adaptive_max_pool3d": (nn.AdaptiveMaxPool3d(2), (f32(1, 2, 5, 4, 6),)),
    "fold_overlapping": (nn.Fold((7, 8), 3, padding=1, stride=2), (f32(2, 18, 16),)),
    "fold_dilated_unbatched": (nn.Fold((6, 6), (2, 3), dilation=2), (f32(12, 8),)),
    "fold_of_unfold": (nn.Sequential(nn.Unfold(3, padding=1), nn.Fold((5, 5), 3, padding=1)), (f32(1, 3, 5, 5),)),
    "batch_norm_of_its_own_statistics": (lambda a, w: F.batch_norm(a, None, None, w, w + 1, training=True, eps=1e-3),
                                         (f32(2, 3, 4, 5), positive(3))),
    "batch_norm_without_running_statistics": (nn.Sequential(nn.BatchNorm1d(4, track_running_stats=False)),
                                              (f32(5, 4),)),
    "weight_standardisation": (lambda a, w: F.conv2d(a, F.batch_norm(w.reshape(1, 6, -1), None, None, training=True,
                                                                     momentum=0.0).reshape_as(w)),
                               (f32(1, 4, 8, 8), f32(6, 4, 3, 3))),
    "fill_in_place": (lambda a: (a * 2).fill_(0.5) + a, (f32(2, 3),)),
    "meshgrid_ij": (lambda a, b: torch.meshgrid(a, b, indexing="ij"), (f32(3), f32(4))),
    "meshgrid_xy_three": (lambda a, b, c: torch.meshgrid(a, b, c, indexing="xy"), (f32(3), f32(4), f32(2))),
    "native_batch_norm_without_statistics": (
        lambda a, w: torch.ops.aten._native_batch_norm_legit.no_stats(a, w, w - 1, True, 0.1, 1e-3)[0],
        (f32(2, 3, 4, 5), positive(3))),
    "index_two_inner": (lambda a, i, j: a[:, i, j], (f32(2, 3, 5), torch.tensor([2, 0]), torch.tensor([4, 1]))),
}


def sampled(names: list[str], every: int = 4) -> list[Any]:
    """Every case, one in ``every`` (a fixed spread) in the quick run and the others marked
    slow: each case exports a program, about 3 s; ``-m slow`` runs the rest."""
    return [pytest.param(name, marks=() if i % every == 0 else pytest.mark.slow) for i, name in enumerate(names)]


@pytest.mark.parametrize("name", sampled(sorted(CASES)))
def test_op_matches_torch_eager(name: str, tmp_path: Path) -> None:
    fn, inputs = CASES[name]
    module = fn if isinstance(fn, nn.Module) else Fn(fn)
    if isinstance(module, nn.modules.batchnorm._BatchNorm):
        module.running_mean.uniform_(-0.5, 0.5)
        module.running_var.uniform_(0.5, 1.5)
    check_module(module, inputs, tmp_path, rtol=1e-4, atol=1e-5)


DYNAMIC_CASES: dict[str, tuple[Callable[..., Any], torch.Tensor, dict[int, Any], torch.Tensor]] = {
    "view_keeps_the_batch": (lambda a: a.view(a.shape[0], -1), f32(2, 3, 4), {0: "batch"}, f32(5, 3, 4)),
    "reshape_of_a_product": (lambda a: a.reshape(a.shape[0] * a.shape[1], 4), f32(2, 3, 4), {0: "batch", 1: "seq"},
                             f32(3, 5, 4)),
    "expand_to_the_batch": (lambda a: a + torch.zeros(1, 4).expand(a.shape[0], 4), f32(2, 4), {0: "batch"},
                            f32(6, 4)),
    "arange_of_the_length": (lambda a: a + torch.arange(a.shape[1]), f32(2, 3), {1: "seq"}, f32(2, 7)),
    "slice_to_the_length": (lambda a: a[:, 1 : a.shape[1] - 1], f32(2, 6), {1: "seq"}, f32(2, 10)),
    "conv_on_any_batch": (nn.Conv2d(3, 4, 3), f32(2, 3, 8, 8), {0: "batch"}, f32(3, 3, 8, 8)),
    "unfold_of_the_length": (lambda a: a.unfold(1, 2, 2), f32(2, 6, 3), {1: "seq"}, f32(2, 9, 3)),
    "tril_mask_of_the_length": (lambda a: torch.tril(torch.ones(a.shape[1], a.shape[1])) * a, f32(4, 4),
                                {0: "seq", 1: "seq"}, f32(6, 6)),
}


@pytest.mark.parametrize("name", sorted(DYNAMIC_CASES))
def test_dynamic_op_matches_torch_eager(name: str, tmp_path: Path) -> None:
    fn, example, dims, other = DYNAMIC_CASES[name]
    module = fn if isinstance(fn, nn.Module) else Fn(fn)
    made: dict[str, Any] = {}
    spec = {axis: made.setdefault(label, torch.export.Dim(label, min=2, max=64)) for axis, label in dims.items()}
    shapes = (spec,) if isinstance(fn, nn.Module) else ((spec,),)  # Fn takes *inputs: a tuple of them
    check_module(module, (example,), tmp_path, runs=[(other,)], dynamic_shapes=shapes, rtol=1e-4, atol=1e-5)
