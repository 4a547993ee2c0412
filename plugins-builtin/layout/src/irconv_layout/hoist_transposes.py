"""Move transposes that feed channels-first ops up towards the inputs, through agnostic ops.

``T(f(x))`` -> ``f(T(x))`` when ``f`` (a LAYOUT_AGNOSTIC op, an ELEMENTWISE op whose other
inputs are constants, or Pad with constant pads) feeds only ``T``: a channels-last model that pads its input before the first convolution then
keeps the only transpose right after the Parameter, at the model boundary.
"""

from __future__ import annotations

import numpy as np
from irconv import Graph, Match, Rewriter, Trait, Transform, TransformContext, rewrite_greedily
from irconv_opset import Pad, Transpose

from irconv_layout.options import DISABLE_NHWC_TO_NCHW
from irconv_layout.perm import permuted_const, transpose, transpose_perm
from irconv_layout.sink_transposes import TRANSPOSE


class HoistTransposes(Transform):
    """Hoist constant transposes above single-use layout-agnostic ops and constant pads."""

    id = "layout.hoist_transposes"
    run_after = ("layout.sink_transposes",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return not ctx.options.get(DISABLE_NHWC_TO_NCHW) and graph.has_type(Transpose.type)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        return rewrite_greedily(graph, [_HoistRule()], frozen=ctx.is_frozen) > 0


class _HoistRule:
    roots = (TRANSPOSE,)

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        t = match["t"]
        perm = transpose_perm(t)
        source = match.port("x")
        producer = source.node
        if perm is None or producer.num_outputs() != 1 or len(source.get_destinations()) != 1 or source.data.names:
            return False
        operands: dict[int, np.ndarray] = {}  # constant inputs to permute along with the data
        if isinstance(producer.op, Pad):
            pads = producer.in_port(1).constant(shape_derived=False), producer.in_port(2).constant(shape_derived=False)
            if any(p is None or np.asarray(p).size != len(perm) for p in pads):
                return False
            operands = {i: np.asarray(p)[list(perm)] for i, p in enumerate(pads, start=1)}
        elif producer.op.has(Trait.ELEMENTWISE) and not producer.op.has(Trait.LAYOUT_AGNOSTIC):
            for port in producer.in_ports()[1:]:
                value = port.constant(shape_derived=False)
                if value is None or value.ndim > len(perm):
                    return False
                if value.ndim > 0:  # a 0-d scalar broadcasts as it is
                    operands[port.idx] = permuted_const(value, perm)
        elif not producer.op.has(Trait.LAYOUT_AGNOSTIC):
            return False
        x = producer.in_port(0).get_source()
        assert x is not None
        with rw.batch():
            rw.set_input(producer.in_port(0), transpose(rw, x, perm, f"{producer.name}/transposed_input"))
            for i, value in operands.items():
                rw.set_input(producer.in_port(i), rw.const(value, name=f"{producer.name}/permuted{i}"))
            rw.replace(t, producer.out_port(0))
        return True
