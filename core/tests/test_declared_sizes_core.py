"""The core's checks of sizes and weight bytes a model file declares (irconv.graph.budget);
the loaders' rows are tests/robustness/test_declared_sizes.py."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.errors import ModelFileError
from irconv.graph.budget import GIB, ValueBudget, check_weight_bytes, declared_size


def test_a_size_within_its_limit_and_the_budget_is_returned() -> None:
    assert declared_size(np.int64(4), field="dense_size", where="tensor 'c'", limit=4, unit_bytes=8) == 4


@pytest.mark.parametrize(
    ("value", "kwargs", "says"),
    [
        (-1, {}, "dense_size -1 is negative"),
        (5, {"limit": 4}, "dense_size 5 is more than the 4 the tensor's shape allows"),
        (5, {"limit": 4, "limit_is": "bytes left in the file"}, "more than the 4 bytes left in the file"),
        (GIB // 8 + 1, {"unit_bytes": 8}, "would take 1 GiB, more than the 1 GiB"),
        (2000, {"budget": ValueBudget(tensor_bytes=1000)}, "would take 2000 bytes, more than the 1000 bytes"),
        ("12", {}, "dense_size is '12', not a whole number"),
        (True, {}, "not a whole number"),
    ],
)
def test_a_size_the_budget_refuses_is_one_line_naming_field_value_and_place(value, kwargs, says) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelFileError) as caught:
        declared_size(value, field="dense_size", where="tensor 'c'", **kwargs)
    message = str(caught.value)
    assert message.startswith("tensor 'c': ") and says in message and "\n" not in message, message


def test_weight_bytes_that_match_the_shape_pass() -> None:
    check_weight_bytes("weight 'w'", (30, 8), 4, 960)
    check_weight_bytes("weight 'w'", (30, 8), 4, 1000, at_least=True)  # a record shared by views


@pytest.mark.parametrize(
    ("shape", "actual", "at_least", "says"),
    [
        ((30, 8), 0, False, "shape [30x8] at 4 byte(s) per element needs 960 bytes, the file holds 0"),
        ((30, 8), 964, False, "needs 960 bytes, the file holds 964"),
        ((30, 8), 480, True, "needs 960 bytes, the file holds 480"),
        ((1 << 32, 1 << 32), 0, False, "needs 73786976294838206464 bytes"),  # no int64 wrap to 0
        ((-1, 4), 0, False, "negative dimension"),
    ],
)
def test_weight_bytes_that_differ_from_the_shape_are_refused(shape, actual, at_least, says) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelFileError, match="^weight 'w': ") as caught:
        check_weight_bytes("weight 'w'", shape, 4, actual, at_least=at_least)
    assert says in str(caught.value), caught.value
