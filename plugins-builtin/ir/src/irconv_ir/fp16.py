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


@dataclass
class CompressionStats:
    """What compression did, for the note printed after conversion."""

    constants: int = 0
    values: int = 0
    overflow: int = 0
    underflow: int = 0

    def count(self, values: int, reports: list[object]) -> None:
        """Adds one compressed constant of ``values`` values, given what :func:`encode_f16`
        returned for each of its blocks."""
        self.constants += 1
        self.values += values
        for report in reports:
            overflow, underflow = report  # type: ignore[misc]
            self.overflow += overflow
            self.underflow += underflow

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


def encode_f16(source: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """Cast ``source`` (any layout) into the flat f16 buffer ``out``; out-of-range values
    are clamped to +-65504. Returns (values clamped, non-zero values that became zero).

    The checks read the f16 result (cheap, contiguous) and look at the source only when
    the result shows a zero or an infinity, so compressing costs about one pass.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        np.copyto(out.reshape(source.shape), source, casting="unsafe")
    magnitude = out.view(np.uint16) & 0x7FFF  # sign dropped: compared as bits, fast
    zeros = int(np.count_nonzero(magnitude == 0))
    underflow = zeros - int(np.count_nonzero(source == 0)) if zeros else 0
    if not np.count_nonzero(magnitude == 0x7C00):
        return 0, underflow
    flat = np.ascontiguousarray(source).reshape(-1)
    beyond = np.isinf(out) & np.isfinite(flat)  # an infinity stays infinite, it did not overflow
    out[beyond] = np.copysign(F16_MAX, flat[beyond])
    return int(np.count_nonzero(beyond)), underflow


F16 = Encoding("f16", np.dtype(np.float16), encode_f16)
