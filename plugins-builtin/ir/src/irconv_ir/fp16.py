"""FP16 compression of f32 constants: f16 bytes in the ``.bin``, a decompression Convert in the IR.

Compute stays f32: the runtime sees ``Const(f16) -> Convert(f32)`` marked with the
``decompression`` runtime attribute and folds it back (or keeps weights in f16 where the
device prefers). Only floating data is compressed: constants that feed inputs where
precision decides a shape or an index stay f32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv.graph import Graph, Node

F16_MAX = float(np.finfo(np.float16).max)
#: Elements converted at a time (1 MiB of f32: stays in cache).
CHUNK = 1 << 18

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


@dataclass
class CompressionStats:
    """What compression did, for the note printed after conversion."""

    constants: int = 0
    values: int = 0
    overflow: int = 0
    underflow: int = 0

    def message(self) -> str | None:
        if not self.constants:
            return None
        text = f"compressed {self.constants} f32 constant(s) ({self.values} values) to f16"
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
    keep: set[int] = set()
    seen: set[int] = set()
    stack = []
    for type_name, ports in PRECISION_SENSITIVE_INPUTS.items():
        for node in graph.by_type(type_name):
            for port in node.in_ports():
                source = port.get_source()
                if port.idx in ports and source is not None:
                    stack.append(source.node)
    while stack:
        node = stack.pop()
        if node.id in seen or node.type in ("ShapeOf", "Parameter"):
            continue
        seen.add(node.id)
        if node.type == "Const":
            keep.add(node.id)
            continue
        stack.extend(source.node for port in node.in_ports() if (source := port.get_source()) is not None)
    return keep


def should_compress(node: Node, keep: set[int]) -> bool:
    """True for an f32 Const feeding only float data (not in ``keep``, see :func:`shape_constants`)."""
    value = node.op.value  # type: ignore[attr-defined]
    if value.dtype != np.float32 or node.id in keep:
        return False
    users = node.out_port(0).get_destinations()
    # a constant that is itself a model output, or only measured by ShapeOf, keeps its type
    return bool(users) and all(port.node.type not in ("ShapeOf", "Result") for port in users)


def to_f16(value: np.ndarray, stats: CompressionStats) -> np.ndarray:
    """The f16 copy of ``value``; out-of-range values are clamped (and counted).

    Works through the tensor in cache-sized chunks with a fast path for the usual case
    (nothing out of range), so compressing costs about one pass over the weights.
    """
    flat = np.ascontiguousarray(value).reshape(-1)
    half = np.empty(flat.shape, np.float16)
    for start in range(0, flat.size, CHUNK):
        chunk = flat[start : start + CHUNK]
        out = half[start : start + CHUNK]
        with np.errstate(over="ignore"):
            np.copyto(out, chunk, casting="unsafe")
        zeros = int(np.count_nonzero((out.view(np.uint16) & 0x7FFF) == 0))  # +-0, compared as bits: fast
        if zeros:
            stats.underflow += zeros - int(np.count_nonzero(chunk == 0))
        highest, lowest = chunk.max(initial=0.0), chunk.min(initial=0.0)
        if highest <= F16_MAX and lowest >= -F16_MAX:
            continue  # the usual case; a NaN fails both tests and takes the slow path
        beyond = np.abs(chunk) > F16_MAX
        beyond &= np.isfinite(chunk)  # an infinity stays infinite, it did not overflow
        stats.overflow += int(np.count_nonzero(beyond))
        out[beyond] = np.copysign(F16_MAX, chunk[beyond])
    stats.constants += 1
    stats.values += int(flat.size)
    return half.reshape(value.shape)
