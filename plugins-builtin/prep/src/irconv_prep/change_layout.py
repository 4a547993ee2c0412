"""--layout / --source-layout / --target-layout: input layouts, and a Transpose when they differ."""

from __future__ import annotations

import dataclasses

import numpy as np
from irconv import Graph, Rewriter, Transform, TransformContext
from irconv_opset import Transpose

from irconv_prep.inputs import input_layouts, parameter_op
from irconv_prep.options import LAYOUT, SOURCE_LAYOUT, TARGET_LAYOUT


class ChangeLayout(Transform):
    """Parameter[source layout] -> x  =>  Parameter[target layout] -> Transpose(to source) -> x.

    Every input given a layout records it (the target one) on its Parameter, which the IR
    carries as runtime info; the Parameter keeps its name, so the IR is fed in the target layout.
    """

    id = "prep.change_layout"
    run_after = ("prep.apply_preprocessing",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return any(ctx.options.get(option) is not None for option in (LAYOUT, SOURCE_LAYOUT, TARGET_LAYOUT))

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        layouts = input_layouts(graph, ctx.options)
        if not layouts:
            return False
        rw = Rewriter(graph)
        for node in graph.parameters():
            spec = layouts.get(node.id)
            if spec is None or spec.source is None or spec.target is None:
                continue
            if spec.source == spec.target:
                rw.replace_op(node, dataclasses.replace(parameter_op(node), layout=spec.target.ir_text()))
                continue
            source, target = spec.source.letters, spec.target.letters
            order = np.array([target.index(letter) for letter in source], dtype=np.int64)
            op = parameter_op(node)
            shape = None if op.shape is None else tuple(op.shape[source.index(letter)] for letter in target)
            with rw.batch():
                port = node.out_port(0)
                rw.insert_after(
                    port,
                    Transpose(),
                    [rw.const(order, name=f"{node.name}/to_{spec.source}")],
                    name=f"{node.name}/{spec.target}_to_{spec.source}",
                    move_names=False,
                )
                rw.replace_op(node, dataclasses.replace(op, shape=shape, layout=spec.target.ir_text()))
        return rw.modified
