"""Stride > 1 of 1x1 convolutions moved up to the convolution computing their input."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from irconv import Graph, InPort, Node, OutPort, Rewriter, Trait, TransformContext
from irconv_opset import Convolution, GroupConvolution, MaxPool_v1

from irconv_transforms import _weights
from irconv_transforms._fusion import HandFusion
from irconv_transforms.options import DISABLE_RESNET_OPTIMIZATION


@dataclass(frozen=True)
class _Stride:
    """Multiply the strides of this convolution."""

    node: Node


@dataclass(frozen=True)
class _Pool:
    """Subsample ``port`` with a 1x1 MaxPool for these readers."""

    port: OutPort
    readers: list[InPort]


Plan = list[_Stride | _Pool]


class _NoGain(Exception):
    """The stride cannot be moved (or moving it would not save work)."""


class OptimizeResnetStrides(HandFusion):
    """A 1x1 convolution with stride s computes only every s-th position of its input: when
    every reader of that input is such a convolution, the stride moves up to the convolution
    that computes the input (through elementwise ops), which then computes s^2 times fewer
    outputs, and the 1x1 convolutions get stride 1. A convolution's output at stride s is its
    stride-1 output sampled every s positions (same pads, output size ceil(n / s)). Where an
    elementwise op's other input cannot take the stride (an identity shortcut also read
    elsewhere), a 1x1 MaxPool with stride s subsamples it. Switch: ``--disable-resnet-optimization``.
    """

    id = "fuse.resnet_stride"
    run_after = (*HandFusion.run_after, "fuse.linear_forward", "fuse.pad")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return super().condition(graph, ctx) and not ctx.options.get(DISABLE_RESNET_OPTIMIZATION)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        frozen = ctx.is_frozen
        rw = Rewriter(graph)
        for conv in graph.by_type(Convolution.type):
            if conv not in graph:
                continue
            stride = _pointwise_stride(conv)
            source = conv.in_port(0).get_source()
            if stride is None or source is None or frozen(conv):
                continue
            readers = source.get_destinations()
            if any(r.idx != 0 or _pointwise_stride(r.node) != stride or frozen(r.node) for r in readers):
                continue
            plan: Plan = []
            try:
                _plan(source, stride, readers, plan, frozen, set(), top=True)
            except _NoGain:
                continue
            if not any(isinstance(item, _Stride) for item in plan):
                continue
            _carry_out(rw, plan, stride)
            for reader in readers:
                op = reader.node.op
                assert isinstance(op, Convolution)  # _pointwise_stride accepted it
                rw.replace_op(reader.node, dataclasses.replace(op, strides=(1,) * len(stride)))
        return rw.modified


def _pointwise_stride(node: Node) -> tuple[int, ...] | None:
    """The strides of a 1x1 convolution without padding striding more than 1, else None."""
    if not isinstance(node.op, Convolution):
        return None
    w = _weights.stored_weights(node)  # only its shape is read
    strides = tuple(int(s) for s in node.op.strides)
    if w is None or any(k != 1 for k in w.shape[2:]) or not _weights.zero_padding(node):
        return None
    if len(strides) != w.ndim - 2 or all(s == 1 for s in strides):
        return None
    return strides


def _strideable(node: Node) -> bool:
    op = node.op
    return isinstance(op, (Convolution, GroupConvolution)) and op.auto_pad in ("explicit", "valid")


def _plan(
    port: OutPort,
    stride: tuple[int, ...],
    wanting: list[InPort],
    plan: Plan,
    frozen: Callable[[Node], bool],
    seen: set[int],
    *,
    top: bool,
) -> None:
    """Make the tensor at ``port`` strided for the ``wanting`` readers (appends edits to ``plan``)."""
    node = port.node
    if node.id in seen:
        raise _NoGain
    seen.add(node.id)
    shape = port.data.shape
    own = (
        {(d.node.id, d.idx) for d in port.get_destinations()} == {(w.node.id, w.idx) for w in wanting}
        and node.num_outputs() == 1
        and not frozen(node)
        and shape is not None
        and len(shape) == len(stride) + 2
    )
    if shape is None or not own:
        if top:
            raise _NoGain
        plan.append(_Pool(port, wanting))
        return
    if _strideable(node):
        plan.append(_Stride(node))
        return
    if node.op.has(Trait.ELEMENTWISE):
        for idx, source in enumerate(p.get_source() for p in node.in_ports()):
            if source is None:
                raise _NoGain
            value = source.constant(shape_derived=False)
            if value is not None:
                # A constant operand must not vary along space (NumPy aligns the trailing axes).
                if value.ndim > len(shape) or any(d != 1 for d in value.shape[-len(stride) :]):
                    raise _NoGain
                continue
            if source.data.shape != shape:
                raise _NoGain  # broadcasting along space: a strided operand would not line up
            _plan(source, stride, [node.in_port(idx)], plan, frozen, seen, top=False)
        return
    if top:
        raise _NoGain
    plan.append(_Pool(port, wanting))


def _carry_out(rw: Rewriter, plan: Plan, stride: tuple[int, ...]) -> None:
    rank = len(stride)
    for item in plan:
        if isinstance(item, _Pool):
            pool = MaxPool_v1(
                strides=stride,
                pads_begin=(0,) * rank,
                pads_end=(0,) * rank,
                kernel=(1,) * rank,
                rounding_type="floor",
                auto_pad="explicit",
            )
            pooled = rw.op(pool, item.port, like=item.port.node)
            for reader in item.readers:
                rw.set_input(reader, pooled)
    for item in plan:
        if isinstance(item, _Stride):
            op = item.node.op
            assert isinstance(op, (Convolution, GroupConvolution))  # _strideable accepted it
            strides = tuple(int(a) * b for a, b in zip(op.strides, stride, strict=True))
            rw.replace_op(item.node, dataclasses.replace(op, strides=strides))
