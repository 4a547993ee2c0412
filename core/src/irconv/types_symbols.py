"""Symbolic dimensions: a dim is an int, or an expression of named symbols.

A :class:`Symbol` stands for one run-time dim value: two dims with the same symbol are equal
at run time, whatever the input shapes. An :class:`Expr` is a polynomial of symbols with
integer coefficients (sums and products), where an atom may also be ``expr // k`` for a
constant ``k`` (a floor division that did not divide exactly) or ``min(expr, k)`` (a slice
to a run-time stop of a dim ``k`` long). Expressions are kept in one
canonical form, so equal expressions compare equal and hash alike; an expression without
symbols is returned as a plain ``int``.

A symbol may carry bounds; one whose bounds are equal stands for a dim that is static *now*
but follows a model input (a Parameter's static dim): it is not a constant of the model,
so a value computed from it is not folded into the IR (the IR stays reshapeable).

Code that speaks only ``int | None`` (``MaybeShape``) never sees these: the tensor's shape
keeps ``None`` for a dim that is dynamic; symbols live beside it (``TensorData.symbols``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Key = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Symbol:
    """One run-time dim value, named by where it first appears (``key``).

    Bounds are facts about the symbol, not part of its identity."""

    key: Key
    lower: int = field(default=0, compare=False)
    upper: int | None = field(default=None, compare=False)

    @property
    def fixed(self) -> int | None:
        """The value of a symbol whose bounds pin it (a static dim of a model input)."""
        return self.lower if self.upper is not None and self.lower == self.upper else None

    def __str__(self) -> str:
        return "s" + "_".join(str(k) for k in self.key)

    def sort_key(self) -> str:
        return str(self)


@dataclass(frozen=True, slots=True)
class FloorDiv:
    """``numerator // divisor`` for a constant divisor > 1 that does not divide it exactly."""

    numerator: Expr
    divisor: int

    def __str__(self) -> str:
        return f"({self.numerator})//{self.divisor}"

    def sort_key(self) -> str:
        return str(self)


@dataclass(frozen=True, slots=True)
class Min:
    """``min(operand, bound)`` for a constant bound that the operand may exceed: the length
    of ``x[:stop]`` for a run-time ``stop`` and a dim of ``x`` that is ``bound`` long."""

    operand: Expr
    bound: int

    def __str__(self) -> str:
        return f"min({self.operand}, {self.bound})"

    def sort_key(self) -> str:
        return str(self)


Atom = Symbol | FloorDiv | Min
Monomial = tuple[Atom, ...]  # sorted atoms, repeated for powers; () is the constant term


