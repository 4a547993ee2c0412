"""TF2 functional control flow: While/StatelessWhile -> Loop, If/StatelessIf -> If.

The core extracts the bodies (cond/body, then/else functions as graphs) before the node.
A TF While checks ``cond`` before every iteration; a Loop checks its body's condition
output after each one, so the condition is computed twice: on the initial values (the
Loop's execution condition, which the loader inlines as the While's last input) and at
the end of the body (the cond graph copied into it).
"""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.frontend import aliases
from irconv.graph import Node, OutPort
from irconv.ops import Result
from irconv_opset import If, Loop
from irconv_opset.inline import inline_graph
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput


def _while(node: Node, ctx: ExtractContext) -> list[OutPort]:
    bodies = ctx.source_op.bodies
    cond, body = bodies["cond"], bodies["body"]
    count = len(ctx.inputs) - 1  # the loader adds the condition on the initial values last
    values = [ctx.input(i) for i in range(count)]
    initial = ctx.input(count)
    body_results = body.results()
    returned = [r.in_port(0).get_source() for r in body_results]
    (again,) = inline_graph(cond, body, returned, f"{node.name}/cond")
    body.add_node(Result(), f"{node.name}/cond/sink", [again])
    loop = Loop(
        body=body,
        input_map=tuple(BodyInput(external=i + 2, parameter=i) for i in range(count)),
        output_map=tuple(BodyOutput(external=i, result=i) for i in range(count)),
        back_edges=tuple(BackEdge(result=i, parameter=i) for i in range(count)),
        current_iteration=-1,
        condition_output=count,
    )
    trip = ctx.const(np.array(-1, np.int64), suffix="trip_count")
    made = ctx.add(loop, [trip, initial, *values], suffix="Loop")
    return [made.out_port(i) for i in range(count)]


def _if(node: Node, ctx: ExtractContext) -> list[OutPort]:
    bodies = ctx.source_op.bodies
    then_body, else_body = bodies["then_branch"], bodies["else_branch"]
    count = len(ctx.inputs) - 1
    outputs = len(then_body.results())
    op = If(
        then_body=then_body,
        else_body=else_body,
        then_inputs=tuple(BodyInput(external=i + 1, parameter=i) for i in range(count)),
        else_inputs=tuple(BodyInput(external=i + 1, parameter=i) for i in range(count)),
        then_outputs=tuple(BodyOutput(external=i, result=i) for i in range(outputs)),
        else_outputs=tuple(BodyOutput(external=i, result=i) for i in range(outputs)),
    )
    made = ctx.add(op, [ctx.input(i) for i in range(count + 1)], suffix="If")
    return [made.out_port(i) for i in range(outputs)]


WHILE = aliases("tf", ["While", "StatelessWhile"], _while, produces=[Loop])
IF = aliases("tf", ["If", "StatelessIf"], _if, produces=[If])
