"""The symbolic dim algebra: canonical forms, exact division, floor division, bounds."""

from __future__ import annotations

import pytest
from irconv.types_symbols import (
    Expr,
    FloorDiv,
    Min,
    bounds,
    divide_exact,
    floor_divide,
    minimum,
    product,
    sym,
    value_of,
)

B, S, T = sym(("b",)), sym(("s",)), sym(("t",))


def test_equal_expressions_built_differently_compare_and_hash_equal():
    assert B * S + T == T + S * B
    assert hash(B * S + T) == hash(T + S * B)
    assert (B + 2) * S == 2 * S + B * S
    assert B + S != B + T


def test_an_expression_without_symbols_is_a_plain_int():
    assert (B + 3) - B == 3
    assert isinstance((B + 3) - B, int)
    assert B * 0 == 0
    assert B - B == 0


def test_product_and_exact_division_cancel_symbols():
    total = product([B, S, 64])
    assert divide_exact(total, product([B, S, 16])) == 4
    assert divide_exact(total, B * 16) == 4 * S
    assert divide_exact(total, T) is None  # t is not a factor: not provable
    assert divide_exact(B * S + S, S) == B + 1
    assert divide_exact(3 * B, 2) is None


def test_floor_division_is_exact_when_every_coefficient_divides():
    assert floor_divide(4 * B + 8, 4) == B + 2
    halved = floor_divide(B, 2)
    assert isinstance(halved, Expr)
    assert isinstance(halved.terms[0][0][0], FloorDiv)
    assert floor_divide(B, 2) == floor_divide(B, 2)  # the same atom, the same symbol
    assert floor_divide(B, 2) != floor_divide(S, 2)
    assert floor_divide(7, 2) == 3
    with pytest.raises(ValueError):
        floor_divide(B, 0)


def test_bounds_follow_the_symbols_bounds():
    seq = sym(("q",), 1, 128)
    assert bounds(seq) == (1, 128)
    assert bounds(seq + 2) == (3, 130)
    assert bounds(2 * seq) == (2, 256)
    assert bounds(B) == (0, None)
    assert bounds(seq - sym(("r",), 0, 8)) == (0, 128)  # never below 0: a dim
    assert bounds(floor_divide(seq, 2)) == (0, 64)


def test_a_pinned_symbol_has_a_value_but_is_not_a_constant():
    pinned = sym(("p", 0), 8, 8)
    assert value_of(pinned) == 8
    assert value_of(pinned * 2) == 16
    assert value_of(B) is None
    assert pinned != 8
    assert pinned.as_symbol() is not None and pinned.as_symbol().fixed == 8


def test_symbols_are_equal_by_key_whatever_their_bounds():
    assert sym(("k",), 1, 4) == sym(("k",))
    assert (B + S).symbols() == {B.as_symbol(), S.as_symbol()}
    assert floor_divide(B, 3).symbols() == {B.as_symbol()}


def test_minimum_with_a_constant_is_decided_by_bounds_else_an_atom():
    assert minimum(7, 512) == 7
    assert minimum(sym(("p",), 0, 100), 512) == sym(("p",), 0, 100)  # never above the bound
    assert minimum(sym(("q",), 600), 512) == 512  # never below it
    clipped = minimum(S, 512)
    assert isinstance(clipped, Expr) and isinstance(clipped.as_atom(), Min)
    assert clipped == minimum(S, 512) and clipped != minimum(T, 512) and clipped != S
    assert bounds(clipped) == (0, 512)
    assert clipped.symbols() == {S.as_symbol()}
