"""Attention (ai.onnx 23..25): scaled dot-product attention lowered to MatMul and SoftMax.

The ONNX function body of Attention gives NaN for a query row whose every key is masked
(SoftMax over a row of -inf); the spec gives 0. This extractor builds the same computation
from plain ops and zeroes such rows with a Select on "the row's additive bias is all -inf",
the condition the spec and the reference decide it on.

Steps, as the reference orders them: 3-D inputs split into heads; K/V appended to the past
cache (present_key/present_value); Q and K each scaled by sqrt(scale); K/V heads repeated
for grouped-query attention; Q·Kᵀ; softcap (tanh) before the mask; the additive bias from
attn_mask (bool or float, the last axis padded with -inf up to the total length), the
offset-aware causal mask, the sliding window (opset 25) and nonpad_kv_seqlen (opset 24);
SoftMax (in ``softmax_precision`` when given); the fully-masked-row guard; ·V.
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import extractor, f32, i64, require_rank
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Concat,
    Convert,
    Divide,
    Gather,
    Less,
    LessEqual,
    LogicalAnd,
    MatMul,
    Multiply,
    NotEqual,
    Pad,
    Power,
    Range,
    ReduceLogicalOr,
    Reshape,
    Select,
    ShapeOf,
    SoftMax,
    Subtract,
    Tanh,
    Tile,
    Transpose,
    Unsqueeze,
)
from irconv_opset.build import dims_of

from irconv_onnx.extractors._common import et_of_onnx
from irconv_onnx.extractors._optional import HANDLED, with_defaults

#: Everything the attention lowering may build (dims_of: ShapeOf and Gather).
ATTENTION_OPS = (Add, Concat, Convert, Divide, Less, LessEqual, LogicalAnd, MatMul, Multiply, NotEqual, Pad, Power, Range,
                 ReduceLogicalOr, Reshape, Select, SoftMax, Subtract, Tanh, Tile, Transpose, Unsqueeze, ShapeOf, Gather)

_BIAS_FROM_QK = 2  # qk_matmul_output_mode: QK after softcap plus the mask
_AFTER_SOFTMAX = 3  # qk_matmul_output_mode: the (guarded) softmax probabilities


def _float_const(ctx: ExtractContext, value: float, et: ElementType, suffix: str) -> OutPort:
    """A scalar of float type ``et`` (a narrow float, which NumPy lacks, through a Convert from f32)."""
    if et is ElementType.dynamic or not et.is_float or et.is_narrow_float:
        const = f32(ctx, value, suffix)
        if et.is_narrow_float:
            const = ctx.op(Convert(destination_type=et), const, suffix=f"{suffix}_{et.value}")
        return const
    return ctx.const(np.asarray(value, et.numpy), suffix=suffix)


def _static_dim(port: OutPort, axis: int) -> int | None:
    shape = port.data.shape
    return None if shape is None else shape[axis]


def _split_heads(ctx: ExtractContext, x: OutPort, heads: int, name: str) -> OutPort:
    """[B, S, H*D] -> [B, H, S, D]."""
    x = ctx.op(Reshape(special_zero=True), x, i64(ctx, [0, 0, heads, -1]), suffix=f"{name}_heads")
    return ctx.op(Transpose(), x, i64(ctx, [0, 2, 1, 3]), suffix=f"{name}_by_head")


def _merge_heads(ctx: ExtractContext, y: OutPort) -> OutPort:
    """[B, H, S, D] -> [B, S, H*D]."""
    y = ctx.op(Transpose(), y, i64(ctx, [0, 2, 1, 3]), suffix="y_by_position")
    return ctx.op(Reshape(special_zero=True), y, i64(ctx, [0, 0, -1]), suffix="y_merged")


def _repeat_heads(
    ctx: ExtractContext, x: OutPort, q: OutPort, kv_heads: int | None, q_heads: int | None, name: str
) -> OutPort:
    """Grouped-query attention: each K/V head repeated for its group of query heads, [h0, h0, h1, h1, ...]."""
    if kv_heads is not None and q_heads is not None:
        if kv_heads == q_heads:
            return x
        repeats = i64(ctx, [1, 1, q_heads // kv_heads, 1, 1], f"{name}_repeats")
    else:
        group = ctx.op(
            Divide(), dims_of(ctx, q, [1], "q_heads"), dims_of(ctx, x, [1], f"{name}_heads"), suffix=f"{name}_group"
        )
        repeats = ctx.op(Concat(axis=0), i64(ctx, [1, 1]), group, i64(ctx, [1, 1]), suffix=f"{name}_repeats")
    wide = ctx.op(Unsqueeze(), x, i64(ctx, [2]), suffix=f"{name}_unsqueezed")
    tiled = ctx.op(Tile(), wide, repeats, suffix=f"{name}_tiled")
    target = ctx.op(
        Concat(axis=0),
        dims_of(ctx, x, [0], f"{name}_batch"),
        dims_of(ctx, q, [1], f"{name}_q_heads"),
        dims_of(ctx, x, [2, 3], f"{name}_rows"),
        suffix=f"{name}_grouped_shape",
    )
    return ctx.op(Reshape(special_zero=False), tiled, target, suffix=f"{name}_grouped")


def _scale_root(ctx: ExtractContext, q: OutPort, scale: float | None, et: ElementType) -> OutPort:
    """sqrt(scale) in Q's type; the default scale is 1/sqrt(head_size)."""
    if scale is None:
        head = _static_dim(q, 3)
        if head is None:  # head_size ** -0.25 at run time
            size = ctx.op(Convert(destination_type=et), dims_of(ctx, q, 3, "head_size"), suffix="head_size_f")
            return ctx.op(Power(), size, _float_const(ctx, -0.25, et, "quarter"), suffix="scale_root")
        scale = 1.0 / np.sqrt(head)
    return _float_const(ctx, float(np.sqrt(np.float64(scale))), et, "scale_root")


