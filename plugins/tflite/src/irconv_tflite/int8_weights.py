"""Store the weights of a quantized TFLite model as int8 in the IR (see ``weights``)."""

from __future__ import annotations

import numpy as np
from irconv import Graph, Rewriter, Transform, TransformContext
from irconv.ops import DeferredConst
from irconv.ops.deferred import HeldValue
from irconv.types import ElementType
from irconv_opset import Convert, Multiply, Subtract

from irconv_tflite.weights import QUANTIZED_WEIGHTS


class Int8Weights(Transform):
    """W (f32, on a recorded int8 grid) -> Multiply(Convert(Const(i8)) [- zero point], scale)
    (no Multiply for a grid of scale 1).

    The form OpenVINO's low-precision transformations take as int8 weights; the IR keeps
    one byte per weight. Weights no longer on their grid stay float.
    """

    id = "tflite.int8_weights"

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        grids = graph.meta.get(QUANTIZED_WEIGHTS)
        return bool(grids)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        grids = graph.meta.get(QUANTIZED_WEIGHTS) or {}
        rw = Rewriter(graph)
        for node in [n for n in graph.nodes() if n.id in grids]:
            grid = grids[node.id]
            source = node.in_port(1).get_source() if node.has_input(1) else None
            weights = None if source is None else source.constant(shape_derived=False)
            if weights is None or weights.dtype != np.float32:
                continue
            q = grid.quantize(weights)
            if q is None:
                ctx.note(f"{node.name}: its weights were changed off their int8 grid and stay float")
                continue
            # held out of folding: the Convert's f32 value would be a third copy of the
            # weights, kept to the end, that only the runtime computes
            held = DeferredConst(pending=HeldValue(np.ascontiguousarray(q)))  # type: ignore[arg-type]  # core types pending as DeferredProduct only
            stored = rw.op(held, name=f"{node.name}/const", like=node)
            value = rw.op(Convert(destination_type=ElementType.f32), stored, like=node)
            if np.any(grid.zero_point != 0):
                zero = rw.const(np.broadcast_to(grid.zero_point, grid.scale.shape).astype(np.float32), like=node)
                value = rw.op(Subtract(), value, zero, like=node)
            if np.any(grid.scale != 1):  # a grid of scale 1: the node reads integers
                value = rw.op(Multiply(), value, rw.const(grid.scale.astype(np.float32), like=node), like=node)
            rw.set_input(node.in_port(1), value)
        return rw.modified
