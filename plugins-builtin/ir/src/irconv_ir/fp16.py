"""FP16 compression of f32 constants: f16 bytes in the ``.bin``, a decompression Convert in the IR.

Compute stays f32: the runtime sees ``Const(f16) -> Convert(f32)`` marked with the
``decompression`` runtime attribute and folds it back (or keeps weights in f16 where the
device prefers). Only floating data is compressed: constants that feed inputs where
precision decides a shape or an index stay f32.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from irconv.graph import Graph, Node
from irconv.ops import Const
from irconv.ops.traits import Trait
from irconv_opset import Convert

from irconv_ir.blobs import Encoding

F16_MAX = float(np.finfo(np.float16).max)

#: Inputs whose value steers shapes or indices rather than data (IR type -> input ports).
#: A rounding error there changes the output shape, so those constants stay f32.
PRECISION_SENSITIVE_INPUTS: dict[str, frozenset[int]] = {
    "Interpolate": frozenset({1, 2, 3}),  # v4: sizes, scales, axes; v11: scales_or_sizes, axes
    "Range": frozenset({0, 1, 2}),
    "Broadcast": frozenset({1, 2}),
    "Reshape": frozenset({1}),
    "Tile": frozenset({1}),
    "Pad": frozenset({1, 2}),
    "StridedSlice": frozenset({1, 2, 3}),
    "Slice": frozenset({1, 2, 3, 4}),
    "OneHot": frozenset({1}),
    "TopK": frozenset({1}),
    "PriorBox": frozenset({0, 1}),
    "PriorBoxClustered": frozenset({0, 1}),
    "Proposal": frozenset({2}),
    "NonMaxSuppression": frozenset({2, 3, 4, 5}),
    "GridSample": frozenset({1}),
    "ROIAlign": frozenset({1}),
    "ROIPooling": frozenset({1}),
    "PSROIPooling": frozenset({1}),
    "DetectionOutput": frozenset(),
}


#: Names of kept constants the note shows, per reason.
NAMES_SHOWN = 3


@dataclass
class CompressionStats:
    """What compression did, for the note printed after conversion."""

    constants: int = 0
    values: int = 0
    overflow: int = 0
    underflow: int = 0
    #: reason -> names of the f32 constants kept f32 for it (see :func:`f16_loss`)
    kept: dict[str, list[str]] = field(default_factory=dict)

    def count(self, values: int, reports: list[object]) -> None:
        """Adds one compressed constant of ``values`` values, given what :func:`encode_f16`
        returned for each of its blocks."""
        self.constants += 1
        self.values += values
        for report in reports:
            overflow, underflow = cast("tuple[int, int]", report)
            self.overflow += overflow
            self.underflow += underflow

    def keep(self, name: str, reason: str) -> None:
        """Records a constant left f32 because f16 cannot hold it exactly."""
        self.kept.setdefault(reason, []).append(name)

    def message(self) -> str | None:
        if not self.constants and not self.kept:
            return None
        text = f"compressed {self.constants} f32 constant(s) ({self.values} values) to f16" if self.constants else ""
        for reason, names in sorted(self.kept.items()):
            shown = ", ".join(repr(name) for name in names[:NAMES_SHOWN])
            more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
            text += f"{'; ' if text else ''}kept {len(names)} constant(s) f32 ({reason}): {shown}{more}"
        problems = []
        if self.overflow:
            problems.append(f"{self.overflow} value(s) beyond +-{F16_MAX:g} were clamped")
        if self.underflow:
            problems.append(f"{self.underflow} non-zero value(s) below the f16 range became zero")
        if problems:
            text += "; " + "; ".join(problems) + " (use --no-compress-to-fp16 to keep f32 weights)"
        return text


def shape_constants(graph: Graph) -> set[int]:
    """Ids of the Consts whose values reach a precision-sensitive input (a shape, a count...).

    Walks upstream from every such input through whatever computes it (a Convert to i64,
    a Multiply of scales...), stopping at ShapeOf and Parameters, as OpenVINO's own
    converter marks shape sub-graphs: rounding anything on those paths to f16 could change
    a shape.
    """
    starts = [
        source.node
        for type_name, ports in PRECISION_SENSITIVE_INPUTS.items()
        for node in graph.by_type(type_name)
        for port in node.in_ports()
        if port.idx in ports and (source := port.get_source()) is not None
    ]
    return _consts_upstream(starts, lambda node: node.type not in ("ShapeOf", "Parameter"))


#: Ops whose output is an integer made from their input's values (FakeQuantize puts them on
#: a grid of integers): a value an ulp away can come out one integer apart.
ROUNDING_OPS = ("Round", "Floor", "Ceiling", "FakeQuantize")
#: Ops that move values without computing new ones: a value's error reaches their users as it is.
MOVING_OPS = frozenset(
    {
        "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Broadcast", "Concat", "Gather", "Tile",
        "StridedSlice", "Slice", "Pad", "Split", "VariadicSplit", "DepthToSpace", "SpaceToDepth",
    }
)  # fmt: skip


def rounded_constants(graph: Graph) -> set[int]:
    """Ids of the Consts of exact integer arithmetic, two kinds:

    - those whose values reach an integer rounding (Round, Floor, Ceiling, FakeQuantize, a
      Convert to an integer type) through element-wise arithmetic, value moves and
      reductions: accumulator biases, requantization multipliers, zero points, grid ranges,
      any computed index. Rounding one to f16 moves the value that is rounded, so the
      integer that comes out can change;
    - the operands of the element-wise arithmetic applied to integer values (a rounding's
      result, a computed integer tensor converted to float): a dequantization's scale and
      zero point, whose f16 rounding would move every real value made from those integers.

    Such a constant stays f32 unless f16 holds it exactly (see :func:`f16_loss`). Integer
    weights read as ``Const -> Convert`` are not followed: their scales are the weight
    compression's business, which chooses their type itself.
    """
    rounding = [node for node in graph.nodes() if _makes_integers(node)]
    starts = [source.node for node in rounding for port in node.in_ports() if (source := port.get_source()) is not None]
    return _consts_upstream(starts, _passes_values_on) | _operands_downstream(rounding)


def _makes_integers(node: Node) -> bool:
    if node.type in ROUNDING_OPS:
        return True
    if not isinstance(node.op, Convert):
        return False
    source = node.in_port(0).get_source()
    destination = node.op.destination_type
    from_integers = source is not None and source.node.type != "Const" and source.data.element_type.is_integer
    return bool(destination.is_integer or (from_integers and destination.is_float))


def _operands_downstream(starts: list[Node]) -> set[int]:
    """Ids of the Consts read by the element-wise ops downstream of ``starts`` (walking only
    through element-wise ops)."""
    found: set[int] = set()
    seen: set[int] = set()
    stack = [port.node for node in starts for port in node.users()]
    while stack:
        node = stack.pop()
        if node.id in seen or Trait.ELEMENTWISE not in node.op.traits:
            continue
        seen.add(node.id)
        found.update(
            source.node.id
            for port in node.in_ports()
            if (source := port.get_source()) is not None and source.node.type == "Const"
        )
        stack.extend(port.node for port in node.users())
    return found


def _passes_values_on(node: Node) -> bool:
    traits = node.op.traits
    return Trait.ELEMENTWISE in traits or Trait.REDUCTION in traits or node.type in MOVING_OPS


def _consts_upstream(starts: list[Node], walk_through: Callable[[Node], bool]) -> set[int]:
    """Ids of the Consts among ``starts`` and upstream of them, walking only through nodes
    ``walk_through`` accepts."""
    keep: set[int] = set()
    seen: set[int] = set()
    stack = list(starts)
    while stack:
        node = stack.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        if node.type == "Const":
            keep.add(node.id)
        elif walk_through(node):
            stack.extend(source.node for port in node.in_ports() if (source := port.get_source()) is not None)
    return keep


#: f32 magnitudes from which f16 has no finite value (65520 rounds to infinity).
F16_OVERFLOW = 65520.0
BEYOND_F16 = f"values beyond +-{F16_MAX:g}"
INEXACT_INTEGER_ARITHMETIC = "in exact integer arithmetic, not exact in f16"


def f16_loss(value: np.ndarray | object, rounded: bool, check_range: bool = True) -> str | None:
    """Why ``value`` (f32) must stay f32, or None when f16 may hold it: for a constant that
    is ``rounded`` downstream (see :func:`rounded_constants`), any value f16 does not hold
    exactly; with ``check_range``, a finite value f16 cannot hold (beyond +-65504, it would
    be clamped; the writer leaves that to the encoder, see :func:`any_clamped`). A value
    computed while written (a ``Deferred``) is not inspected."""
    if not isinstance(value, np.ndarray) or not value.size:
        return None
    if rounded:
        with np.errstate(over="ignore"):
            exact = np.array_equal(value.astype(np.float16).astype(np.float32), value, equal_nan=True)
        if not exact:
            return INEXACT_INTEGER_ARITHMETIC
    if not check_range or (np.min(value) > -F16_OVERFLOW and np.max(value) < F16_OVERFLOW):  # False with NaN, inf
        return None
    finite = np.abs(value[np.isfinite(value)])  # the rare case: look at the finite values alone
    return BEYOND_F16 if finite.size and np.max(finite) >= F16_OVERFLOW else None


def any_clamped(reports: list[object]) -> bool:
    """Whether :func:`encode_f16` clamped a value in any of the blocks it ``reports`` on."""
    return any(cast("tuple[int, int]", report)[0] for report in reports)


def should_compress(node: Node, keep: set[int]) -> bool:
    """True for an f32 Const feeding only float data (not in ``keep``, see :func:`shape_constants`,
    nor asking to keep its precision)."""
    const = node.op
    assert isinstance(const, Const)
    value = const.stored  # a DeferredConst stays uncomputed
    if value.dtype != np.float32 or node.id in keep or const.keep_precision:
        return False
    users = node.out_port(0).get_destinations()
    # a constant that is itself a model output, or only measured by ShapeOf, keeps its type
    return bool(users) and all(port.node.type not in ("ShapeOf", "Result") for port in users)


#: Values encoded per pass (its work rows, 14 bytes a value, stay in the L3 cache). A pass
#: makes a dozen NumPy calls: fewer, longer ones keep the Python work (~10 us a pass) and
#: the GIL hand-overs between the writer's two encoder threads a small share. Measured:
#: two threads ran 32K-value passes no faster than one thread did, 128K ones ~1.4x faster.
CHUNK = 1 << 17

# f32 bit patterns (sign dropped) where the f16 result changes kind.
_TINIEST = 0x3300_0000  # 2**-25: up to here the f16 is zero (the tie goes to the even 0)
_OVERFLOW = 0x477F_F000  # 65520: from here on the f16 is infinite
_INFINITY = 0x7F80_0000
#: Biased f32 exponent of 2**-14, the smallest normal f16 (its step, 2**-24, is the subnormals' too).
_LOWEST = 113
#: Padding of the staging rows for a strided ``out`` (64 bytes), and the row length from which they get it.
_PAD = 32
_PADDED_FROM = 256


def _constant(value: int) -> np.ndarray:
    """A read-only u32 0-d array: NumPy takes it as an operand faster than a Python int."""
    array = np.array(value, np.uint32)
    array.flags.writeable = False
    return array


_ONE = _constant(1)
_MAGNITUDE = _constant(0x7FFF_FFFF)
_EXPONENT_SHIFT = _constant(23)
_SIGN_SHIFT = _constant(16)
_F16_SIGN = _constant(0x8000)
#: The adder for biased exponent e (see :func:`_encode_piece`) has exponent field e + 13 and
#: mantissa field (e - 113) << 10: it is e * _ADDER_SCALE + _ADDER_OFFSET.
_ADDER_SCALE = _constant((1 << 23) + (1 << 10))
_ADDER_OFFSET = _constant((13 << 23) - (113 << 10))


def encode_f16(source: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """Round the f32 ``source`` (any layout) to f16 into the flat buffer ``out``, bit for bit
    as NumPy's cast does, except that finite values beyond the f16 range are clamped to
    +-65504. Returns (values clamped, non-zero values that became zero).

    NumPy's cast converts one value at a time (~3 ns each); this rounds :data:`CHUNK`
    values at a time with a few vector passes over their bit patterns (see
    :func:`_encode_piece`), which also yield the counts.
    """
    if source.dtype != np.float32:
        raise TypeError(f"f16 compression takes f32 values, not {source.dtype}")
    rows = _Rows.allocate(min(CHUNK, source.size))  # per call: two threads encode at once
    clamped = zeroed = 0
    # lanes of 65520 and beyond compute garbage (may overflow) that _clamp_beyond replaces
    with np.errstate(over="ignore", invalid="ignore"):
        for piece, result in _pieces(source, out.view(np.uint16)):
            more_clamped, more_zeroed = _encode_piece(piece.view(np.uint32), result, rows)
            clamped += more_clamped
            zeroed += more_zeroed
    return clamped, zeroed


@dataclass(frozen=True, slots=True)
class _Rows:
    """Work rows of one :func:`encode_f16` call, :data:`CHUNK` values each."""

    magnitude: np.ndarray
    work: np.ndarray
    #: _LOWEST in every lane: NumPy's maximum is vectorised against an array, several times
    #: slower against a scalar (and np.clip's Python wrapper costs more than the pass)
    floor: np.ndarray
    #: f16 results on their way to a strided ``out``, in rows padded by _PAD (see staging)
    half: np.ndarray

    @classmethod
    def allocate(cls, size: int) -> _Rows:
        return cls(np.empty(size, np.uint32), np.empty(size, np.uint32), np.full(size, _LOWEST, np.uint32),
                   np.empty(size + _PAD * (size // _PADDED_FROM), np.uint16))

    def shaped(self, shape: tuple[int, ...], size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The word rows' heads as contiguous arrays of ``shape`` (``size`` values)."""
        rows = (self.magnitude[:size], self.work[:size], self.floor[:size])
        magnitude, work, floor = rows if len(shape) == 1 else (row.reshape(shape) for row in rows)
        return magnitude, work, floor

    def staging(self, shape: tuple[int, ...], size: int) -> np.ndarray:
        """The half row's head as an array of ``shape``: a strided copy into ``out`` reads it
        across its rows, so rows of _PADDED_FROM values or more are padded (a power-of-two
        row length would put a column of them in a few cache sets, each read a miss)."""
        row = shape[-1]
        if row < _PADDED_FROM:
            return self.half[:size].reshape(shape)
        padded = self.half[: size // row * (row + _PAD)].reshape(*shape[:-1], row + _PAD)
        return padded[..., :row]


def _pieces(source: np.ndarray, out: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(source piece, out piece) views of at most :data:`CHUNK` values covering ``source``
    and the flat ``out`` in C order. A non-contiguous source is walked in its own memory
    order: a transposed weight is read along its rows and the f16 results go out strided
    (scattering 2-byte values costs less than gathering 4-byte ones)."""
    if source.flags.c_contiguous:
        flat = source.reshape(-1)
        for start in range(0, flat.size, CHUNK):
            yield flat[start : start + CHUNK], out[start : start + CHUNK]
        return
    order = np.argsort([-abs(stride) for stride in source.strides], kind="stable")
    yield from _slabs(source.transpose(order), out.reshape(source.shape).transpose(order))


def _slabs(source: np.ndarray, out: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``source`` and ``out`` (same shape) cut into runs of whole rows along the first axes."""
    if source.size <= CHUNK:
        if source.size:
            yield source, out
        return
    row = source.size // source.shape[0]
    if row > CHUNK:
        for index in range(source.shape[0]):
            yield from _slabs(source[index], out[index])
        return
    step = CHUNK // row
    for start in range(0, source.shape[0], step):
        yield source[start : start + step], out[start : start + step]


def _encode_piece(bits: np.ndarray, out: np.ndarray, rows: _Rows) -> tuple[int, int]:
    """f16 bits of the f32 ``bits`` into ``out`` (same shape, any strides); returns
    (values clamped, non-zero values that became zero).

    For a magnitude x of biased exponent e (raised to 113 below the normal f16 range, where
    the f16 step stays 2**-24), the f32 adder C has exponent field e + 13 and mantissa field
    (e - 113) << 10. As x < 2**(e - 126), x + C stays in C's binade, whose step 2**(e - 137)
    is x's f16 step, and C is a multiple of it: the FPU rounds the sum to C + k steps, k
    being x in steps rounded to nearest, ties to even (C's mantissa field is even). The
    sum's bits are C's plus k, so its low 16 bits are (e - 113) << 10 plus k: the f16
    exponent and mantissa fields, a carry into the next binade (k = 2**11), subnormals
    (e = 113) and 65520 -> 0x7C00 (infinity) included. Lanes of 65520 and beyond are
    redone by :func:`_clamp_beyond`.
    """
    magnitude, work, floor = rows.shaped(bits.shape, bits.size)
    np.bitwise_and(bits, _MAGNITUDE, out=magnitude)
    beyond = np.maximum.reduce(magnitude, axis=None) >= _OVERFLOW
    np.subtract(magnitude, _ONE, out=work)  # a zero wraps around: only non-zero values can look tiny
    zeroed = _count_zeroed(magnitude) if np.minimum.reduce(work, axis=None) < _TINIEST else 0
    np.right_shift(magnitude, _EXPONENT_SHIFT, out=work)
    np.maximum(work, floor, out=work)
    np.multiply(work, _ADDER_SCALE, out=work)
    np.add(work, _ADDER_OFFSET, out=work)
    np.add(magnitude.view(np.float32), work.view(np.float32), out=work.view(np.float32))
    sign = magnitude  # free from here on
    np.right_shift(bits, _SIGN_SHIFT, out=sign)
    np.bitwise_and(sign, _F16_SIGN, out=sign)
    np.bitwise_or(work, sign, out=work)
    if out.flags.c_contiguous:
        np.copyto(out, work, casting="unsafe")  # keeps the low 16 bits
    else:  # narrowed first, the strided copy moves half the bytes
        half = rows.staging(bits.shape, bits.size)
        np.copyto(half, work, casting="unsafe")
        np.copyto(out, half)
    return (_clamp_beyond(bits, out) if beyond else 0), zeroed


def _count_zeroed(magnitude: np.ndarray) -> int:
    """Non-zero values that round to zero (2**-25 and below)."""
    return int(np.count_nonzero(magnitude <= _TINIEST)) - int(np.count_nonzero(magnitude == 0))


def _clamp_beyond(bits: np.ndarray, out: np.ndarray) -> int:
    """Redo the lanes of 65520 and beyond (infinities and NaNs too): a finite value becomes
    +-65504 (the count returned), an infinity stays one, a NaN stays a NaN of its sign."""
    magnitude = bits & 0x7FFF_FFFF
    lanes = magnitude >= _OVERFLOW
    beyond = magnitude[lanes]
    finite = beyond < _INFINITY
    kind = np.where(finite, 0x7BFF, np.where(beyond == _INFINITY, 0x7C00, 0x7E00))
    out[lanes] = kind | (bits[lanes] >> 16) & 0x8000
    return int(np.count_nonzero(finite))


F16 = Encoding("f16", np.dtype(np.float16), encode_f16)
