"""Computations whose result is statically empty become empty constants."""

from __future__ import annotations

import numpy as np
from irconv import Rewriter, Trait, TransformContext
from irconv.graph import Graph, Node
from irconv.ops import Const, Parameter, Result
from irconv.plugins import Transform
from irconv.types import ElementType


class EmptyTensors(Transform):
    """op(...) -> Const(zeros(shape)) when every used output has a static shape with a 0 dim.

    TensorFlow computes on zero-size tensors (an empty batch, nothing selected) everywhere;
    OpenVINO's CPU plugin refuses some kernels on them (pooling: "batch size is zero",
    MatMul) or dies (Gather: SIGFPE). An empty result needs no computation, so none is
    emitted. Tensors only the runtime knows to be empty are guarded by the extractors.
    """

    id = "tf.empty_tensors"

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return graph.framework == "tf"

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        rewriter = Rewriter(graph)
        for node in graph.topological_order():
            if node in graph and not ctx.is_frozen(node):
                replacements = _empty_outputs(node)
                if replacements is not None:
                    rewriter.replace(node, [rewriter.const(v, like=node) for v in replacements])
        return rewriter.modified


def _empty_outputs(node: Node) -> list[np.ndarray] | None:
    if isinstance(node.op, (Parameter, Const, Result)) or node.op.has(Trait.SIDE_EFFECTS):
        return None
    values = []
    for port in node.out_ports():
        shape, element = port.data.shape, port.data.element_type
        used = bool(port.get_destinations() or port.data.names)
        dims = [d for d in shape if d is not None] if shape is not None else []
        if shape is None or len(dims) != len(shape) or 0 not in dims or element is ElementType.dynamic:
            if used:
                return None
            dims, element = [0], ElementType.f32  # an unused output: any placeholder will do
        values.append(np.zeros(dims, element.numpy))
    return values or None
