"""Symbolic shape inference: the symbols of each tensor's dims, beside its shape.

After an op's ``infer`` sets its output shapes, inference asks the op for the outputs'
symbolic dims: an op declaring ``infer_symbols(node)`` (a list, one symbolic shape or None
per output) says how its dims follow from its inputs'; ops with a trait get the trait's
rule (elementwise broadcasting, layout-agnostic ops keeping input 0's dims, reductions);
any other op's dynamic dims get fresh symbols named after the op's output. A rule's answer
is checked against the shape ``infer`` found, dim by dim: a dim it gets wrong takes the
fresh symbol instead, so a rule can lose facts but never invent a wrong one.

A model input's dynamic dims are fresh symbols; its static dims are symbols too, pinned to
their value (``Symbol.fixed``): a shape value computed from them is not a constant of the
model, so folding leaves it alone and the IR stays reshapeable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from irconv.graph.meta import MetaKey
from irconv.ops.traits import Trait
from irconv.types import MaybeShape
from irconv.types_symbols import (
    Expr,
    FloorDiv,
    Min,
    Symbol,
    SymDim,
    SymShape,
    bounds,
    floor_divide,
    inner,
    minimum,
    sym,
    value_of,
)

if TYPE_CHECKING:
    from irconv.graph import Graph, Node
    from irconv.graph._port import OutPort
    from irconv.ops import Op

# Rules compute with the inputs' symbols; a rule that meets a case it does not model raises one
# of these and the outputs fall back to fresh symbols (never a failed conversion).
_RULE_ERRORS = (ArithmeticError, ValueError, IndexError, TypeError, KeyError)


class SymbolEqualities:
    """Symbols proven equal (a union-find over the graph's symbols): the dims a Concat joins
    along other axes, a MatMul's inner dims. A pinned symbol (its value known) represents its
    class, else the one named first."""

    def __init__(self) -> None:
        self._parent: dict[Symbol, Symbol] = {}

    def __bool__(self) -> bool:
        return bool(self._parent)

    def find(self, symbol: Symbol) -> Symbol:
        root = symbol
        while root in self._parent:
            root = self._parent[root]
        while symbol != root:  # path compression
            self._parent[symbol], symbol = root, self._parent[symbol]
        return root

    def union(self, a: Symbol, b: Symbol) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        keep, other = sorted((ra, rb), key=lambda s: (s.fixed is None, s.key))
        self._parent[other] = keep

    def canonical(self, dim: SymDim) -> SymDim:
        """``dim`` with every symbol replaced by its class's representative."""
        if isinstance(dim, int) or not self._parent:
            return dim
        total: SymDim = 0
        changed = False
        for monomial, coefficient in dim.terms:
            term: SymDim = coefficient
            for atom in monomial:
                if isinstance(atom, Symbol):
                    root = self.find(atom)
                    changed |= root != atom
                    term = term * Expr((((root,), 1),))
                else:
                    operand = self.canonical(inner(atom))
                    changed |= operand != inner(atom)
                    term = term * (_rebuilt(atom, operand) if operand != inner(atom) else Expr((((atom,), 1),)))
            total = total + term
        return total if changed else dim


def _rebuilt(atom: FloorDiv | Min, operand: SymDim) -> SymDim:
    """``atom`` of another operand."""
    return floor_divide(operand, atom.divisor) if isinstance(atom, FloorDiv) else minimum(operand, atom.bound)


SYMBOLIC_INPUTS: MetaKey[bool] = MetaKey(
    "core.symbolic_inputs", bool, doc="a model input has a dynamic dim: inference keeps symbols"
)

EQUAL_SYMBOLS: MetaKey[SymbolEqualities] = MetaKey(
    "core.equal_symbols", SymbolEqualities, default=SymbolEqualities, doc="symbols proven equal by the graph's ops"
)


def unify(node: Node, a: SymDim | None, b: SymDim | None) -> None:
    """Record that dims ``a`` and ``b`` are equal at run time (a rule's proof, e.g. Concat's)."""
    first = a.as_symbol() if isinstance(a, Expr) else None
    second = b.as_symbol() if isinstance(b, Expr) else None
    if first is not None and second is not None and first != second:
        node.graph.meta.setdefault(EQUAL_SYMBOLS).union(first, second)


def symbolic_shape(port: OutPort | None) -> SymShape | None:
    """The symbolic dims of the tensor at ``port`` (None: unknown rank), each symbol replaced
    by the representative of the symbols proven equal to it."""
    if port is None:
        return None
    data = port.data
    if data.shape is None:
        return None
    if data.symbols is not None and len(data.symbols) == len(data.shape):
        dims = data.symbols
    else:
        # not inferred since its shape was set: a constant's dims are its own, any other static
        # dim may follow a model input's (pinned, so nothing is folded from it)
        dims = _fresh(port, data.shape, pinned=not _is_constant(port.node.op))
    equalities = port.node.graph.meta.get(EQUAL_SYMBOLS)
    return tuple(equalities.canonical(d) for d in dims) if equalities else dims


def input_symbols(node: Node, idx: int) -> SymShape | None:
    return symbolic_shape(node.in_port(idx).get_source()) if node.has_input(idx) else None


def _fresh(port: OutPort, shape: MaybeShape, pinned: bool) -> SymShape:
    """Fresh symbols for the dynamic dims (and, ``pinned``, for the static ones too); a
    dynamic dim the op names (``dim_names``: a model input's named dims) gets the name's
    symbol, shared by every dim of that name."""
    assert shape is not None
    if not pinned and None not in shape:
        return shape  # type: ignore[return-value]  # ints only: already a symbolic shape
    key = (port.node.id, port.idx)
    names = _dim_names(port.node.op, len(shape)) if port.idx == 0 else None
    dims: list[SymDim] = []
    for axis, d in enumerate(shape):
        if d is not None:
            dims.append(sym((*key, axis), d, d) if pinned else d)
        elif names is not None and names[axis]:
            dims.append(sym(("dim", names[axis]), *_bounds_of(port.node.op, axis)))  # type: ignore[arg-type]
        else:
            dims.append(sym((*key, axis)))
    return tuple(dims)


def _dim_names(op: Op, rank: int) -> tuple[str | None, ...] | None:
    names = getattr(op, "dim_names", None)
    return names if names is not None and len(names) == rank else None


def _bounds_of(op: Op, axis: int) -> tuple[int, int | None]:
    """The declared bounds of a named dim (0..unbounded when none are declared)."""
    bounds = getattr(op, "bounds", None)
    found = bounds[axis] if bounds is not None and axis < len(bounds) else None
    return (found[0] or 0, found[1]) if found is not None else (0, None)


def _is_constant(op: Op) -> bool:
    """Whether the op holds its output's value (a Const), told by its type: reading
    ``declared_value()`` would compute a deferred Const's weights."""
    return op.type == "Const"


def infer_symbols(node: Node) -> None:
    """Set the symbolic dims of the node's outputs from its inputs' (after ``infer``).

    A graph none of whose inputs has a dynamic dim (``SYMBOLIC_INPUTS`` off) keeps no symbols:
    every static dim there follows the inputs' static shapes (pinned, as ``symbolic_shape``
    reads a port without symbols), and computing them would only cost time."""
    op = node.op
    outputs = node.out_ports()
    if not node.graph.meta.get(SYMBOLIC_INPUTS, True):
        for port in outputs:
            port.data.symbols = None
        return
    if op.declares_output:  # a model input: fresh symbols for every dim; a Const: its ints
        pinned = not _is_constant(op)
        for port in outputs:  # (a Const's are read from its shape: nothing to store)
            shape = port.data.shape
            port.data.symbols = _fresh(port, shape, pinned) if pinned and shape is not None else None
        return
    answers: Sequence[Sequence[SymDim | None] | None] = ()
    try:
        answers = _rule(node)
    except _RULE_ERRORS:
        answers = ()
    tainted: bool | None = None  # computed when a static dim needs a default
    equalities = node.graph.meta.get(EQUAL_SYMBOLS)
    for port in outputs:
        shape = port.data.shape
        if shape is None:
            continue
        answer = answers[port.idx] if port.idx < len(answers) else None
        if answer is None or len(answer) != len(shape):
            answer = (None,) * len(shape)
        elif equalities:
            answer = [None if a is None else equalities.canonical(a) for a in answer]
        dims: list[SymDim] = []
        for axis, (a, d) in enumerate(zip(answer, shape, strict=True)):
            checked = _checked(a, d)
            if checked is None:
                if d is not None and tainted is None:
                    tainted = _reads_pinned(node)
                key = (node.id, port.idx, axis)
                checked = sym(key) if d is None else (sym(key, d, d) if tainted else d)
            dims.append(checked)
        port.data.symbols = tuple(dims)


def _checked(answer: SymDim | None, dim: int | None) -> SymDim | None:
    """The rule's dim where it agrees with the inferred one, else None (a fresh symbol's
    place; a rule says None for a dim it knows nothing about)."""
    if answer is None:
        return None
    if dim is None:  # symbols may prove more than the ints did (a -1 over symbols that cancel)
        return answer if isinstance(answer, Expr) or answer >= 0 else None
    if isinstance(answer, int):
        return answer if answer == dim else None
    return answer if value_of(answer) == dim else None


def mark_symbolic_inputs(graph: Graph) -> None:
    """Record whether any model input has a dynamic dim (or rank): only then do dims need
    symbols. Inference calls it before a whole-graph pass."""
    dynamic = False
    for node in graph.nodes():
        if node.op.declares_output and not _is_constant(node.op):
            shape = node.out_port(0).data.shape if node.num_outputs() else None
            declared = getattr(node.op, "shape", ())
            if shape is None or None in shape or declared is None or None in declared:
                dynamic = True
                break
    graph.meta[SYMBOLIC_INPUTS] = dynamic


def _reads_pinned(node: Node) -> bool:
    """An input whose shape follows a model input's static dims, or whose value was computed
    from shapes: a static output dim may then change with the model's input shapes."""
    for port in node.in_ports():
        source = port.get_source()
        if source is None:
            continue
        if source.data.shape_derived:
            return True
        dims = symbolic_shape(source)
        if dims and any(isinstance(d, Expr) and value_of(d) is not None for d in dims):
            return True
    return False


def _rule(node: Node) -> Sequence[Sequence[SymDim | None] | None]:
    op = node.op
    declared = getattr(op, "infer_symbols", None)
    if declared is not None:
        answer: Sequence[Sequence[SymDim | None] | None] = declared(node)
        return answer
    if op.has(Trait.ELEMENTWISE) and getattr(op, "auto_broadcast", "numpy") == "numpy":
        shapes = []
        for port in node.in_ports():
            dims = symbolic_shape(port.get_source())
            if dims is None:
                return ()
            shapes.append(dims)
        return [broadcast_symbols(*shapes)]
    if op.has(Trait.LAYOUT_AGNOSTIC):
        return [input_symbols(node, 0)]
    return ()


# -------------------------------------------------------------------- broadcasting
def broadcast_symbol_dim(a: SymDim | None, b: SymDim | None) -> SymDim | None:
    """NumPy broadcasting of two symbolic dims. A 1 takes the other dim; equal dims stay;
    a static dim other than 1 wins over a symbol (the symbol must equal it at run time, or be
    1); two different symbols give no answer, None (either may be 1 at run time)."""
    if a is None or b is None:
        return None
    if a is b:
        return a
    if a == 1 or value_of(a) == 1 and isinstance(b, int):
        return b
    if b == 1 or value_of(b) == 1 and isinstance(a, int):
        return a
    if a == b:
        return a
    if isinstance(a, int) and not isinstance(b, int):
        return a
    if isinstance(b, int) and not isinstance(a, int):
        return b
    if _at_most(a, b):
        return b
    if _at_most(b, a):
        return a
    low_a, low_b = _lower(a), _lower(b)
    if low_a > 1 and low_b > 1:  # neither can be 1: they are equal at run time
        return a
    return None


def _at_most(small: SymDim, large: SymDim) -> bool:
    """``small`` is ``min(large, k)``: broadcasting the two gives ``large`` (equal when
    ``large <= k``; else ``small`` is ``k`` and they broadcast only if ``k`` is 1, or not at
    all)."""
    atom = small.as_atom() if isinstance(small, Expr) else None
    return isinstance(atom, Min) and atom.operand == large


def _lower(dim: SymDim) -> int:
    return dim if isinstance(dim, int) else bounds(dim)[0]


def broadcast_symbols(*shapes: Sequence[SymDim | None]) -> tuple[SymDim | None, ...]:
    if shapes and all(s == shapes[0] for s in shapes[1:]):  # the common case: one shape
        return tuple(shapes[0])
    rank = max((len(s) for s in shapes), default=0)
    result: list[SymDim | None] = [1] * rank
    for shape in shapes:
        padded = (1,) * (rank - len(shape)) + tuple(shape)
        result = [broadcast_symbol_dim(r, d) for r, d in zip(result, padded, strict=True)]
    return tuple(result)


def symbol_of(dim: SymDim) -> Symbol | None:
    return dim.as_symbol() if isinstance(dim, Expr) else None
