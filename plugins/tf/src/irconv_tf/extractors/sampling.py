"""Sampling TF ops: Multinomial (TensorFlow's distribution, not its random stream)."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import extractor
from irconv.graph import Node, OutPort
from irconv_opset import Multinomial

from irconv_tf.dtypes import element_type


@extractor("tf", "Multinomial", produces=[Multinomial])
def _multinomial(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Multinomial(logits [B, C], num_samples) -> Multinomial-13 over log-probabilities, with
    replacement: each row's samples follow softmax(logits). OpenVINO draws from its own
    generator, so the values differ from TensorFlow's even with the same seeds; a class whose
    logit leaves the others no probability is drawn every time by both."""
    op = Multinomial(
        convert_type=element_type(ctx.attrs.int("output_dtype", 9), ctx.where()),
        with_replacement=True,
        log_probs=True,
        global_seed=ctx.attrs.int("seed", 0),
        op_seed=ctx.attrs.int("seed2", 0),
    )
    return [ctx.op(op, ctx.input(0), ctx.input(1), suffix="Multinomial")]


