"""MXNet Reshape codes: the examples of MXNet's Reshape documentation."""

from __future__ import annotations

import pytest
from irconv_mxnet.extractors.reshape import ReshapeError, fold_static, plan_reshape


def static(codes: tuple[int, ...], shape: tuple[int, ...], reverse: bool = False) -> list[object]:
    return fold_static(plan_reshape(codes, shape, reverse), shape)


@pytest.mark.parametrize(
    "shape,codes,want",
    [
        ((2, 3, 4), (4, 0, 2), [4, 3, 2]),
        ((2, 3, 4), (2, 0, 0), [2, 3, 4]),
        ((2, 3, 4), (6, 1, -1), [6, 1, -1]),
        ((2, 3, 4), (3, -1, 8), [3, -1, 8]),
        ((2, 3, 4), (-1,), [-1]),
        ((2, 3, 4), (-2,), [2, 3, 4]),
        ((2, 3, 4), (2, -2), [2, 3, 4]),
        ((2, 3, 4), (-2, 1, 1), [2, 3, 4, 1, 1]),
        ((2, 3, 4), (-3, 4), [6, 4]),
        ((2, 3, 4, 5), (-3, -3), [6, 20]),
        ((2, 3, 4), (0, -3), [2, 12]),
        ((2, 3, 4), (-3, -2), [6, 4]),
        ((2, 3, 4), (-4, 1, 2, -2), [1, 2, 3, 4]),
        ((2, 3, 4), (2, -4, -1, 3, -2), [2, 1, 3, 4]),
    ],
)
def test_codes(shape: tuple[int, ...], codes: tuple[int, ...], want: list[int]) -> None:
    assert static(codes, shape) == want


def test_reverse() -> None:
    assert static((-1, 0), (10, 5, 4)) == [-1, 5]
    assert static((-1, 0), (10, 5, 4), reverse=True) == [-1, 4]


def test_dynamic_dims_stay_symbolic() -> None:
    plan = fold_static(plan_reshape((0, -3), (None, 3, 4)), (None, 3, 4))
    assert plan == [(0,), 12]
    plan = fold_static(plan_reshape((-3, 0), (None, 3, 4)), (None, 3, 4))
    assert plan == [(0, 1), 4]


def test_errors() -> None:
    with pytest.raises(ReshapeError, match="rank"):
        plan_reshape((0,), None)
    with pytest.raises(ReshapeError, match="more than one"):
        plan_reshape((-1, -1), (2, 3))
    with pytest.raises(ReshapeError, match="dimension 2"):
        plan_reshape((0, 0, 0), (2, 3))
