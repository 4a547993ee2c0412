"""IF and WHILE with their sub-graphs (read by the loader as body graphs and extracted by
the core first), as OpenVINO If-8 and Loop-5.

IF: input 0 is the condition, the others feed each branch's inputs in order.
WHILE: the loader put the condition's first value (the condition sub-graph run on the
initial values) before the loop's own inputs, and made the body compute the body
sub-graph then the condition on its results: Results [condition, values...], the values
carried back to the Parameters.
"""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import extractor, i64
from irconv.graph import Node, OutPort
from irconv_opset import If, Loop
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput


@extractor("tflite", "IF", produces=[If])
def if_(node: Node, ctx: ExtractContext) -> list[OutPort]:
    then_body, else_body = ctx.body("then"), ctx.body("else")
    values = len(ctx.inputs) - 1
    outputs = ctx.source_op.n_outputs
    op = If(then_body=then_body, else_body=else_body,
            then_inputs=tuple(BodyInput(1 + i, i) for i in range(values)),
            else_inputs=tuple(BodyInput(1 + i, i) for i in range(values)),
            then_outputs=tuple(BodyOutput(i, i) for i in range(outputs)),
            else_outputs=tuple(BodyOutput(i, i) for i in range(outputs)))
    created = ctx.add(op, [ctx.input(i) for i in range(len(ctx.inputs))], "if")
    return [created.out_port(i) for i in range(outputs)]


@extractor("tflite", "WHILE", produces=[Loop])
def while_(node: Node, ctx: ExtractContext) -> list[OutPort]:
    body = ctx.body("body")
    carried = len(ctx.inputs) - 1
    op = Loop(body=body,
              input_map=tuple(BodyInput(2 + i, i) for i in range(carried)),
              output_map=tuple(BodyOutput(i, 1 + i) for i in range(carried)),
              back_edges=tuple(BackEdge(1 + i, i) for i in range(carried)),
              current_iteration=-1, condition_output=0)
    inputs = [i64(ctx, -1, suffix="trip_count"), ctx.input(0)] + [ctx.input(1 + i) for i in range(carried)]
    created = ctx.add(op, inputs, "loop")
    return [created.out_port(i) for i in range(carried)]
