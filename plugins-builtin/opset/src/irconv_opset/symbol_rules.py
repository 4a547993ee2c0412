"""How each op's output dims follow its inputs' symbolic dims (``Op.infer_symbols``).

Each function takes the node (after ``infer``) and returns one symbolic shape per output
(None where the rule knows nothing; a None dim is a dim it knows nothing about). The core
checks every answer against the shape ``infer`` found (``irconv.graph.symbolic``), so these
rules only have to be right where they answer. Elementwise, layout-agnostic ops need none:
their traits carry the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from irconv.graph.symbolic import broadcast_symbols, input_symbols, unify
from irconv.types_symbols import Expr, SymDim, divide_exact, floor_divide, minimum, product

from irconv_opset.partial import symbolic_elements
from irconv_opset.shapes import in_value, normalize_axes, normalize_axis

if TYPE_CHECKING:
    from irconv.graph import Node

Dims = tuple[SymDim | None, ...]
Answer = list[Dims | None]

#: A Slice stop at or past this is "to the end" (exporters write INT64_MAX or INT32_MAX).
_TO_END = 2**31 - 1


def _dim(value: object) -> SymDim | None:
    if isinstance(value, Expr):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    return None


def _ints(node: Node, idx: int) -> list[int] | None:
    value = in_value(node, idx)
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def same_as_input(node: Node, idx: int = 0) -> Answer:
    """Ops whose output 0 has the shape of input ``idx`` (MVN, normalisations)."""
    return [input_symbols(node, idx)]


def proven_length(node: Node, idx: int) -> int | None:
    """The static length of 1-D (or scalar) input ``idx``: from its shape, or proven by its
    symbols where the shape does not know it (a list as long as a dim the symbols fix). The
    rank of a Reshape or Broadcast whose target is computed."""
    shape = node.in_port(idx).data.get_shape() if node.has_input(idx) else None
    if shape is None or len(shape) > 1:
        return None
    if not shape:
        return 1
    if shape[0] is not None:
        return shape[0]
    dims = input_symbols(node, idx)
    return dims[0] if dims is not None and isinstance(dims[0], int) else None


def reshape(node: Node, special_zero: bool) -> Answer:
    data = input_symbols(node, 0)
    pattern = symbolic_elements(node.in_port(1).get_source())
    if pattern is None:
        return [None]
    dims: list[SymDim | None] = []
    for i, p in enumerate(pattern):
        d = _dim(p)
        if d == 0 and special_zero:
            d = data[i] if data is not None and i < len(data) else None
        dims.append(d)
    if -1 in dims:
        pos = dims.index(-1)
        others = [d for i, d in enumerate(dims) if i != pos]
        if data is None or any(d is None for d in others):
            dims[pos] = None
        else:
            dims[pos] = divide_exact(product(data), product(d for d in others if d is not None))
    return [tuple(dims)]


def transpose(node: Node) -> Answer:
    data, order = input_symbols(node, 0), _ints(node, 1)
    if data is None or order is None:
        return [None]
    perm = normalize_axes(order, len(data)) if order else list(range(len(data)))[::-1]
    return [tuple(data[p] for p in perm)]


def concat(node: Node, axis: int) -> Answer:
    shapes = [input_symbols(node, i) for i in range(node.num_inputs())]
    if not shapes or any(s is None for s in shapes):
        return [None]
    known = [s for s in shapes if s is not None]
    rank = len(known[0])
    axis = normalize_axis(axis, rank)
    out: list[SymDim | None] = []
    for i in range(rank):
        column = [s[i] for s in known]
        if i == axis:
            total: SymDim = 0
            for d in column:
                total = total + d
            out.append(total)
        else:  # equal at run time: a static one, else the first input's
            for d in column[1:]:
                unify(node, column[0], d)
            out.append(next((d for d in column if isinstance(d, int)), column[0]))
    return [tuple(out)]


def gather(node: Node, batch_dims: int) -> Answer:
    data, indices, axis_value = input_symbols(node, 0), input_symbols(node, 1), _ints(node, 2)
    if data is None or indices is None or axis_value is None:
        return [None]
    batch = batch_dims + len(indices) if batch_dims < 0 else batch_dims
    axis = normalize_axis(axis_value[0], len(data))
    return [tuple(data[:axis]) + tuple(indices[batch:]) + tuple(data[axis + 1 :])]


def unsqueeze(node: Node) -> Answer:
    data, axes = input_symbols(node, 0), _ints(node, 1)
    if data is None or axes is None:
        return [None]
    rank = len(data) + len(axes)
    new = set(normalize_axes(axes, rank))
    rest = iter(data)
    return [tuple(1 if i in new else next(rest) for i in range(rank))]


def squeeze(node: Node) -> Answer:
    data = input_symbols(node, 0)
    if data is None:
        return [None]
    if not node.has_input(1):
        return [tuple(d for d in data if d != 1)]
    axes = _ints(node, 1)
    if axes is None:
        return [None]
    drop = set(normalize_axes(axes, len(data)))
    return [tuple(d for i, d in enumerate(data) if i not in drop or d != 1)]


def shape_of(node: Node) -> Answer:
    data = input_symbols(node, 0)
    return [None if data is None else (len(data),)]


def broadcast(node: Node, mode: str) -> Answer:
    data = input_symbols(node, 0)
    elements = symbolic_elements(node.in_port(1).get_source())
    if elements is None:
        return [None]
    target = tuple(_dim(t) for t in elements)
    if mode == "explicit":
        return [target]
    if data is None:
        return [None]
    if mode == "bidirectional":
        return [_with_own_dims(node, data, broadcast_symbols(data, target))]
    padded = (1,) * (len(target) - len(data)) + tuple(data)
    out: list[SymDim | None] = []
    for t, d in zip(target, padded, strict=False):
        if t == 1:
            out.append(d)
        elif t is None:  # the target is 1 here or equal to the data's dim
            out.append(d if isinstance(d, int) and d != 1 else None)
        else:
            out.append(t)
    return [tuple(out)]


def _with_own_dims(node: Node, data: Dims, out: Dims) -> Dims:
    """A bidirectional broadcast to ``Maximum(sizes, 1)`` (how ``expand(-1)`` is written: -1
    becomes 1) keeps the data's dim where the size is that dim: ``max(d, 1)`` is ``d``, or 1
    when ``d`` is 0, and broadcasting 0 with 1 gives 0."""
    source = node.in_port(1).get_source()
    if None not in out or source is None or source.node.op.type != "Maximum":
        return out
    maximum = source.node
    for sizes_idx, floor_idx in ((0, 1), (1, 0)):
        floor = in_value(maximum, floor_idx)
        if floor is None or np.asarray(floor).size != 1 or int(np.asarray(floor).reshape(-1)[0]) != 1:
            continue
        sizes = symbolic_elements(maximum.in_port(sizes_idx).get_source())
        if sizes is None or len(sizes) != len(out):
            return out
        padded = (None,) * (len(out) - len(data)) + tuple(data)
        return tuple(d if o is None and d is not None and _dim(t) == d else o
                     for o, t, d in zip(out, sizes, padded, strict=True))
    return out


def matmul(node: Node, transpose_a: bool, transpose_b: bool) -> Answer:
    a, b = input_symbols(node, 0), input_symbols(node, 1)
    if a is None or b is None:
        return [None]
    a_vector, b_vector = len(a) == 1, len(b) == 1
    a = (1, *a) if a_vector else _swap_last(a, transpose_a)
    b = (*b, 1) if b_vector else _swap_last(b, transpose_b)
    unify(node, a[-1], b[-2])
    batch = broadcast_symbols(a[:-2], b[:-2])
    rows: Dims = () if a_vector else (a[-2],)
    cols: Dims = () if b_vector else (b[-1],)
    return [(*batch, *rows, *cols)]


def _swap_last(shape: Sequence[SymDim], swap: bool) -> tuple[SymDim, ...]:
    if not swap or len(shape) < 2:
        return tuple(shape)
    return (*shape[:-2], shape[-1], shape[-2])


def reduction(node: Node, keep_dims: bool) -> Answer:
    data, axes = input_symbols(node, 0), _ints(node, 1)
    if data is None or axes is None:
        return [None]
    reduced = set(normalize_axes(axes, len(data)))
    if keep_dims:
        return [tuple(1 if i in reduced else d for i, d in enumerate(data))]
    return [tuple(d for i, d in enumerate(data) if i not in reduced)]


def split(node: Node, parts: int) -> Answer:
    data, axis_value = input_symbols(node, 0), _ints(node, 1)
    if data is None or axis_value is None:
        return []
    axis = normalize_axis(axis_value[0], len(data))
    out = tuple(floor_divide(d, parts) if i == axis else d for i, d in enumerate(data))
    return [out] * parts


def variadic_split(node: Node) -> Answer:
    data, axis_value, lengths = input_symbols(node, 0), _ints(node, 1), _ints(node, 2)
    if data is None or axis_value is None or lengths is None:
        return []
    axis = normalize_axis(axis_value[0], len(data))
    sizes: list[SymDim | None] = [n for n in lengths]
    if -1 in lengths:
        sizes[lengths.index(-1)] = data[axis] - sum(n for n in lengths if n != -1)
    return [tuple(s if i == axis else d for i, d in enumerate(data)) for s in sizes]


def slice_(node: Node) -> Answer:
    """Slice-8: axes it does not slice keep their dims; an axis sliced from 0 to the end by 1
    keeps its dim too; one sliced from 0 by 1 to a stop that is not negative has
    ``min(stop, dim)`` elements (``position_ids[:, :seq]`` of a 512-long buffer) when one of
    the two is a constant; any other sliced axis is left to ``infer`` (static) or a fresh
    symbol."""
    data = input_symbols(node, 0)
    start, step = _ints(node, 1), _ints(node, 3)
    stop = symbolic_elements(node.in_port(2).get_source()) if node.has_input(2) else None
    count = _len_of(node, 1)
    axes = _ints(node, 4) if node.has_input(4) else (None if count is None else list(range(count)))
    if data is None or axes is None:
        return [None]
    out: list[SymDim | None] = list(data)
    for i, axis in enumerate(normalize_axes(axes, len(data))):
        if start is None or stop is None or step is None or start[i] != 0 or step[i] != 1:
            out[axis] = None
        else:
            out[axis] = _prefix(data[axis], _dim(stop[i]))
    return [tuple(out)]


def _prefix(dim: SymDim, stop: SymDim | None) -> SymDim | None:
    """The length of ``x[:stop]`` along a dim ``dim`` long (None when not provable)."""
    if stop is None:
        return None
    if isinstance(stop, int):
        if stop >= _TO_END:
            return dim
        return None if stop < 0 else minimum(dim, stop)
    if stop == dim:
        return dim
    if any(c < 0 for _, c in stop.terms):
        return None  # may be negative: counted from the end
    return minimum(stop, dim) if isinstance(dim, int) else None


def pad(node: Node) -> Answer:
    """Pad: each dim grows by its begin and end pads (known as shape values: ``data - indices``
    extents of a computed padding)."""
    data = input_symbols(node, 0)
    begin, end = (symbolic_elements(node.in_port(i).get_source()) for i in (1, 2))
    if data is None or begin is None or end is None or not len(data) == len(begin) == len(end):
        return [None]
    out: list[SymDim | None] = []
    for d, b, e in zip(data, begin, end, strict=True):
        before, after = _dim(b), _dim(e)
        out.append(None if before is None or after is None else d + before + after)
    return [tuple(out)]


def _len_of(node: Node, idx: int) -> int | None:
    shape = node.in_port(idx).data.get_shape() if node.has_input(idx) else None
    return shape[0] if shape is not None and len(shape) == 1 else None


def attention(node: Node) -> Answer:
    """ScaledDotProductAttention: the query's dims, the value's last."""
    query, value = input_symbols(node, 0), input_symbols(node, 2)
    if query is None or value is None:
        return [None]
    return [(*query[:-1], value[-1])]


def tile(node: Node) -> Answer:
    data, repeats = input_symbols(node, 0), _ints(node, 1)
    if data is None or repeats is None:
        return [None]
    rank = max(len(data), len(repeats))
    dims = (1,) * (rank - len(data)) + tuple(data)
    reps = [1] * (rank - len(repeats)) + repeats
    return [tuple(d * r for d, r in zip(dims, reps, strict=True))]


def range_(node: Node) -> Answer:
    """Range(start, stop, 1) with symbolic ends: ``stop - start`` elements when that is
    provably not negative (``arange(seq_len)`` is the sequence's symbol)."""
    start, stop, step = (symbolic_elements(node.in_port(i).get_source()) for i in range(3))
    if not (start and stop and step) or _dim(step[0]) != 1:
        return [None]
    first, last = _dim(start[0]), _dim(stop[0])
    if first is None or last is None:
        return [None]
    length = last - first
    if isinstance(length, int):
        return [(length,)] if length >= 0 else [None]
    # every term positive: the length is not negative, whatever the symbols' values
    return [(length,)] if all(c > 0 for _, c in length.terms) else [None]
