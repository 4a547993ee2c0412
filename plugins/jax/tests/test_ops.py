"""One small JAX function per StableHLO op family, converted and run in OpenVINO against
jax on CPU: the jax.numpy / jax.lax operations networks are made of."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax_support import check_compiled, check_function, convert_and_compile

RNG = np.random.default_rng(0)


def _f(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _positive(*shape: int) -> np.ndarray:
    return (RNG.random(shape) + 0.1).astype(np.float32)


def _i(*shape: int) -> np.ndarray:
    return RNG.integers(-20, 20, shape).astype(np.int32)


X, Y = _f(2, 3, 4), _f(2, 3, 4)

CASES: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    # arithmetic
    "add": (jnp.add, (X, Y)),
    "subtract": (jnp.subtract, (X, Y)),
    "multiply": (jnp.multiply, (X, Y)),
    "divide": (jnp.divide, (X, _positive(2, 3, 4))),
    "divide_int_truncates": (lax.div, (_i(3, 5), np.array([[3, -3, 7, -7, 2]] * 3, np.int32))),
    "remainder": (lax.rem, (_i(3, 5), np.array([[3, -3, 7, -7, 2]] * 3, np.int32))),
    "maximum": (jnp.maximum, (X, Y)),
    "minimum": (jnp.minimum, (X, Y)),
    "power": (lax.pow, (_positive(2, 3), _f(2, 3))),
    "atan2": (jnp.arctan2, (X, Y)),
    "broadcasting_scalar": (lambda a: a * 2.0 + 1.0, (X,)),
    # unary
    "abs": (jnp.abs, (X,)),
    "negative": (jnp.negative, (X,)),
    "exp": (jnp.exp, (X,)),
    "log": (jnp.log, (_positive(2, 3, 4),)),
    "sqrt": (jnp.sqrt, (_positive(2, 3, 4),)),
    "rsqrt": (lax.rsqrt, (_positive(2, 3, 4),)),
    "tanh": (jnp.tanh, (X,)),
    "sigmoid": (jax.nn.sigmoid, (X,)),
    "sin": (jnp.sin, (X,)),
    "cos": (jnp.cos, (X,)),
    "tan": (jnp.tan, (X * 0.5,)),
    "floor": (jnp.floor, (X * 3,)),
    "ceil": (jnp.ceil, (X * 3,)),
    "sign": (jnp.sign, (X,)),
    "expm1": (jnp.expm1, (X,)),
    "log1p": (jnp.log1p, (_positive(2, 3, 4),)),
    "round_half_even": (jnp.round, (np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.2], np.float32),)),
    "erf": (lax.erf, (X,)),
    "isfinite": (jnp.isfinite, (np.array([1.0, np.inf, -np.inf, np.nan], np.float32),)),
    # comparisons, logic, select, clamp, convert
    "greater_where": (lambda a, b: jnp.where(a > b, a, b * 2), (X, Y)),
    "equal": (lambda a, b: a == b, (_i(4, 4), _i(4, 4))),
    "logical": (lambda a, b: jnp.logical_not(jnp.logical_and(a > 0, b < 0) | (a > b)), (X, Y)),
    "bitwise": (lambda a, b: (a & b) ^ (a | 3), (_i(3, 3), _i(3, 3))),
    # amounts past the width included: StableHLO defines them (0, or the sign fill)
    "shift_left": (lax.shift_left, (_i(3, 4), np.array([[0, 1, 5, 31], [32, 40, -1, 3], [2, 2, 2, 2]], np.int32))),
    "shift_right_arithmetic": (lax.shift_right_arithmetic,
                               (_i(3, 4), np.array([[0, 1, 5, 31], [32, 40, -1, 3], [2, 2, 2, 2]], np.int32))),
    "shift_right_logical_unsigned": (lax.shift_right_logical, (np.array([1, 2**31 + 5, 2**32 - 1, 7], np.uint32),
                                                               np.array([0, 3, 31, 33], np.uint32))),
    "shift_right_logical_signed": (lax.shift_right_logical,
                                   (_i(3, 4), np.array([[0, 1, 5, 31], [32, 40, -1, 3], [2, 2, 2, 2]], np.int32))),
    "shift_left_unsigned": (lax.shift_left, (np.array([1, 2**31 + 5, 2**32 - 1, 7], np.uint32),
                                             np.array([0, 3, 31, 33], np.uint32))),
    "shift_right_logical_u8": (lax.shift_right_logical, (np.array([1, 133, 255, 7], np.uint8),
                                                         np.array([0, 3, 7, 9], np.uint8))),
    "clamp": (lambda a: lax.clamp(-0.5, a, 0.5), (X,)),
    "clip": (lambda a: jnp.clip(a, -0.3, 0.7), (X,)),
    "astype": (lambda a: (a * 10).astype(jnp.int32), (X,)),
    # shapes
    "reshape": (lambda a: a.reshape(4, 6), (X,)),
    "transpose": (lambda a: a.transpose(2, 0, 1), (X,)),
    "concatenate": (lambda a, b: jnp.concatenate([a, b, a], axis=1), (X, Y)),
    "slice": (lambda a: a[:, 1:3, ::2], (X,)),
    "pad": (lambda a: jnp.pad(a, ((0, 0), (1, 2), (2, 0))), (X,)),
    "pad_crop": (lambda a: lax.pad(a, 1.5, ((0, 0, 0), (-1, 1, 0), (1, -2, 0))), (X,)),
    "broadcast_to": (lambda a: jnp.broadcast_to(a[:, None, :], (3, 5, 4)), (_f(3, 4),)),
    "broadcast_in_dim_permuted": (lambda a: lax.broadcast_in_dim(a, (4, 2, 3), (2, 0)), (_f(3, 4),)),
    "expand_squeeze": (lambda a: jnp.squeeze(jnp.expand_dims(a, 1), 1) + 1, (X,)),
    "iota": (lambda a: a + jnp.arange(4, dtype=jnp.float32), (X,)),
    # indexing
    "embedding_lookup": (lambda t, i: t[i], (_f(10, 4), np.array([[1, 9, 0], [3, 3, -2]], np.int32))),
    "take_axis1": (lambda t, i: jnp.take(t, i, axis=1), (_f(3, 5, 2), np.array([4, 0, 2], np.int32))),
    "take_clipped": (lambda t, i: jnp.take(t, i, axis=0, mode="clip"), (_f(5, 3), np.array([7, -3, 2], np.int32))),
    "point_gather": (lambda t, i: t[i[:, 0], i[:, 1]], (_f(4, 5, 3), np.array([[1, 2], [3, 4], [0, 0]], np.int32))),
    "dynamic_slice": (lambda t, i: lax.dynamic_slice(t, (i[0], i[1]), (2, 3)), (_f(5, 6), np.array([4, 1], np.int32))),
    "dynamic_update_slice": (lambda t, u, i: lax.dynamic_update_slice(t, u, (i[0], i[1])),
                             (_f(5, 6), _f(2, 3), np.array([4, 2], np.int32))),
    "at_set_rows": (lambda t, i, u: jnp.asarray(t).at[i].set(u), (_f(5, 3), np.array([4, 1], np.int32), _f(2, 3))),
    "at_add_repeated": (lambda t, i, u: jnp.asarray(t).at[i].add(u), (_f(5, 3), np.array([[0, 2], [2, 2]], np.int32), _f(2, 2, 3))),
    "at_max_points": (lambda t, i, u: jnp.asarray(t).at[i[:, 0], i[:, 1]].max(u),
                      (_f(4, 5), np.array([[0, 1], [3, 4], [0, 1]], np.int32), _f(3))),
    "at_set_block": (lambda t, u: jnp.asarray(t).at[1:3, 2:5].set(u), (_f(5, 6), _f(2, 3))),
    "reverse": (lambda t: t[::-1, :, ::-1], (X,)),
    "argmax": (lambda a: jnp.argmax(a, axis=1), (np.array([[1, 5, 5, 2], [3, 3, 0, 9], [7, 7, 7, 7]], np.float32),)),
    "argmin_last_axis": (lambda a: jnp.argmin(a, axis=-1), (X,)),
    "sort": (lambda a: jnp.sort(a, axis=1), (X,)),
    "argsort_descending_ties": (lambda a: jnp.argsort(-a, axis=0), (np.array([[1, 2], [3, 2], [1, 5], [3, 0]], np.float32),)),
    "sort_pairs": (lambda a, b: lax.sort((a, b), dimension=0, num_keys=1), (_f(5, 2), _i(5, 2))),
    "top_k": (lambda a: lax.top_k(a, 3), (np.array([[1, 5, 5, 2, 0], [3, 3, 3, 1, 9]], np.float32),)),
    "optimization_barrier": (lambda a: lax.optimization_barrier(a) * 2, (X,)),
    "bf16_weights": (lambda a, w: a @ w.astype(jnp.bfloat16).astype(jnp.float32) + jnp.asarray(
        [0.1, -2.5, np.nan, 3e38], jnp.bfloat16)[:3].astype(jnp.float32)[None, :],
        (_f(2, 5), _f(5, 3))),
    "bf16_splat_and_table": (lambda a: a * jnp.full((4,), 1.5, jnp.bfloat16).astype(jnp.float32)
                             + jnp.asarray(np.linspace(-3, 3, 4), jnp.bfloat16).astype(jnp.float32), (_f(3, 4),)),
    # reductions
    "sum": (lambda a: jnp.sum(a, axis=(0, 2)), (X,)),
    "mean": (lambda a: jnp.mean(a, axis=-1), (X,)),
    "max": (lambda a: jnp.max(a, axis=1), (X,)),
    "min": (lambda a: jnp.min(a), (X,)),
    "prod": (lambda a: jnp.prod(a, axis=0), (X,)),
    "any_all": (lambda a: (jnp.any(a > 1.0, axis=1), jnp.all(a > -2.0, axis=2)), (X,)),
    "reduce_with_init": (lambda a: lax.reduce(a, 1.5, lax.add, (1,)), (X,)),
    "max_int": (lambda a: jnp.max(a, axis=0), (_i(3, 5),)),
    "min_int_with_init": (lambda a: lax.reduce(a, np.int32(-3), lax.min, (1,)), (_i(3, 5),)),
    "boolean_constant": (lambda a: jnp.where(jnp.array([True, False, True, True]), a, -a), (X,)),
    # linear algebra
    "matmul": (jnp.matmul, (_f(3, 4), _f(4, 5))),
    "batched_matmul": (jnp.matmul, (_f(2, 3, 4), _f(2, 4, 5))),
    "einsum_attention": (lambda q, k: jnp.einsum("bqhd,bkhd->bhqk", q, k), (_f(2, 5, 3, 4), _f(2, 6, 3, 4))),
    "dot_vector": (jnp.dot, (_f(4), _f(4, 3))),
    "dense_transposed": (lambda a, w: a @ w.T, (_f(2, 8), _f(5, 8))),
    # convolutions and pools
    "conv_nhwc_hwio": (lambda a, w: lax.conv_general_dilated(a, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
                       (_f(1, 7, 7, 3), _f(3, 3, 3, 4))),
    "conv_nchw_strided_dilated": (lambda a, w: lax.conv_general_dilated(a, w, (2, 2), ((1, 2), (0, 1)), rhs_dilation=(2, 1)),
                                  (_f(2, 3, 9, 8), _f(4, 3, 3, 3))),
    "conv_grouped": (lambda a, w: lax.conv_general_dilated(a, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                                           feature_group_count=2), (_f(1, 6, 6, 4), _f(3, 3, 2, 6))),
    "conv_depthwise": (lambda a, w: lax.conv_general_dilated(a, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                                             feature_group_count=4), (_f(1, 6, 6, 4), _f(3, 3, 1, 4))),
    "conv_1d": (lambda a, w: lax.conv_general_dilated(a, w, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
                (_f(2, 10, 3), _f(3, 3, 5))),
    "conv_transpose_strided": (lambda a, w: lax.conv_transpose(a, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
                               (_f(1, 5, 5, 3), _f(3, 3, 3, 4))),
    "conv_transpose_valid_dilated": (lambda a, w: lax.conv_transpose(a, w, (3, 2), "VALID", rhs_dilation=(1, 2),
                                                                     dimension_numbers=("NCHW", "OIHW", "NCHW")),
                                     (_f(2, 3, 4, 5), _f(4, 3, 2, 3))),
    "max_pool": (lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), (_f(2, 7, 7, 3),)),
    "sum_pool": (lambda a: lax.reduce_window(a, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"), (_f(2, 6, 6, 3),)),
    "sum_pool_padded_nchw": (lambda a: lax.reduce_window(a, 0.0, lax.add, (1, 1, 3, 3), (1, 1, 1, 1), "SAME"),
                             (_f(1, 2, 5, 5),)),
    "cumsum": (lambda a: jnp.cumsum(a, axis=1), (_f(3, 6),)),
    "cumsum_vector": (jnp.cumsum, (_f(7),)),
    "cummax": (lambda a: lax.cummax(a, axis=0), (_f(5, 3),)),
    "max_pool_1d_unbatched": (lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (3,), (2,), "VALID"), (_f(9),)),
    # activations and normalisations built from the ops above
    "relu": (jax.nn.relu, (X,)),
    "gelu_tanh": (jax.nn.gelu, (X,)),
    "gelu_erf": (lambda a: jax.nn.gelu(a, approximate=False), (X,)),
    "softmax": (lambda a: jax.nn.softmax(a, axis=-1), (X,)),
    "log_softmax": (lambda a: jax.nn.log_softmax(a, axis=1), (X,)),
    "silu": (jax.nn.silu, (X,)),
    "standardize": (lambda a: (a - a.mean(-1, keepdims=True)) * lax.rsqrt(a.var(-1, keepdims=True) + 1e-5), (X,)),
}


#: What a case computes where OpenVINO's CPU plugin runs bf16 as f32 (``irconv.runtime.rounds_to_bf16``):
#: the rounding of a run-time input to bf16 does not happen (constants are rounded when written).
UNROUNDED = {
    "bf16_weights": lambda a, w: a @ w + jnp.asarray([0.1, -2.5, np.nan], jnp.bfloat16).astype(jnp.float32)[None, :],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_jax(name: str, tmp_path: Path) -> None:
    from irconv.runtime import rounds_to_bf16

    function, inputs = CASES[name]
    if name in UNROUNDED and not rounds_to_bf16():
        compiled = convert_and_compile(function, tmp_path, example_input=inputs)
        check_compiled(compiled, UNROUNDED[name], [inputs])
        return
    check_function(function, inputs, tmp_path)


def test_shapes_computed_from_a_symbolic_dimension(tmp_path: Path) -> None:
    """Positions and a causal mask of a symbolic length: dynamic_iota, dynamic_broadcast_in_dim,
    dynamic_reshape and get_dimension_size, one IR for every length."""
    from jax import export

    def masked(x: jax.Array) -> jax.Array:
        n = x.shape[0]
        positions = jnp.arange(n, dtype=jnp.float32)[:, None]
        causal = jnp.arange(n)[:, None] >= jnp.arange(n)[None, :]
        scores = jnp.where(causal, x @ x.T, -1e9)
        return jax.nn.softmax(scores, axis=-1) @ (x + positions).reshape(n, -1)

    spec = jax.ShapeDtypeStruct(export.symbolic_shape("n, 4"), jnp.float32)
    check_function(masked, spec, tmp_path, runs=[_f(1, 4), _f(5, 4), _f(9, 4)])
