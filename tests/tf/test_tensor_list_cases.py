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


@pytest.mark.parametrize("op", OPS)
def test_tensor_list_op_zero_size(op: str, tf_check: Any) -> None:
    """The zero-size variant test_tf_ops runs: input 0 with an empty first dimension."""
    from tests.tf.test_tf_ops import _zero_size, tensorflow_result

    variant = _zero_size(tensor_list_cases()[op])
    try:
        tensorflow_result(variant)
    except Exception as exc:
        pytest.skip(f"TensorFlow refuses it: {type(exc).__name__}")
    tf_check(variant.fn, variant.inputs, op=op, atol=variant.atol)
