"""The catalog of every op this plugin declares, built from the family modules' ``OPS``.

An op type may have several versions (SoftMax-1, SoftMax-8): each version is valid from
its own opset until the opset that introduced the next version.
"""

from __future__ import annotations

from irconv.ops import Const, Op, Parameter, Result
from irconv.plugins import NEWEST

from irconv_opset.ops import (
    control_flow,
    convolution,
    detection,
    elementwise,
    generation,
    image,
    indexing,
    linear,
    matrix,
    normalization,
    patches,
    pooling,
    promote,
    rearrange,
    reduction,
    segment,
    sequence,
    shape,
    signal,
    state,
    unary,
)

FAMILIES = (
    elementwise,
    unary,
    reduction,
    normalization,
    shape,
    promote,
    rearrange,
    indexing,
    segment,
    generation,
    signal,
    patches,
    matrix,
    linear,
    convolution,
    pooling,
    image,
    detection,
    sequence,
    control_flow,
    state,
)

#: The newest opset the OpenVINO runtime accepts that this catalog targets.
NEWEST_OPSET = 17


def all_ops() -> tuple[type[Op], ...]:
    """Every op class, the structural ones first."""
    ops: list[type[Op]] = [Parameter, Const, Result]
    for family in FAMILIES:
        ops.extend(family.OPS)
    return tuple(ops)


def opset_ranges() -> dict[type[Op], range]:
    """For each op class, the opsets in which its version is the current one."""
    versions: dict[str, list[type[Op]]] = {}
    for op in all_ops():
        versions.setdefault(op.type, []).append(op)
    ranges: dict[type[Op], range] = {}
    for group in versions.values():
        group.sort(key=lambda cls: cls.version)
        for i, cls in enumerate(group):
            last = group[i + 1].version - 1 if i + 1 < len(group) else NEWEST
            ranges[cls] = range(cls.version, last + 1)
    return ranges
