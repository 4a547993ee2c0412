"""The shape helpers: NumPy broadcasting with dynamic dims, axis normalisation."""

from __future__ import annotations

import pytest
from irconv.errors import ConversionError
from irconv_opset.shapes import auto_broadcast, broadcast_shapes, normalize_axis, product


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((2, 3), (3,), (2, 3)),
        ((2, 1, 4), (3, 1), (2, 3, 4)),
        ((None, 3), (1, 3), (None, 3)),
        ((None, 3), (5, 3), (5, 3)),  # a dynamic dim must match the static one
        ((1,), (None,), (None,)),  # 1 against dynamic stays dynamic
        ((None,), (None,), (None,)),
        ((), (4, 5), (4, 5)),
        (None, (4, 5), None),
    ],
)
def test_numpy_broadcast(a, b, expected):
    assert broadcast_shapes(a, b) == expected
    assert broadcast_shapes(b, a) == expected


def test_incompatible_dims_are_an_error():
    with pytest.raises(ConversionError, match="3 and 4"):
        broadcast_shapes((2, 3), (4,))


def test_none_broadcast_needs_equal_ranks():
    assert auto_broadcast("none", (2, None), (None, 3)) == (2, 3)
    with pytest.raises(ConversionError):
        auto_broadcast("none", (2, 3), (3,))


def test_pdpd_broadcast_keeps_the_first_shape():
    assert auto_broadcast("pdpd", (2, 3, 4, 5), (3, 4), axis=1) == (2, 3, 4, 5)
    assert auto_broadcast("pdpd", (2, 3, 4, 5), (4, 5)) == (2, 3, 4, 5)


def test_unknown_mode_is_an_error():
    with pytest.raises(ConversionError, match="auto_broadcast"):
        auto_broadcast("bidirectional", (1,), (1,))


def test_normalize_axis():
    assert normalize_axis(-1, 4) == 3
    assert normalize_axis(2, 4) == 2
    with pytest.raises(ConversionError, match="out of range"):
        normalize_axis(4, 4)
    with pytest.raises(ConversionError):
        normalize_axis(-5, 4)


def test_product_of_dynamic_dims_is_unknown():
    assert product((2, 3, 4)) == 24
    assert product(()) == 1
    assert product((2, None)) is None
