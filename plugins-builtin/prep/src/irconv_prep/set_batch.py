"""--batch N: the batch dim of every input, found through its layout."""

from __future__ import annotations

import dataclasses

from irconv import Graph, Rewriter, Transform, TransformContext, UserError

from irconv_prep.inputs import input_layouts, input_name, parameter_op
from irconv_prep.options import BATCH


class SetBatch(Transform):
    """Parameter[?,3,224,224] -> Parameter[N,3,224,224] for every input.

    The batch dim is ``N`` of the input's layout (``--layout``/``--source-layout``), or
    dim 0 of an input of rank 2 or more when no layout is given. An input whose layout
    has no ``N``, or a 0-D/1-D input without a layout, is an error asking for a layout.
    """

    id = "prep.set_batch"
    run_after = ("prep.freeze_inputs",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return ctx.options.get(BATCH) is not None

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        batch = ctx.options.get(BATCH)
        layouts = input_layouts(graph, ctx.options)
        rw = Rewriter(graph)
        for node in graph.parameters():
            op = parameter_op(node)
            name = input_name(node)
            spec = layouts.get(node.id)
            if spec is not None and spec.source is not None:
                axis = spec.source.index("N")
                if axis is None:
                    raise UserError(f"--batch: the layout {spec.source} of input {name!r} has no batch dim N")
            elif op.shape is not None and len(op.shape) >= 2:
                axis = 0
            else:
                known = "unknown" if op.shape is None else list(op.shape)
                raise UserError(
                    f"--batch: cannot tell the batch dim of input {name!r} (shape {known}); "
                    f"give its layout, e.g. --layout {name}(nc)"
                )
            if op.shape is None:
                raise UserError(f"--batch: input {name!r} has an unknown rank; give its shape with --input")
            if op.shape[axis] == batch:
                continue
            shape = tuple(batch if i == axis else d for i, d in enumerate(op.shape))
            rw.replace_op(node, dataclasses.replace(op, shape=shape))
        return rw.modified