@dataclass(frozen=True, slots=True)
class Expr:
    """A canonical polynomial: ``terms`` maps each monomial to its non-zero coefficient,
    sorted by the monomials' text. Build through :func:`sym` and the operators."""

    terms: tuple[tuple[Monomial, int], ...]

    # ---------------------------------------------------------------- arithmetic
    def __add__(self, other: object) -> SymDim:
        if not isinstance(other, (int, Expr)):
            return NotImplemented
        return _combine(self, _as_expr(other), 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> SymDim:
        if not isinstance(other, (int, Expr)):
            return NotImplemented
        return _combine(self, _as_expr(other), -1)

    def __rsub__(self, other: object) -> SymDim:
        if not isinstance(other, (int, Expr)):
            return NotImplemented
        return _combine(_as_expr(other), self, -1)

    def __neg__(self) -> SymDim:
        return _make({m: -c for m, c in self.terms})

    def __mul__(self, other: object) -> SymDim:
        if not isinstance(other, (int, Expr)):
            return NotImplemented
        right = _as_expr(other)
        out: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in right.terms:
                m = tuple(sorted(m1 + m2, key=_atom_key))
                out[m] = out.get(m, 0) + c1 * c2
        return _make(out)

    __rmul__ = __mul__

    def __floordiv__(self, other: object) -> SymDim:
        if not isinstance(other, int):
            if isinstance(other, Expr):
                exact = divide_exact(self, other)
                if exact is not None:
                    return exact
                raise ValueError(f"cannot divide {self} by {other} symbolically")
            return NotImplemented
        return floor_divide(self, other)

    def __str__(self) -> str:
        parts = []
        for m, c in self.terms:
            body = "*".join(str(a) for a in m)
            parts.append(str(c) if not m else body if c == 1 else f"{c}*{body}")
        return " + ".join(parts) or "0"

    # ----------------------------------------------------------------- facts
    def atoms(self) -> set[Atom]:
        return {a for m, _ in self.terms for a in m}

    def symbols(self) -> set[Symbol]:
        """Every symbol the expression reads, inside floor divisions too."""
        found: set[Symbol] = set()
        for atom in self.atoms():
            found |= {atom} if isinstance(atom, Symbol) else inner(atom).symbols()
        return found

    def as_symbol(self) -> Symbol | None:
        """The symbol when the expression is exactly one symbol."""
        atom = self.as_atom()
        return atom if isinstance(atom, Symbol) else None

    def as_atom(self) -> Atom | None:
        """The atom when the expression is exactly one atom."""
        if len(self.terms) == 1:
            m, c = self.terms[0]
            if c == 1 and len(m) == 1:
                return m[0]
        return None


def inner(atom: FloorDiv | Min) -> Expr:
    """The expression a floor division or a minimum is taken of."""
    return atom.numerator if isinstance(atom, FloorDiv) else atom.operand


SymDim = int | Expr
SymShape = tuple[SymDim, ...]


def sym(key: Key, lower: int = 0, upper: int | None = None) -> Expr:
    """The expression of one symbol."""
    return Expr((((Symbol(key, lower, upper),), 1),))


def _atom_key(atom: Atom) -> str:
    return atom.sort_key()


def _as_expr(value: SymDim) -> Expr:
    if isinstance(value, Expr):
        return value
    return Expr(((((), int(value)),)) if value else ())


def _make(terms: dict[Monomial, int]) -> SymDim:
    kept = sorted(((m, c) for m, c in terms.items() if c), key=lambda t: [_atom_key(a) for a in t[0]])
    if not kept:
        return 0
    if len(kept) == 1 and not kept[0][0]:
        return kept[0][1]
    return Expr(tuple(kept))


def _combine(a: Expr, b: Expr, sign: int) -> SymDim:
    out = dict(a.terms)
    for m, c in b.terms:
        out[m] = out.get(m, 0) + sign * c
    return _make(out)


def add(a: SymDim, b: SymDim) -> SymDim:
    return _combine(_as_expr(a), _as_expr(b), 1)


def multiply(a: SymDim, b: SymDim) -> SymDim:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    return _as_expr(a) * _as_expr(b)


def product(dims: Iterable[SymDim]) -> SymDim:
    total: SymDim = 1
    for d in dims:
        total = multiply(total, d)
    return total


def floor_divide(value: SymDim, divisor: int) -> SymDim:
    """``value // divisor`` for a constant divisor > 0: exact when every coefficient divides,
    else a :class:`FloorDiv` atom (dims are never negative, so floor division is exact math)."""
    if divisor <= 0:
        raise ValueError(f"symbolic floor division by {divisor}")
    if isinstance(value, int):
        return value // divisor
    if divisor == 1:
        return value
    if all(c % divisor == 0 for _, c in value.terms):
        return _make({m: c // divisor for m, c in value.terms})
    return Expr((((FloorDiv(value, divisor),), 1),))


def minimum(value: SymDim, bound: int) -> SymDim:
    """``min(value, bound)`` for a constant ``bound``: decided by ``value``'s bounds when
    they allow, else a :class:`Min` atom."""
    low, high = bounds(value)
    if high is not None and high <= bound:
        return value
    if low >= bound:
        return bound
    assert isinstance(value, Expr)  # an int has equal bounds: decided above
    return Expr((((Min(value, bound),), 1),))


def divide_exact(numerator: SymDim, denominator: SymDim) -> SymDim | None:
    """``numerator / denominator`` when a monomial denominator divides every term exactly
    (a Reshape's -1: the element count over the other dims); None when not provable."""
    if isinstance(denominator, int):
        if denominator == 0:
            return None
        if isinstance(numerator, int):
            return numerator // denominator if numerator % denominator == 0 else None
        if all(c % denominator == 0 for _, c in numerator.terms):
            return _make({m: c // denominator for m, c in numerator.terms})
        return None
    if len(denominator.terms) != 1:
        return numerator if numerator == denominator else None
    dm, dc = denominator.terms[0]
    out: dict[Monomial, int] = {}
    for m, c in _as_expr(numerator).terms:
        rest = list(m)
        for atom in dm:
            if atom not in rest:
                return None
            rest.remove(atom)
        if c % dc:
            return None
        out[tuple(rest)] = out.get(tuple(rest), 0) + c // dc
    return _make(out)


# ------------------------------------------------------------------------- bounds
def bounds(value: SymDim) -> tuple[int, int | None]:
    """(lower, upper or None) of a dim, by interval arithmetic over its atoms' bounds
    (a dim is never negative, so the lower bound is at least 0)."""
    if isinstance(value, int):
        return value, value
    low: int | None = 0
    high: int | None = 0
    for m, c in value.terms:
        lo, hi = _monomial_bounds(m)
        term_low, term_high = (c * lo, None if hi is None else c * hi) if c > 0 else (
            None if hi is None else c * hi, c * lo)
        low = None if low is None or term_low is None else low + term_low
        high = None if high is None or term_high is None else high + term_high
    return max(low or 0, 0), high


def _monomial_bounds(m: Monomial) -> tuple[int, int | None]:
    lo, hi = 1, 1
    hi_known = True
    for atom in m:
        if isinstance(atom, Symbol):
            a_lo, a_hi = atom.lower, atom.upper
        elif isinstance(atom, Min):
            n_lo, n_hi = bounds(atom.operand)
            a_lo, a_hi = min(n_lo, atom.bound), atom.bound if n_hi is None else min(n_hi, atom.bound)
        else:
            n_lo, n_hi = bounds(atom.numerator)
            a_lo, a_hi = n_lo // atom.divisor, None if n_hi is None else n_hi // atom.divisor
        lo *= a_lo
        if a_hi is None:
            hi_known = False
        else:
            hi *= a_hi
    return lo, hi if hi_known else None


def value_of(dim: SymDim | None) -> int | None:
    """The dim's value when it is known now: an int, or an expression of fixed symbols."""
    if dim is None or isinstance(dim, int):
        return dim
    symbol = dim.as_symbol()
    if symbol is not None:
        return symbol.fixed
    low, high = bounds(dim)
    return low if high == low else None


def is_constant(dim: SymDim | None) -> bool:
    """A dim that is the same for every input shape (a plain int)."""
    return isinstance(dim, int)


def describe(dims: Sequence[SymDim | None] | None) -> str:
    if dims is None:
        return "[...]"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
