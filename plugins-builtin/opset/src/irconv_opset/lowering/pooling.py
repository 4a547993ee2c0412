"""Pooling as OpenVINO builds it: max and average windows (with their rounding and whether
padding counts), Lp pooling as a power mean, and global pooling as a reduction over the
spatial axes. Front ends read their attributes into a :class:`PoolWindow` and call these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np
from irconv.errors import LoweringError, quoted
from irconv.frontend import const_like
from irconv.types import ElementType

from irconv_opset import (
    Abs,
    AvgPool,
    MaxPool,
    MaxPool_v1,
    Multiply,
    Power,
    ReduceL1,
    ReduceL2,
    ReduceMax,
    ReduceMean,
    ReduceSum,
)
from irconv_opset.lowering.convolution import Window

if TYPE_CHECKING:
    from irconv import ExtractContext
    from irconv.graph import Node, OutPort
    from irconv.ops import Op

ROUNDINGS = ("floor", "ceil", "ceil_torch")


@dataclass(frozen=True)
class PoolWindow:
    """A pool's kernel over its sliding window; ``rounding`` is how a partial last window
    counts: ``floor`` drops it, ``ceil`` keeps it, ``ceil_torch`` keeps it unless it starts
    in the end padding (PyTorch, Caffe, ONNX ceil_mode)."""

    kernel: tuple[int, ...]
    window: Window
    rounding: str = "floor"

    def __post_init__(self) -> None:
        if self.rounding not in ROUNDINGS:
            raise LoweringError(f"rounding {quoted(self.rounding)} is not one of {ROUNDINGS}")
        if len(self.kernel) != self.window.spatial:
            raise LoweringError(f"a {len(self.kernel)}-D kernel on a {self.window.spatial}-D window")

    @classmethod
    def of(
        cls,
        kernel: Sequence[int],
        strides: Sequence[int] | None = None,
        pads_begin: Sequence[int] | None = None,
        pads_end: Sequence[int] | None = None,
        *,
        auto_pad: str = "explicit",
        dilations: Sequence[int] | None = None,
        rounding: str = "floor",
    ) -> PoolWindow:
        """Strides default to ones, pads to zeros, ``pads_end`` to ``pads_begin``."""
        kernel = tuple(int(k) for k in kernel)
        window = Window.of(strides or (1,) * len(kernel), dilations, pads_begin, pads_end, auto_pad)
        return cls(kernel, window, rounding)

    @property
    def size(self) -> int:
        """Cells in one window."""
        return int(np.prod(self.kernel))

    def attributes(self) -> dict[str, object]:
        w = self.window
        return {"kernel": self.kernel, "strides": w.strides, "pads_begin": w.pads_begin, "pads_end": w.pads_end,
                "auto_pad": w.auto_pad, "rounding_type": self.rounding}


def _added(ctx: ExtractContext, suffix: str) -> Callable[[Op, list[OutPort]], Node]:
    return lambda op, inputs: ctx.add(op, inputs, suffix)


def max_pool(
    ctx: ExtractContext,
    x: OutPort,
    pool: PoolWindow,
    *,
    index_type: ElementType = ElementType.i64,
    axis: int = 0,
    values_only: bool = False,
    suffix: str = "pool",
    place: Callable[[Op, list[OutPort]], Node] | None = None,
) -> Node:
    """MaxPool-14 (values, and indices flattened from ``axis`` on, of ``index_type``), or
    MaxPool-1 when ``values_only`` (no dilations, no ``ceil_torch``)."""
    add = place or _added(ctx, suffix)
    if values_only:
        if any(d != 1 for d in pool.window.dilations) or pool.rounding == "ceil_torch":
            raise ValueError("MaxPool-1 has no dilations and no ceil_torch rounding")
        return add(MaxPool_v1(**pool.attributes()), [x])
    op = MaxPool(**pool.attributes(), dilations=pool.window.dilations, index_element_type=index_type,
                 axis=axis)
    return add(op, [x])


MAX_POOL_OPS = (MaxPool, MaxPool_v1)


def avg_pool(
    ctx: ExtractContext,
    x: OutPort,
    pool: PoolWindow,
    exclude_pad: bool,
    *,
    suffix: str = "pool",
    place: Callable[[Op, list[OutPort]], Node] | None = None,
) -> OutPort:
    """AvgPool; ``exclude_pad`` divides by the real cells of each window instead of the kernel
    size. No dilations: OpenVINO's AvgPool has none."""
    if any(d != 1 for d in pool.window.dilations):
        raise ValueError("AvgPool has no dilations")
    add = place or _added(ctx, suffix)
    return add(AvgPool(**pool.attributes(), exclude_pad=exclude_pad), [x]).out_port(0)


AVG_POOL_OPS = (AvgPool,)


def lp_pool(ctx: ExtractContext, x: OutPort, p: float, window_size: int,
            window_mean: Callable[[OutPort], OutPort]) -> OutPort:
    """(sum over each window of |x|^p)^(1/p), the sum as ``window_mean`` of |x|^p (padding
    counted) times the window's cells (no product for a ``window_mean`` that sums: size 1)."""
    powered = ctx.op(Power(), ctx.op(Abs(), x, suffix="abs"), const_like(ctx, p, x, "p"), suffix="pow")
    total = window_mean(powered)
    if window_size != 1:
        total = ctx.op(Multiply(), total, const_like(ctx, float(window_size), x, "window"), suffix="sum")
    return ctx.op(Power(), total, const_like(ctx, 1.0 / p, x, "root"))


LP_POOL_OPS = (Abs, Power, Multiply, *AVG_POOL_OPS)


class GlobalPool(Enum):
    """What a global pool reduces its spatial axes with."""

    MAX = "max"
    AVG = "avg"
    SUM = "sum"
    L1 = "l1"
    L2 = "l2"
    LP = "lp"  # any p: (sum |x|^p)^(1/p)


_REDUCTIONS = {GlobalPool.MAX: ReduceMax, GlobalPool.AVG: ReduceMean, GlobalPool.SUM: ReduceSum,
               GlobalPool.L1: ReduceL1, GlobalPool.L2: ReduceL2}


def global_pool(ctx: ExtractContext, x: OutPort, kind: GlobalPool, axes: OutPort, *, p: float = 2.0,
                keep_dims: bool = True, suffix: str | None = None) -> OutPort:
    """A pool over the whole of ``axes`` (kept as ones unless not ``keep_dims``), as a reduction."""
    if kind is GlobalPool.LP:
        powered = ctx.op(Power(), ctx.op(Abs(), x, suffix="abs"), const_like(ctx, p, x, "p"), suffix="pow")
        total = ctx.op(ReduceSum(keep_dims=keep_dims), powered, axes, suffix="sum")
        return ctx.op(Power(), total, const_like(ctx, 1.0 / p, x, "root"))
    return ctx.op(_REDUCTIONS[kind](keep_dims=keep_dims), x, axes, suffix=suffix)


GLOBAL_POOL_OPS = (ReduceMax, ReduceMean, ReduceSum, ReduceL1, ReduceL2, Abs, Power)
