"""Scalar float constants in the attention patterns: matching one, and reading it."""

from __future__ import annotations

import numpy as np
from irconv import Node, OutPort, Pat, const


def scalar_const(bind: str) -> Pat:
    """A float constant of one value, bound as ``bind``."""

    def is_scalar(node: Node) -> bool:
        value = node.out_port(0).constant(shape_derived=False)
        return value is not None and value.dtype.kind == "f" and value.size == 1

    return const(bind, where=is_scalar)


def scalar_value(port: OutPort) -> float:
    """The one value of a constant ``scalar_const`` matched."""
    value = port.constant(shape_derived=False)
    assert value is not None
    return float(np.asarray(value).reshape(-1)[0])
