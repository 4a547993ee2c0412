"""The TensorList/TensorArrayV3 per-op cases, run on their own (as test_tf_ops runs its cases)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tf.tensor_list_cases import tensor_list_cases

OPS = sorted(
    [
        "TensorListReserve", "TensorListFromTensor", "TensorListGetItem", "TensorListSetItem",
        "TensorListStack", "TensorListGather", "TensorListLength", "TensorListElementShape",
        "EmptyTensorList", "TensorListPushBack", "TensorListPopBack", "TensorArrayV3",
        "TensorArrayScatterV3", "TensorArrayReadV3", "TensorArrayWriteV3", "TensorArraySizeV3",
        "TensorArrayGatherV3",
    ]
)  # fmt: skip


@pytest.mark.parametrize("op", OPS)
def test_tensor_list_op_matches_tensorflow(op: str, tf_check: Any) -> None:
    case = tensor_list_cases()[op]
    tf_check(case.fn, case.inputs, op=op, atol=case.atol)
