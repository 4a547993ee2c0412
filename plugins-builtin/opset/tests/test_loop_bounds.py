"""Loop output lengths: a static length only where the runtime has one."""

from __future__ import annotations

import numpy as np
import pytest
from irconv_opset import Add
from irconv_opset.testing_loop import counted_loop


def _scan_length(trip: int) -> int | None:
    """Length of the scan output of a Loop of constant trip count ``trip``, body condition true."""
    _, loop = counted_loop(trip, (2,), lambda body, i, acc: body.op(Add(), acc, body.const(np.ones(2, np.float32))))
    shape = loop.out_port(1).data.shape
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
