"""MultiHeadAttention over rank-3 inputs (attention over the sequence axis, no mask)."""

from __future__ import annotations

import math

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import extractor, f32, i64
from irconv.graph import Node, OutPort
from irconv_opset import Add, MatMul, Multiply, Reshape, SoftMax, Transpose

from irconv_tf.keras_reader.extractors._base import layer, variables


def _project(ctx: ExtractContext, x: OutPort, which: str, use_bias: bool) -> OutPort:
    """EinsumDense ``abc,cde->abde`` as x @ kernel[c, d*e] + bias, then [N, heads, T, e]."""
    found = variables(ctx, 2 if use_bias else 1, which)
    kernel = found[0].astype(np.float32)
    if kernel.ndim != 3:
        raise ConversionError(
            f"{ctx.where()}: {which} kernel of shape {kernel.shape}, expected [features, heads, size]"
        )
    dim, heads, size = kernel.shape
    y = ctx.op(MatMul(), x, f32(ctx, kernel.reshape(dim, heads * size), f"{which}/kernel"), suffix=f"{which}/matmul")
    if use_bias:
        y = ctx.op(Add(), y, f32(ctx, found[1].astype(np.float32).reshape(-1), f"{which}/bias"), suffix=f"{which}/bias")
    y = ctx.op(Reshape(special_zero=True), y, i64(ctx, [0, 0, heads, size], f"{which}/heads"), suffix=f"{which}/split")
    return ctx.op(Transpose(), y, i64(ctx, [0, 2, 1, 3], f"{which}/perm"), suffix=f"{which}/heads_first")


@extractor("keras", "MultiHeadAttention", produces=[MatMul, Add, Multiply, Reshape, SoftMax, Transpose])
def _multi_head_attention(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """softmax(q k^T / sqrt(key_dim)) v per head, the heads then mixed by output_dense."""
    record = layer(ctx)
    if ctx.attrs.get("attention_axes") not in (None, [1], 1):
        raise ctx.attrs.bad(
            "attention_axes", ctx.attrs.get("attention_axes"), "attention over other axes than the sequence"
        )
    if ctx.input_rank(0) != 3:
        raise ctx.attrs.bad("query", ctx.input_rank(0), "expected [batch, sequence, features] inputs")
    ports = dict(zip(record.arguments, (ctx.input(i) for i in range(len(record.arguments))), strict=True))
    query = ports.get("query", ports.get("0"))
    value = ports.get("value", ports.get("1"))
    key = ports.get("key", ports.get("2", value))
    if query is None or value is None or key is None or set(ports) - {"0", "1", "2", "query", "value", "key"}:
        raise ctx.attrs.bad("inputs", sorted(ports), "expected query, value and optionally key (no attention mask)")
    use_bias = ctx.attrs.bool("use_bias", True)
    q = _project(ctx, query, "query_dense", use_bias)
    k = _project(ctx, key, "key_dense", use_bias)
    v = _project(ctx, value, "value_dense", use_bias)
    q = ctx.op(Multiply(), q, f32(ctx, 1.0 / math.sqrt(ctx.attrs.int("key_dim")), "scale"), suffix="scaled_query")
    scores = ctx.op(MatMul(transpose_b=True), q, k, suffix="scores")
    weights = ctx.op(SoftMax(axis=-1), scores, suffix="attention")
    mixed = ctx.op(MatMul(), weights, v, suffix="context")
    mixed = ctx.op(Transpose(), mixed, i64(ctx, [0, 2, 1, 3], "perm"), suffix="heads_last")
    output = variables(ctx, 2 if use_bias else 1, "output_dense")
    kernel = output[0].astype(np.float32)
    if kernel.ndim != 3:
        raise ctx.attrs.bad("output_shape", ctx.attrs.get("output_shape"), "an output of more than one feature axis")
    heads, size = kernel.shape[:2]
    mixed = ctx.op(Reshape(special_zero=True), mixed, i64(ctx, [0, 0, heads * size], "merge_heads"), suffix="merged")
    y = ctx.op(MatMul(), mixed, f32(ctx, kernel.reshape(heads * size, -1), "output_dense/kernel"), suffix="output")
    if use_bias:
        y = ctx.op(
            Add(), y, f32(ctx, output[1].astype(np.float32).reshape(-1), "output_dense/bias"), suffix="output_bias"
        )
    return [y]
