import numpy as np
import pytest
from irconv_transforms.transpose_matmul_weights import TILE, transposed


@pytest.mark.parametrize("shape", [(1, 1), (3, 700), (TILE, TILE), (TILE + 1, 2 * TILE - 1), (1000, 37)])
def test_transposed_is_the_transpose_in_c_order(shape):
    w = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    t = transposed(w)
    assert t.flags.c_contiguous and t.dtype == w.dtype
    np.testing.assert_array_equal(t, w.T)


def test_transposed_reads_strided_and_f16_weights():
    w = np.arange(600, dtype=np.float16).reshape(20, 30)[::2, ::3]
    np.testing.assert_array_equal(transposed(w), w.T)
