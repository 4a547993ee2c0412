"""A counted Loop for tests: a Loop-5 with the port maps a loop over one carried value has, the
body's step given by the test, alone or in a graph of its own. Inference, emission and runtime
tests of Loop start from it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from irconv.graph import Graph, Node, OutPort
from irconv.testing import GraphBuilder, infer_graph

from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, Loop, SliceSpec

#: A loop body's step: (the body's builder, the iteration counter, the carried value) -> the next value.
Step = Callable[[GraphBuilder, OutPort, OutPort], OutPort]


def counted_loop_op(shape: Sequence[int], step: Step, counter_shape: Sequence[int] = ()) -> Loop:
    """A Loop-5 over one f32 value of ``shape`` whose body condition is constant true: the body's
    Parameter 0 is the iteration counter (i64 of ``counter_shape``), Parameter 1 the carried
    value, fed back from the body's Result 0, which ``step`` makes. Inputs: the trip count, the
    initial condition, the initial value; outputs: the last value, and every value concatenated
    along axis 0."""
    body = GraphBuilder("loop body")
    counter = body.parameter("i", counter_shape, "i64")
    carried = body.parameter("acc", shape)
    body.result(step(body, counter, carried))
    body.result(body.const(np.array(True)))
    return Loop(
        body=body.graph,
        input_map=(BodyInput(2, 1),),
        output_map=(BodyOutput(0, 0), BodyOutput(1, 0, SliceSpec(axis=0))),
        back_edges=(BackEdge(0, 1),),
        current_iteration=0,
        condition_output=1,
    )


def counted_loop(
    trip: int,
    shape: Sequence[int],
    step: Step,
    counter_shape: Sequence[int] = (),
    names: tuple[str, str, str] = ("x", "y", "ys"),
) -> tuple[Graph, Node]:
    """The inferred graph of ``counted_loop_op(shape, step, counter_shape)`` run ``trip`` times
    (a constant trip count and initial condition) on the model input ``names[0]``, and its Loop
    node. The graph's results: ``names[1]``, the last value (Loop output 0), and ``names[2]``,
    every value concatenated along axis 0 (output 1)."""
    b = GraphBuilder("loop")
    loop = counted_loop_op(shape, step, counter_shape)
    node = b.node(loop, b.const(np.int64(trip)), b.const(np.array(True)), b.parameter(names[0], shape), name="loop")
    b.result(node.out_port(0), names[1])
    b.result(node.out_port(1), names[2])
    infer_graph(b.graph)
    return b.graph, node
