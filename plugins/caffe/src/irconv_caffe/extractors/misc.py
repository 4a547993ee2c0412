"""The rest of the BVLC catalogue that has an inference meaning, and a common fork layer."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv.types import ElementType
from irconv_opset import Add, Const, Convert, Gather, Multiply

from irconv_caffe.layer import CaffeLayer


@extractor("caffe", "Parameter", produces=[Const])
def extract_parameter(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """A learned blob as the layer's output."""
    layer = ctx.source_as(CaffeLayer)
    shape = tuple(ctx.attrs.ints("parameter_param.shape.dim"))
    return [ctx.const(layer.blob(0, shape), suffix="value")]


@extractor("caffe", "DummyData", produces=[Const])
def extract_dummy_data(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Constant-filled tops (only the deterministic ``constant`` filler)."""
    p = ctx.attrs.required("dummy_data_param")
    tops = len(ctx.attrs.strs("top"))
    if p.shape:
        shapes = [tuple(int(d) for d in s.dim) for s in p.shape]
    else:
        shapes = [
            tuple(int(v[i if len(v) > 1 else 0]) for v in (p.num, p.channels, p.height, p.width)) for i in range(tops)
        ]
    fillers = list(p.data_filler)
    outputs = []
    for i in range(tops):
        shape = shapes[i if len(shapes) > 1 else 0]
        filler = fillers[i if len(fillers) > 1 else 0] if fillers else None
        if filler is not None and filler.type != "constant":
            raise ConversionError(f"{ctx.where()}: the {quoted(filler.type)} filler is random; only 'constant' converts")
        value = filler.value if filler is not None else 0.0
        outputs.append(ctx.const(np.full(shape, value, np.float32), suffix=f"top{i}"))
    return outputs


@extractor("caffe", "Embed", produces=[Convert, Gather, Add])
def extract_embed(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Rows of the (input_dim x num_output) table picked by the input's integer values."""
    layer = ctx.source_as(CaffeLayer)
    p = ctx.attrs.required("embed_param")
    table = layer.blob(0, (p.input_dim, p.num_output))
    indices = ctx.op(Convert(destination_type=ElementType.i32), ctx.input(0), suffix="indices")
    out = ctx.op(
        Gather(batch_dims=0),
        ctx.const(table, suffix="table"),
        indices,
        i64(ctx, 0, suffix="axis"),
        suffix="gather",
    )
    if p.bias_term:
        out = ctx.op(Add(), out, ctx.const(layer.blob(1, (p.num_output,)), suffix="bias"), suffix="bias_add")
    return [out]


@extractor("caffe", "BatchReindex", produces=[Convert, Gather])
def extract_batch_reindex(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Items of input 0 in the order given by input 1."""
    indices = ctx.op(Convert(destination_type=ElementType.i32), ctx.input(1), suffix="indices")
    return [ctx.op(Gather(batch_dims=0), ctx.input(0), indices, i64(ctx, 0, suffix="axis"), suffix="gather")]


@extractor("caffe", "Axpy", produces=[Multiply, Add])
def extract_axpy(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Fork layer (SENet): a * x + y, with ``a`` one value per channel (N x C x 1 x 1)."""
    scaled = ctx.op(Multiply(), ctx.input(0), ctx.input(1), suffix="mul")
    return [ctx.op(Add(), scaled, ctx.input(2), suffix="add")]

