"""What every fusion shares: the switches, the frozen-node predicate, constant helpers."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from irconv import (
    Graph,
    Node,
    OutPort,
    Pat,
    PatternRewrite,
    Transform,
    TransformContext,
    any_,
    const,
    narrow_float,
    op,
)
from irconv_opset import Multiply, Power
from irconv_opset.ops.elementwise import BinaryElementwise
from irconv_opset.ops.reduction import Reduction

from irconv_transforms.options import DISABLE_FUSING

#: Fusions run after the layout plugin put the graph in channels-first form.
AFTER_LAYOUT = ("layout.transpose_to_reshape", "layout.hoist_transposes", "layout.sink_transposes")
#: Pattern fusions of activations and normalisations: they run before linear fusing, which
#: would otherwise re-associate the constants their patterns look for.
PATTERN_FUSIONS = (
    "fuse.clamp",
    "fuse.gelu_erf",
    "fuse.gelu_tanh",
    "fuse.hsigmoid",
    "fuse.hswish",
    "fuse.leaky_relu",
    "fuse.mish",
    "fuse.mvn",
    "fuse.normalize_l2",
    "fuse.scaled_dot_product_attention",
    "fuse.softplus",
    "fuse.swish",
)
#: Every fusion of this plugin: the pattern fusions and those that walk the graph.
FUSIONS = (
    *PATTERN_FUSIONS,
    "fuse.decompose_batch_norm",
    "fuse.flatten_reshape",
    "fuse.grouped_convolution",
    "fuse.linear_backward",
    "fuse.linear_forward",
    "fuse.merge_linear_chains",
    "fuse.negative_into_subtract",
    "fuse.pad",
    "fuse.reshape_chain",
    "fuse.resnet_stride",
    "fuse.transpose_matmul_weights",
    "fuse.transpose_through_reshapes",
)
#: Fusions that run after ``fold.symbolic_shapes`` and the LLM plugin's attention fusion,
#: whose patterns need the ops these remove (a Transpose as ``K^T``).
LATE_FUSIONS = ("fuse.transpose_into_matmul",)


def fusing_enabled(ctx: TransformContext) -> bool:
    return not ctx.options.get(DISABLE_FUSING)


class Fusion(PatternRewrite):
    """A pattern fusion: off under ``--disable-fusing``, never touching frozen nodes."""

    run_after: ClassVar[tuple[str, ...]] = AFTER_LAYOUT

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return fusing_enabled(ctx)


class HandFusion(Transform):
    """A fusion that walks the graph itself; it must ask ``ctx.is_frozen`` per node."""

    run_after: ClassVar[tuple[str, ...]] = AFTER_LAYOUT

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return fusing_enabled(ctx)


# ----------------------------------------------------------------------------- constants
def is_float(value: np.ndarray | None) -> bool:
    return value is not None and value.dtype.kind == "f"


def float_const(bind: str | None = None) -> Pat:
    """A floating-point constant."""
    return const(bind, where=lambda n: is_float(n.out_port(0).constant(shape_derived=False)))


def number_const(bind: str | None = None) -> Pat:
    """A floating-point or integer constant (``clamp`` of positions and bucket indices is integer)."""

    def numeric(node: Node) -> bool:
        value = node.out_port(0).constant(shape_derived=False)
        return value is not None and value.dtype.kind in "fiu"

    return const(bind, where=numeric)


def scalar(value: float, rtol: float = 1e-4, atol: float = 1e-6) -> Pat:
    """A floating constant whose every element is ``value``."""

    def close(node: Node) -> bool:
        data = node.out_port(0).constant(shape_derived=False)
        return (
            data is not None
            and bool(data.size)
            and data.dtype.kind == "f"
            and bool(np.allclose(data, value, rtol=rtol, atol=atol))
        )

    return const(where=close)


def uniform(value: np.ndarray | None) -> float | None:
    """The single value of a constant whose elements are all equal, else None (also for
    no constant: ``uniform(match.constant(name))``)."""
    if value is None or value.size == 0:
        return None
    flat = narrow_float.widen(value).reshape(-1)
    first = flat[0]
    return float(first) if bool(np.all(flat == first)) else None


def channel_vector(value: np.ndarray, shape: tuple[int | None, ...], axis: int) -> np.ndarray | None:
    """A constant broadcast against a tensor of ``shape`` as a vector along ``axis`` (its
    length is the channel count, or 1), or None when it varies along any other axis or
    would change the tensor's shape by broadcasting."""
    rank = len(shape)
    if value.ndim > rank:
        return None
    full = value.reshape((1,) * (rank - value.ndim) + value.shape)
    channels = shape[axis]
    for i, (v, d) in enumerate(zip(full.shape, shape, strict=True)):
        if v == 1:
            continue
        if i != axis or d is None or v != d:
            return None
    vector = full.reshape(-1) if full.size > 1 else full.reshape(1)
    if vector.size == 1 and channels is not None:
        vector = np.repeat(vector, channels)
    return vector


def numpy_broadcast(node: Node) -> bool:
    """A binary elementwise op broadcasting NumPy-style (not ``pdpd``)."""
    return isinstance(node.op, BinaryElementwise) and node.op.auto_broadcast == "numpy"


def keeps_shape(value: np.ndarray, port: OutPort) -> bool:
    """A single-valued constant that, broadcast against ``port``'s tensor, leaves its shape."""
    shape = port.data.shape
    return value.size == 1 and shape is not None and value.ndim <= len(shape)


def square_of(bind: str) -> tuple[Pat, ...]:
    """``x^2`` as exporters write it: Power(x, 2) or x * x (x bound to ``bind``)."""
    x = any_(bind)
    return (op(Power, x, scalar(2.0), single_use=True), op(Multiply, x, x, single_use=True))


def kept_reduction(node: Node) -> bool:
    """A reduction that keeps the reduced axes (so its result broadcasts back)."""
    return isinstance(node.op, Reduction) and node.op.keep_dims
