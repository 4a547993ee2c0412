"""ONNX ``com.outside::TemperedSoftmax(x) {axis: int = -1, temperature: float = 1}``."""

from __future__ import annotations

from irconv import ExtractContext, Node, OutPort
from irconv.frontend import const_like, extractor, normalize_axis, require_rank
from irconv_opset import Divide, LogSoftmax, SoftMax

from irconv_tempered.options import LOG

DOMAIN = "com.outside"


@extractor("onnx", "TemperedSoftmax", domain=DOMAIN, versions=(1, None), produces=[Divide, SoftMax, LogSoftmax])
def extract_tempered_softmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """softmax(x / temperature) along ``axis`` (log-softmax with ``--tempered-log``)."""
    axis = normalize_axis(ctx, ctx.attrs.int("axis", -1), require_rank(ctx, 0))
    temperature = ctx.attrs.float("temperature", 1.0)
    if temperature <= 0:
        raise ctx.attrs.bad("temperature", temperature, "a temperature must be positive")
    x = ctx.input(0)
    if temperature != 1.0:
        x = ctx.op(Divide(), x, const_like(ctx, temperature, x, "temperature"), suffix="tempered")
    softmax = LogSoftmax(axis=axis) if ctx.options.get(LOG) else SoftMax(axis=axis)
    return [ctx.op(softmax, x, suffix="softmax")]
