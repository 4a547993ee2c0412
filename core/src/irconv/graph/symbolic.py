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

from irconv.ops.traits import Trait
from irconv.types import MaybeShape
from irconv.types_symbols import Expr, Symbol, SymDim, SymShape, bounds, sym, value_of

if TYPE_CHECKING:
    from irconv.graph import Node
    from irconv.graph._port import OutPort

# Rules compute with the inputs' symbols; a rule that meets a case it does not model raises one
# of these and the outputs fall back to fresh symbols (never a failed conversion).
_RULE_ERRORS = (ArithmeticError, ValueError, IndexError, TypeError, KeyError)


def symbolic_shape(port: OutPort | None) -> SymShape | None:
    """The symbolic dims of the tensor at ``port`` (None: unknown rank)."""
    if port is None:
        return None
    data = port.data
    if data.shape is None:
        return None
    if data.symbols is not None and len(data.symbols) == len(data.shape):
        return data.symbols
    # not inferred since its shape was set: a constant's dims are its own, any other static
    # dim may follow a model input's (pinned, so nothing is folded from it)
    return _fresh(port, data.shape, pinned=port.node.op.declared_value() is None)


def input_symbols(node: Node, idx: int) -> SymShape | None:
    return symbolic_shape(node.in_port(idx).get_source()) if node.has_input(idx) else None


def _fresh(port: OutPort, shape: MaybeShape, pinned: bool) -> SymShape:
    """Fresh symbols for the dynamic dims (and, ``pinned``, for the static ones too)."""
    assert shape is not None
    key = (port.node.id, port.idx)
    return tuple(
        sym((*key, axis)) if d is None else (sym((*key, axis), d, d) if pinned else d) for axis, d in enumerate(shape)
    )


def infer_symbols(node: Node) -> None:
    """Set the symbolic dims of the node's outputs from its inputs' (after ``infer``)."""
    op = node.op
    outputs = node.out_ports()
    if op.declares_output:  # a model input: fresh symbols for every dim; a Const: its ints
        pinned = op.declared_value() is None
        for port in outputs:
            if port.data.shape is not None:
                port.data.symbols = _fresh(port, port.data.shape, pinned)
        return
    answers: Sequence[Sequence[SymDim | None] | None] = ()
    try:
        answers = _rule(node)
    except _RULE_ERRORS:
        answers = ()
    tainted = _reads_pinned(node)
    for port in outputs:
        shape = port.data.shape
        if shape is None:
            continue
        answer = answers[port.idx] if port.idx < len(answers) else None
        default = _fresh(port, shape, pinned=tainted)
        if answer is None or len(answer) != len(shape):
            port.data.symbols = default
            continue
        port.data.symbols = tuple(_checked(a, d, fresh) for a, d, fresh in zip(answer, shape, default, strict=True))


def _checked(answer: SymDim | None, dim: int | None, fresh: SymDim) -> SymDim:
    """The rule's dim where it agrees with the inferred one, else the fresh symbol (a rule
    says None for a dim it knows nothing about)."""
    if answer is None:
        return fresh
    if dim is None:
        return answer if isinstance(answer, Expr) and value_of(answer) is None else fresh
    return answer if value_of(answer) == dim else fresh


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
        return declared(node)
    if op.has(Trait.ELEMENTWISE) and getattr(op, "auto_broadcast", "numpy") == "numpy":
        shapes = [input_symbols(node, i) for i in range(node.num_inputs()) if node.has_input(i)]
        if any(s is None for s in shapes):
            return ()
        return [broadcast_symbols(*[s for s in shapes if s is not None])]
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
    low_a, low_b = _lower(a), _lower(b)
    if low_a > 1 and low_b > 1:  # neither can be 1: they are equal at run time
        return a
    return None


def _lower(dim: SymDim) -> int:
    return dim if isinstance(dim, int) else bounds(dim)[0]


def broadcast_symbols(*shapes: Sequence[SymDim | None]) -> tuple[SymDim | None, ...]:
    rank = max((len(s) for s in shapes), default=0)
    result: list[SymDim | None] = [1] * rank
    for shape in shapes:
        padded = (1,) * (rank - len(shape)) + tuple(shape)
        result = [broadcast_symbol_dim(r, d) for r, d in zip(result, padded, strict=True)]
    return tuple(result)


def symbol_of(dim: SymDim) -> Symbol | None:
    return dim.as_symbol() if isinstance(dim, Expr) else None
