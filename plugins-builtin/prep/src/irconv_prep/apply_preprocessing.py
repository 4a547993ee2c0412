"""--mean-values / --scale-values / --scale / --reverse-input-channels in the graph."""

from __future__ import annotations

import numpy as np
from irconv import Graph, Op, OutPort, Rewriter, Transform, TransformContext
from irconv_opset import Gather, Multiply, Subtract

from irconv_prep.fold_into_convolution import find_site, fold, input_order_mean
from irconv_prep.inputs import input_name
from irconv_prep.options import MEAN_VALUES, REVERSE_INPUT_CHANNELS, SCALE, SCALE_VALUES
from irconv_prep.preprocess import InputPrep, plan_inputs


class ApplyPreprocessing(Transform):
    """Input channel order, means and scales folded into the first convolution, else as layers.

    x -> Convolution  =>  x -> Convolution(folded weights and bias), or
    x -> Gather(reversed channels) -> Subtract(means) -> Multiply(1/scales) -> consumers.
    Folding into the first convolution is used when it is exact (see
    ``fold_into_convolution``); what cannot be folded stays as explicit ops after the
    Parameter, which keeps its name.
    """

    id = "prep.apply_preprocessing"
    run_after = ("prep.set_batch", "layout.wrap_marked")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        options = ctx.options
        asked = (options.get(MEAN_VALUES), options.get(SCALE_VALUES), options.get(SCALE))
        return any(value is not None for value in asked) or bool(options.get(REVERSE_INPUT_CHANNELS))

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        plans = plan_inputs(graph, ctx.options)
        rw = Rewriter(graph)
        for prep in plans:
            site = find_site(prep)
            if site is None:
                _insert_ops(rw, prep)
                ctx.note(
                    f"input {input_name(prep.node)!r}: preprocessing added as layers (no convolution to fold into)"
                )
                continue
            if not fold(rw, prep, site):
                _insert_mean(rw, prep)
                ctx.note(
                    f"input {input_name(prep.node)!r}: channel order and scales folded into {site.conv.name!r}; "
                    "the means stay a Subtract (the convolution pads its input)"
                )
        return rw.modified


def _after_input(rw: Rewriter, prep: InputPrep, op: Op, operand: OutPort | None, suffix: str) -> None:
    port = prep.node.out_port(0)
    extra = [operand] if operand is not None else []
    rw.insert_after(port, op, extra, name=f"{prep.node.name}/{suffix}", move_names=False)


def _insert_ops(rw: Rewriter, prep: InputPrep) -> None:
    """The steps as layers; inserted right after the input, so the last inserted runs first."""
    f32 = np.float32
    if prep.divisor is not None:
        inverse = prep.along_axis((1.0 / prep.divisor).astype(f32))
        _after_input(rw, prep, Multiply(), rw.const(inverse, name=f"{prep.node.name}/scale_values"), "scale")
    if prep.mean is not None:
        mean = prep.along_axis(prep.mean.astype(f32))
        _after_input(rw, prep, Subtract(), rw.const(mean, name=f"{prep.node.name}/mean_values"), "mean")
    if prep.reverse:
        assert prep.axis is not None
        port = prep.node.out_port(0)
        indices = rw.const(prep.order().astype(np.int64), name=f"{prep.node.name}/reversed_channels")
        axis = rw.const(np.int64(prep.axis), name=f"{prep.node.name}/channel_axis")
        rw.insert_after(
            port, Gather(batch_dims=0), [indices, axis], name=f"{prep.node.name}/reverse_channels", move_names=False
        )


def _insert_mean(rw: Rewriter, prep: InputPrep) -> None:
    """The means, in the input's channel order, subtracted right after the input."""
    mean = prep.along_axis(input_order_mean(prep).astype(np.float32))
    _after_input(rw, prep, Subtract(), rw.const(mean, name=f"{prep.node.name}/mean_values"), "mean")
