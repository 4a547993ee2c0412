"""Cases for the control-flow family (If, Loop, TensorIterator), checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv.graph import Graph, OutPort
from irconv.testing import GraphBuilder
from irconv.types import ElementType
from irconv_opset import Add, Convert, Less, Multiply, Negative, ReLU, Tanh
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, If, Loop, SliceSpec, TensorIterator
from irconv_opset.testing import OpCase, const
from irconv_opset.testing_loop import counted_loop_op

rng = np.random.default_rng(8)


def tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def unary_body(op, shape) -> Graph:  # type: ignore[no-untyped-def]
    b = GraphBuilder("branch")
    b.result(b.op(op, b.parameter("p", shape)))
    return b.graph


def two_output_body(first, second) -> Graph:  # type: ignore[no-untyped-def]
    """Two parameters; results: first(p0 + p1), second(p1)."""
    b = GraphBuilder("branch")
    p0, p1 = b.parameter("p0", (2, 3)), b.parameter("p1", (2, 3))
    b.result(b.op(first, b.op(Add(), p0, p1)))
    b.result(b.op(second, p1))
    return b.graph


def if_simple() -> If:
    return If(
        then_body=unary_body(ReLU(), (2, 3)),
        else_body=unary_body(Negative(), (2, 3)),
        then_inputs=(BodyInput(1, 0),),
        else_inputs=(BodyInput(1, 0),),
        then_outputs=(BodyOutput(0, 0),),
        else_outputs=(BodyOutput(0, 0),),
    )


def if_two_outputs() -> If:
    """The branches read the data inputs in different orders and swap their results."""
    return If(
        then_body=two_output_body(Tanh(), ReLU()),
        else_body=two_output_body(Negative(), Tanh()),
        then_inputs=(BodyInput(1, 0), BodyInput(2, 1)),
        else_inputs=(BodyInput(2, 0), BodyInput(1, 1)),
        then_outputs=(BodyOutput(0, 0), BodyOutput(1, 1)),
        else_outputs=(BodyOutput(0, 1), BodyOutput(1, 0)),
    )


def loop_accumulate() -> Loop:
    """acc = acc * 2 + i, three times; outputs the last acc and every acc along axis 0."""

    def step(b: GraphBuilder, i: OutPort, acc: OutPort) -> OutPort:
        return b.op(
            Add(), b.op(Multiply(), acc, b.const(np.float32(2))), b.op(Convert(destination_type=ElementType.f32), i)
        )

    return counted_loop_op((1, 3), step, counter_shape=(1,))


def loop_early_exit() -> Loop:
    """Continues while i + 1 < 3 although the trip count allows 10; an invariant input is added each time."""
    b = GraphBuilder("loop body")
    i = b.parameter("i", (), "i64")
    acc = b.parameter("acc", (2, 2))
    bias = b.parameter("bias", (2, 2))
    b.result(b.op(Add(), acc, bias))
    b.result(b.op(Less(), b.op(Add(), i, b.const(np.int64(1))), b.const(np.int64(3))))
    return Loop(
        body=b.graph,
        input_map=(BodyInput(2, 1), BodyInput(3, 2)),
        output_map=(BodyOutput(0, 0),),
        back_edges=(BackEdge(0, 1),),
        current_iteration=0,
        condition_output=1,
    )


def ti_running_sum(stride: int = 1, part: int = 1) -> TensorIterator:
    """h = tanh(row + h) over parts of a sequence; outputs the final h and every h."""
    b = GraphBuilder("ti body")
    row = b.parameter("row", (part, 3))
    h = b.parameter("h", (part, 3))
    b.result(b.op(Tanh(), b.op(Add(), row, h)))
    start, end = (0, -1) if stride > 0 else (-1, 0)
    return TensorIterator(
        body=b.graph,
        input_map=(
            BodyInput(0, 0, SliceSpec(axis=0, start=start, stride=stride, part_size=part, end=end)),
            BodyInput(1, 1),
        ),
        output_map=(
            BodyOutput(0, 0),
            BodyOutput(1, 0, SliceSpec(axis=0, start=start, stride=stride, part_size=part, end=end)),
        ),
        back_edges=(BackEdge(0, 1),),
    )


CASES: list[OpCase] = [
    OpCase(if_simple(), [np.array(True), tensor(2, 3)], id="then"),
    OpCase(if_simple(), [np.array(False), tensor(2, 3)], id="else"),
    OpCase(if_simple(), [const(np.array(False)), tensor(2, 3)], id="const_condition"),
    OpCase(if_two_outputs(), [np.array(True), tensor(2, 3), tensor(2, 3)], id="two_outputs_then"),
    OpCase(if_two_outputs(), [np.array(False), tensor(2, 3), tensor(2, 3)], id="two_outputs_else"),
    OpCase(loop_accumulate(), [const(np.int64(3)), const(np.array(True)), tensor(1, 3)], id="accumulate"),
    OpCase(
        loop_early_exit(), [const(np.int64(10)), const(np.array(True)), tensor(2, 2), tensor(2, 2)], id="early_exit"
    ),
    OpCase(ti_running_sum(), [tensor(5, 3), tensor(1, 3)], id="forward", rtol=1e-4, atol=1e-5),
    OpCase(ti_running_sum(stride=-1), [tensor(4, 3), tensor(1, 3)], id="backward", rtol=1e-4, atol=1e-5),
    OpCase(ti_running_sum(stride=2, part=2), [tensor(6, 3), tensor(2, 3)], id="parts_of_two", rtol=1e-4, atol=1e-5),
]