def _bias_of(ctx: ExtractContext, allowed: OutPort, et: ElementType, name: str) -> OutPort:
    """A boolean mask as an additive bias: 0 where allowed, -inf elsewhere."""
    return ctx.op(
        Select(),
        allowed,
        _float_const(ctx, 0.0, et, f"{name}_zero"),
        _float_const(ctx, -np.inf, et, f"{name}_neg_inf"),
        suffix=f"{name}_bias",
    )


def _mask_bias(ctx: ExtractContext, total: OutPort, et: ElementType) -> OutPort:
    """attn_mask as an additive bias whose last axis is padded with -inf up to the total length."""
    mask = ctx.input(3)
    if ctx.input_type(3) is ElementType.boolean:
        mask = _bias_of(ctx, mask, et, "attn_mask")
    elif ctx.input_type(3) is not et:
        mask = ctx.op(Convert(destination_type=et), mask, suffix="attn_mask_converted")
    rank = require_rank(ctx, 3)
    length, wanted = _static_dim(mask, -1), total.constant(shape_derived=True)
    if length is not None and wanted is not None and int(np.asarray(wanted).reshape(-1)[0]) == length:
        return mask
    missing = ctx.op(Subtract(), total, dims_of(ctx, mask, [rank - 1], "attn_mask_length"), suffix="attn_mask_missing")
    ends = ctx.op(Concat(axis=0), i64(ctx, [0] * (rank - 1)), missing, suffix="attn_mask_pads_end")
    return ctx.op(
        Pad(pad_mode="constant"),
        mask,
        i64(ctx, [0] * rank),
        ends,
        _float_const(ctx, -np.inf, et, "attn_mask_pad_value"),
        suffix="attn_mask_padded",
    )


def _positions(ctx: ExtractContext, q: OutPort, keys: OutPort) -> tuple[OutPort, OutPort]:
    """Query positions as [L, 1] and key positions as [S] (i64)."""
    def positions(x: OutPort, what: str) -> OutPort:
        length = dims_of(ctx, x, 2, f"{what}_length")
        return ctx.op(Range(output_type=ElementType.i64), i64(ctx, 0), length, i64(ctx, 1), suffix=f"{what}_positions")

    rows = ctx.op(Unsqueeze(), positions(q, "q"), i64(ctx, [1]), suffix="q_positions_column")
    return rows, positions(keys, "kv")


