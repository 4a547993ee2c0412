"""Tensors held in TensorProto's typed fields (no raw_data) decode as the onnx package decodes them."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.errors import ModelFileError
from irconv_onnx.proto.onnx_ml_pb2 import TensorProto as OurTensor
from irconv_onnx.tensors import tensor_to_array

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(3)

CASES = [
    (TensorProto.FLOAT, RNG.standard_normal(6).astype(np.float32)),
    (TensorProto.DOUBLE, RNG.standard_normal(6)),
    (TensorProto.FLOAT16, np.array([0.5, -2.0, 65504.0, 6e-8, np.inf, -0.0], np.float16)),
    (TensorProto.INT8, np.array([-128, -3, 0, 5, 127, 1], np.int8)),
    (TensorProto.UINT8, np.array([0, 1, 255, 7, 8, 9], np.uint8)),
    (TensorProto.INT16, np.array([-32768, 2, 3, 4, 5, 32767], np.int16)),
    (TensorProto.UINT16, np.array([0, 65535, 3, 4, 5, 6], np.uint16)),
    (TensorProto.INT32, np.array([-(2**31), 2**31 - 1, 0, 1, 2, 3], np.int32)),
    (TensorProto.INT64, np.array([-(2**63), 2**63 - 1, 0, 1, 2, 3], np.int64)),
    (TensorProto.UINT32, np.array([0, 2**32 - 1, 5, 6, 7, 8], np.uint32)),
    (TensorProto.UINT64, np.array([0, 2**64 - 1, 5, 6, 7, 8], np.uint64)),
    (TensorProto.BOOL, np.array([True, False, True, True, False, False])),
]


def _ours(tensor: TensorProto) -> OurTensor:
    return OurTensor.FromString(tensor.SerializeToString())


@pytest.mark.parametrize("data_type, values", CASES, ids=[TensorProto.DataType.Name(c[0]) for c in CASES])
def test_typed_fields_decode_like_numpy_helper(data_type: int, values: np.ndarray) -> None:
    tensor = helper.make_tensor("t", data_type, [2, 3], values.reshape(2, 3), raw=False)
    assert not tensor.HasField("raw_data")
    expected = numpy_helper.to_array(tensor)
    actual = tensor_to_array(_ours(tensor))
    assert actual.dtype == expected.dtype and actual.shape == (2, 3)
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))  # bit for bit


def test_a_scalar_and_an_empty_tensor() -> None:
    assert tensor_to_array(_ours(helper.make_tensor("s", TensorProto.INT64, [], [7]))).tolist() == 7
    empty = tensor_to_array(_ours(helper.make_tensor("e", TensorProto.FLOAT, [0, 3], [])))
    assert empty.shape == (0, 3) and empty.dtype == np.float32


def test_a_count_that_does_not_match_the_shape_is_a_model_error() -> None:
    tensor = helper.make_tensor("t", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    del tensor.dims[:]
    tensor.dims.extend([5])
    with pytest.raises(ModelFileError, match="4 values, shape \\[5\\] needs 5"):
        tensor_to_array(_ours(tensor))
