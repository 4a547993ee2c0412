"""A boolean attention mask given to ScaledDotProductAttention as the additive bias it stands for.

ScaledDotProductAttention-13 takes its mask either as booleans (True: the key takes part) or as
a float bias added to the scores; a boolean mask means the bias ``0`` where True and ``-inf``
where False. OpenVINO's CPU plugin runs the float form on its fast path and the boolean one
several times slower (measured on a tiny Llama's 32-token prefill: the whole inference took
1.5x as long; `docs/llm.md`). The bias is computed once per mask, in the query's type.
"""

from __future__ import annotations

import numpy as np
from irconv import Graph, TransformContext
from irconv.graph import OutPort
from irconv.ops import Const
from irconv.plugins import Transform
from irconv.types import ElementType

from irconv_transforms._fusion import AFTER_LAYOUT, FUSIONS


class AttentionMaskAsBias(Transform):
    """``ScaledDotProductAttention(q, k, v, boolean mask)`` ->
    ``ScaledDotProductAttention(q, k, v, Select(mask, 0, -inf))``: the same attention."""

    id = "fuse.attention_mask_as_bias"
    run_after = (*AFTER_LAYOUT, *FUSIONS)
    run_before = ("fuse.merge_common_subexpressions",)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        biases: dict[tuple[OutPort, ElementType], OutPort] = {}
        changed = False
        for node in list(graph.nodes()):
            if node.type != "ScaledDotProductAttention" or not node.op.is_opset_op or ctx.is_frozen(node):
                continue
            mask = node.in_port(3).get_source() if node.has_input(3) else None
            dtype = node.in_port(0).data.element_type if node.has_input(0) else None
            if mask is None or mask.data.element_type is not ElementType.boolean or not _plain_float(dtype):
                continue
            assert dtype is not None
            bias = biases.get((mask, dtype))
            if bias is None:
                bias = biases[(mask, dtype)] = _bias(graph, mask, dtype)
            node.in_port(3).connect(bias)  # this reader only: the mask may have others
            changed = True
        return changed


def _plain_float(dtype: ElementType | None) -> bool:
    """A float type NumPy holds (f16, f32, f64): its 0 and -inf are plain constants."""
    return dtype is not None and dtype.is_float and dtype.numpy.kind == "f"


def _bias(graph: Graph, mask: OutPort, dtype: ElementType) -> OutPort:
    from irconv_opset import Select

    origin = mask.node.origin
    zero = graph.add_node(Const(np.zeros((), dtype.numpy)), origin=origin).out_port(0)
    minus_infinity = graph.add_node(Const(np.full((), -np.inf, dtype.numpy)), origin=origin).out_port(0)
    name = f"{mask.node.name}/as_bias"
    return graph.add_node(Select(), name, inputs=(mask, zero, minus_infinity), origin=origin).out_port(0)

