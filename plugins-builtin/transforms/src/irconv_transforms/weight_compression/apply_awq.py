"""AWQ's factors put into the graph: ``W * s`` in the weights, ``1 / s`` before them.

For each tensor read by MatMul sites with a 4-bit scheme, ``awq.channel_factors`` picks
``s`` (one job per tensor, on the thread pool); then every reading site's weight columns
are multiplied by ``s`` and the tensor is divided by ``s`` at its producer when that is
free: a Multiply by a constant (an RMSNorm/LayerNorm gamma) takes ``const / s``; a
Multiply fed by another site's MatMul (a gated MLP's up projection) takes ``1 / s`` in
that site's weight rows. Elsewhere (or when the tensor has readers other than the sites
and ShapeOf) a Multiply by ``1 / s`` is inserted before the sites.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
from irconv import Graph, Node, OutPort, Rewriter
from irconv.ops import Const

from irconv_transforms.weight_compression.awq import channel_factors
from irconv_transforms.weight_compression.parallel import run_in_order
from irconv_transforms.weight_compression.quantize import Scheme, as_f32
from irconv_transforms.weight_compression.statistics import InputStatistics
from irconv_transforms.weight_compression.weight_sites import WeightSite, data_input


@dataclass(frozen=True)
class AwqResult:
    """The statistics of each site's input after the scaling (by consumer node id), and how
    many tensors were scaled, by where their ``1 / s`` went."""

    stats: dict[int, InputStatistics]
    placed: Counter[str]


def apply_awq(
    graph: Graph,
    sites: list[WeightSite],
    schemes: dict[int, Scheme],
    stats: dict[int, InputStatistics],
    scale_dtype: np.dtype | type,
    threads: int,
    refine: bool,
) -> AwqResult:
    """Scale the inputs of the 4-bit MatMul sites (``schemes`` and ``stats`` by consumer
    node id; ``refine``: the final pass refits 4-bit scales); returns the statistics as
    they are after the scaling."""
    groups: dict[OutPort, list[WeightSite]] = {}
    for site in sites:
        if not site.embedding and site.consumer.id in stats:
            groups.setdefault(data_input(site), []).append(site)
    chosen = {port: group for port, group in groups.items() if any(schemes[s.consumer.id].bits == 4 for s in group)}
    jobs = [
        partial(
            channel_factors,
            [as_f32(site.value) for site in group],
            [schemes[site.consumer.id] for site in group],
            stats[group[0].consumer.id],
            scale_dtype,
            refine,
        )
        for group in chosen.values()
    ]
    factors = list(run_in_order(jobs, threads))
    updated = dict(stats)
    placed: Counter[str] = Counter()
    producers = {site.consumer.id: site for site in sites if not site.embedding}
    rw = Rewriter(graph)
    with rw.batch():
        for (port, group), factor in zip(chosen.items(), factors, strict=True):
            if factor is None:
                continue
            placed[_divide_input(rw, port, group, factor, producers)] += 1
            for site in group:
                _scale_weights(rw, site, factor, axis=1)
                updated[site.consumer.id] = stats[site.consumer.id].divided(factor)
    return AwqResult(updated, placed)


def _divide_input(
    rw: Rewriter, port: OutPort, group: list[WeightSite], factor: np.ndarray, producers: dict[int, WeightSite]
) -> str:
    """Divide the tensor at ``port``, as the sites of ``group`` read it, by ``factor``;
    returns where the division went."""
    from irconv_opset import Multiply, ShapeOf_v1

    readers = {(site.consumer.id, 1 - site.port) for site in group}
    # a ShapeOf reads the shape alone, which the division leaves as it is
    others = [d for d in port.get_destinations() if (d.node.id, d.idx) not in readers]
    only_group = all(isinstance(d.node.op, ShapeOf_v1) for d in others)
    node = port.node
    if only_group and isinstance(node.op, Multiply):
        for idx in (0, 1):
            source = node.in_port(idx).get_source()
            constant = source.node.op if source is not None else None
            if isinstance(constant, Const) and source is not None and _per_channel_constant(source.node, factor.size):
                value = constant.value
                divided = (value.astype(np.float32) / factor).astype(value.dtype)
                rw.set_input(node.in_port(idx), rw.const(divided, name=f"{source.node.name}/awq"))
                return "a constant Multiply"
        for idx in (0, 1):
            source = node.in_port(idx).get_source()
            site = producers.get(source.node.id) if source is not None else None
            if site is not None and source is not None and len(source.get_destinations()) == 1:
                _scale_weights(rw, site, np.float32(1) / factor, axis=0)
                return "a MatMul's weight rows"
    dtype = port.data.element_type.numpy
    divisor = rw.const((np.float32(1) / factor).astype(dtype), name=f"{node.name}/awq_scale")
    divided_port = rw.op(Multiply(), port, divisor, name=f"{node.name}/awq")
    for site in group:
        rw.set_input(site.consumer.in_port(1 - site.port), divided_port)
    return "an inserted Multiply"


def _per_channel_constant(node: Node, channels: int) -> bool:
    """A float constant that broadcasts along the last axis only (a norm's gamma, a scalar)."""
    if not isinstance(node.op, Const) or not node.out_port(0).data.element_type.is_float:
        return False
    shape = np.shape(node.op.value)
    return not shape or (shape[-1] in (1, channels) and int(np.prod(shape[:-1])) == 1)


def _scale_weights(rw: Rewriter, site: WeightSite, factor: np.ndarray, axis: int) -> None:
    """Multiply ``site``'s current matrix ``[rows, cols]`` by ``factor`` along ``axis``
    (1: input channels, 0: output channels), in a new constant (the old one may be shared)."""
    source = site.consumer.in_port(site.port).get_source()
    assert source is not None
    current = replace(site, weight=source.node)
    dtype = source.data.element_type.numpy
    matrix = as_f32(current.value) * (factor[None, :] if axis == 1 else factor[:, None])
    stored = matrix if site.rows_first else matrix.T
    rw.set_input(site.consumer.in_port(site.port), rw.const(stored.astype(dtype), name=f"{source.node.name}/awq"))
