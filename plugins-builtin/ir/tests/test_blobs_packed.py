"""4-bit constants in the .bin: two values a byte, the first in the low nibble."""

from __future__ import annotations

import io

import numpy as np
import pytest
from irconv.types import ElementType
from irconv_ir.blobs import BlobWriter


def _expected_bytes(values: list[int]) -> bytes:
    nibbles = [v & 0x0F for v in values] + ([0] if len(values) % 2 else [])
    return bytes(low | high << 4 for low, high in zip(nibbles[0::2], nibbles[1::2], strict=True))


@pytest.mark.parametrize(
    ("element_type", "values"),
    [(ElementType.u4, [1, 2, 3, 4, 15]), (ElementType.i4, [-1, -8, 7, 0]), (ElementType.u4, [9])],
    ids=["u4-odd", "i4-even", "u4-one"],
)
def test_small_4bit_constant_is_packed(element_type: ElementType, values: list[int]) -> None:
    plain = np.int8 if element_type is ElementType.i4 else np.uint8
    stream = io.BytesIO()
    with BlobWriter(stream) as blobs:
        offset, size = blobs.add(np.array(values, plain).view(element_type.numpy))
    assert (offset, size) == (0, (len(values) + 1) // 2)
    assert stream.getvalue() == _expected_bytes(values)


def test_large_4bit_constant_is_packed_across_blocks() -> None:
    values = np.random.default_rng(0).integers(0, 16, (1001, 601), dtype=np.uint8)  # odd size, many blocks
    stream = io.BytesIO()
    with BlobWriter(stream) as blobs:
        _, size = blobs.add(values.view(ElementType.u4.numpy))
        _, again = blobs.add(values.copy().view(ElementType.u4.numpy))
    assert size == again == (values.size + 1) // 2
    stored = np.frombuffer(stream.getvalue(), np.uint8)
    assert stored.size == size  # the second, identical blob shares the first's bytes
    unpacked = np.stack([stored & 0x0F, stored >> 4], 1).reshape(-1)[: values.size]
    np.testing.assert_array_equal(unpacked, values.reshape(-1))