@extractor("onnx", "Attention", versions=(23, 23), produces=ATTENTION_OPS)
@with_defaults({3: HANDLED, 4: HANDLED, 5: HANDLED})
def attention_v23(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return _attention(ctx, nonpad=None, windows=False)


@extractor("onnx", "Attention", versions=(24, 24), produces=ATTENTION_OPS)
@with_defaults({3: HANDLED, 4: HANDLED, 5: HANDLED, 6: HANDLED})
def attention_v24(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Opset 24 adds nonpad_kv_seqlen."""
    return _attention(ctx, nonpad=ctx.input(6) if ctx.has_input(6) else None, windows=False)


@extractor("onnx", "Attention", versions=(25, None), produces=ATTENTION_OPS)
@with_defaults({3: HANDLED, 4: HANDLED, 5: HANDLED, 6: HANDLED})
def attention_v25(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Opset 25 adds the left and right window sizes."""
    return _attention(ctx, nonpad=ctx.input(6) if ctx.has_input(6) else None, windows=True)


def _attention(ctx: ExtractContext, nonpad: OutPort | None, windows: bool) -> list[OutPort]:
    a = ctx.attrs
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    et = ctx.input_type(0)
    rank = require_rank(ctx, 0)
    q_heads: int | None
    kv_heads: int | None
    if rank == 3:
        q_heads, kv_heads = a.int("q_num_heads"), a.int("kv_num_heads")
        q = _split_heads(ctx, q, a.int("q_num_heads"), "q")
        k = _split_heads(ctx, k, a.int("kv_num_heads"), "k")
        v = _split_heads(ctx, v, a.int("kv_num_heads"), "v")
    elif rank == 4:
        q_heads, kv_heads = _static_dim(q, 1), _static_dim(k, 1)
    else:
        raise a.bad("Q", f"rank {rank}", "Q, K and V must be 3-D or 4-D")

    has_past = ctx.has_input(4) and ctx.has_input(5)
    if ctx.has_input(4) != ctx.has_input(5):
        raise a.bad("past_key", "given alone", "past_key and past_value must be given together")
    if has_past:
        k = ctx.op(Concat(axis=2), ctx.input(4), k, suffix="present_key")
        v = ctx.op(Concat(axis=2), ctx.input(5), v, suffix="present_value")
    present_key, present_value = k, v

    # Q·Kᵀ with Q and K each scaled by sqrt(scale), as the spec asks against overflow.
    root = _scale_root(ctx, q, a.float("scale", None), et)
    k = _repeat_heads(ctx, k, q, kv_heads, q_heads, "k")
    v = _repeat_heads(ctx, v, q, kv_heads, q_heads, "v")
    q_scaled = ctx.op(Multiply(), q, root, suffix="q_scaled")
    k_scaled = ctx.op(Multiply(), k, root, suffix="k_scaled")
    qk = ctx.op(MatMul(transpose_a=False, transpose_b=True), q_scaled, k_scaled, suffix="qk")
    softcap = a.float("softcap", 0.0)
    if softcap > 0:  # before the mask, so -inf stays -inf
        cap = _float_const(ctx, softcap, et, "softcap")
        qk = ctx.op(
            Multiply(),
            ctx.op(Tanh(), ctx.op(Divide(), qk, cap, suffix="qk_over_cap"), suffix="qk_tanh"),
            cap,
            suffix="qk_capped",
        )

    # The additive bias: attn_mask, causal and window masks, nonpad_kv_seqlen padding. For bf16
    # it is built in f32: OpenVINO's CPU plugin reads a bf16 -inf constant as the lowest finite
    # value, and the guard of fully masked rows below must see -inf.
    bias_et = ElementType.f32 if et is ElementType.bf16 else et
    terms: list[OutPort] = []
    total = dims_of(ctx, present_key, [2], "total_length")
    if ctx.has_input(3):
        terms.append(_mask_bias(ctx, total, bias_et))
    is_causal = bool(a.int("is_causal", 0))
    left = a.int("left_window_size", -1) if windows else -1
    right = a.int("right_window_size", -1) if windows else -1
    if is_causal or left >= 0 or right >= 0:
        rows, cols = _positions(ctx, q, present_key)
        if has_past:  # keys before the query block: the cache length
            offset = dims_of(ctx, ctx.input(4), 2, "past_length")
        elif nonpad is not None:  # external cache: per batch, valid keys minus the query length
            per_batch = ctx.op(Reshape(special_zero=False), nonpad, i64(ctx, [-1, 1, 1, 1]), suffix="nonpad_per_batch")
            offset = ctx.op(Subtract(), per_batch, dims_of(ctx, q, 2, "q_length_offset"), suffix="causal_offset")
        else:
            offset = i64(ctx, 0, "causal_offset")
        frontier = ctx.op(Add(), rows, offset, suffix="query_positions")  # [L, 1] or [B, 1, L, 1]
        allowed: OutPort | None = None
        if is_causal:
            allowed = ctx.op(LessEqual(), cols, frontier, suffix="causal_allowed")
        distance = ctx.op(Subtract(), frontier, cols, suffix="distance") if left >= 0 or right >= 0 else None
        for size, sign, name in ((left, 1, "left"), (right, -1, "right")):
            if size < 0 or distance is None:
                continue
            away = distance if sign > 0 else ctx.op(Multiply(), distance, i64(ctx, -1), suffix="distance_right")
            inside = ctx.op(LessEqual(), away, i64(ctx, size, f"{name}_window"), suffix=f"{name}_window_allowed")
            allowed = inside if allowed is None else ctx.op(LogicalAnd(), allowed, inside, suffix=f"{name}_window_and")
        assert allowed is not None
        terms.append(_bias_of(ctx, allowed, bias_et, "causal" if is_causal else "window"))
    if nonpad is not None:
        lengths = ctx.op(Reshape(special_zero=False), nonpad, i64(ctx, [-1, 1, 1, 1]), suffix="nonpad_lengths")
        cols = _positions(ctx, q, present_key)[1]
        terms.append(_bias_of(ctx, ctx.op(Less(), cols, lengths, suffix="nonpad_allowed"), bias_et, "nonpad"))
    bias: OutPort | None = None
    for idx, term in enumerate(terms):
        bias = term if bias is None else ctx.op(Add(), bias, term, suffix=f"bias_{idx}")

    mode = a.int("qk_matmul_output_mode", 0)
    qk_output = qk  # modes 0 and 1: after the softcap, as the reference gives it
    scores = qk
    if bias is not None:
        added = bias if bias_et is et else ctx.op(Convert(destination_type=et), bias, suffix="bias_converted")
        scores = ctx.op(Add(), qk, added, suffix="qk_biased")
    if mode == _BIAS_FROM_QK:
        qk_output = scores
    precision = a.int("softmax_precision", 0)
    softmax_et = et_of_onnx(precision, ctx.where()) if precision else et
    if softmax_et is not et:
        scores = ctx.op(Convert(destination_type=softmax_et), scores, suffix="scores_converted")
    probs = ctx.op(SoftMax(axis=-1), scores, suffix="softmax")
    if bias is not None:  # a row whose every key is masked attends nothing: 0, not NaN
        # Decided per key (NotEqual -inf) then reduced: OpenVINO's CPU ReduceMax gives the lowest
        # finite value, not -inf, for a row of -inf.
        open_key = ctx.op(NotEqual(), bias, _float_const(ctx, -np.inf, bias_et, "key_neg_inf"), suffix="key_open")
        open_row = ctx.op(ReduceLogicalOr(keep_dims=True), open_key, i64(ctx, [-1]), suffix="row_open")
        probs = ctx.op(
            Select(), open_row, probs, _float_const(ctx, 0.0, softmax_et, "row_zero"), suffix="softmax_guarded"
        )
    if softmax_et is not et:
        probs = ctx.op(Convert(destination_type=et), probs, suffix="softmax_back")
    if mode == _AFTER_SOFTMAX:
        qk_output = probs

    y = ctx.op(MatMul(transpose_a=False, transpose_b=False), probs, v, suffix="y")
    if rank == 3:
        y = _merge_heads(ctx, y)
    outputs = [y, present_key, present_value, qk_output]
    return outputs[: len(ctx.node.out_ports())]
