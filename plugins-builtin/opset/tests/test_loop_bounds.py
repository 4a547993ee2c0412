"""Loop output lengths: a static length only where the runtime has one."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import Add, Loop
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput, SliceSpec


def _scan_length(trip: int) -> int | None:
    """Length of the scan output of a Loop of constant trip count ``trip``, body condition true."""
    body = GraphBuilder("body")
    body.parameter("i", (), "i64")
    acc = body.parameter("acc", (2,))
    body.result(body.op(Add(), acc, body.const(np.ones(2, np.float32))))
    body.result(body.const(np.array(True)))
    loop = Loop(
        body=body.graph,
        input_map=(BodyInput(2, 1),),
        output_map=(BodyOutput(0, 0), BodyOutput(1, 0, SliceSpec(axis=0))),
        back_edges=(BackEdge(0, 1),),
        current_iteration=0,
        condition_output=1,
    )
    b = GraphBuilder()
    node = b.graph.add_node(loop, "loop", [b.const(np.int64(trip)), b.const(np.array(True)), b.parameter("x", (2,))])
    b.result(node.out_port(0), "y")
    b.result(node.out_port(1), "ys")
    infer_graph(b.graph)
    shape = node.out_port(1).data.shape
    assert shape is not None
    return shape[0]


@pytest.mark.parametrize("trip", [2**63 - 1, 2**62])
def test_a_scan_length_the_runtime_cannot_hold_is_dynamic(trip: int) -> None:
    """OpenVINO reads the int64 maximum as an unbounded dim: a scan output of that length
    (or more: 2 values per iteration here) is dynamic, not a static length shape sub-graphs
    would fold."""
    assert _scan_length(trip) is None


def test_a_scan_length_of_a_small_trip_count_is_static() -> None:
    assert _scan_length(3) == 6
