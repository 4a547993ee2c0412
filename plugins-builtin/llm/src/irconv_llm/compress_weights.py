"""--weight-format: MatMul and embedding weights stored as 8- or 4-bit integers with scales."""

from __future__ import annotations

import dataclasses

import numpy as np
from irconv import Graph, OutPort, Rewriter, Transform, TransformContext
from irconv.ops import DeferredConst
from irconv.ops.deferred import HeldValue
from irconv.types import ElementType
from irconv_ir.blobs import release_mapped_pages

from irconv_llm.group_fallback import note_group_fallback
from irconv_llm.options import ALL_LAYERS, GROUP_SIZE, RATIO, WEIGHT_FORMAT
from irconv_llm.quantize import DeferredQuantized, Quantization, Scheme, levels_as, mapped_base, quantization
from irconv_llm.weight_sites import WeightSite, last_projection, weight_sites

#: The scheme of layers kept out of 4 bits (embedding, last projection, the ``--ratio`` rest).
BACKUP = Scheme(8, symmetric=False)


def primary_scheme(weight_format: str, group: int) -> Scheme:
    bits = 4 if weight_format.startswith("int4") else 8
    return Scheme(bits, symmetric=weight_format.endswith("-sym"), group=group if bits == 4 else -1)


class CompressWeights(Transform):
    """MatMul(x, W) -> MatMul(x, Reshape(Multiply(Subtract(Convert(Q), Convert(Z)), S)));
    the same before an embedding's Gather.

    Q holds the quantized weights (u8/i8/u4/i4) shaped ``[rows, groups, group]`` (the
    Reshape restores ``[rows, cols]``; no groups: ``[rows, cols]`` and no Reshape), Z the
    zero points of asymmetric schemes (no Subtract otherwise), S the scales. This is the
    form OpenVINO's CPU plugin executes directly as a compressed fully connected layer or
    gather. A MatMul reading ``[input, output]`` weights gets them transposed and
    ``transpose_b``. With a 4-bit format the embedding and the last projection stay int8
    (``--all-layers`` puts them in 4 bits too); ``--ratio`` below 1 fills the 4-bit share
    of the candidates' weights up to ``ratio`` with the layers int8 represents worst (the
    largest mean squared int8 error of an output channel, NNCF's data-free criterion); the
    others stay int8.
    """

    id = "llm.compress_weights"
    run_after = ("llm.make_stateful",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return ctx.options.get(WEIGHT_FORMAT) is not None

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        weight_format = ctx.options.get(WEIGHT_FORMAT)
        assert weight_format is not None  # condition()
        primary = primary_scheme(weight_format, ctx.options.get(GROUP_SIZE))
        sites = weight_sites(graph)
        if not sites:
            ctx.note("--weight-format: the model has no MatMul or embedding with constant weights; nothing compressed")
            return False
        plan = self._plan(sites, primary, ctx)
        rw = Rewriter(graph)
        with rw.batch():
            for site, params in plan:
                _compress(rw, site, params)
        counts: dict[str, int] = {}
        for _, params in plan:
            counts[params.scheme.describe()] = counts.get(params.scheme.describe(), 0) + 1
        ctx.note("compressed weights: " + ", ".join(f"{n} layer(s) {kind}" for kind, n in sorted(counts.items())))
        note_group_fallback(plan, ctx)
        return True

    def _plan(
        self, sites: list[WeightSite], primary: Scheme, ctx: TransformContext
    ) -> list[tuple[WeightSite, Quantization]]:
        """Each site with its quantization: 8-bit formats put every site in ``primary``; 4-bit
        ones choose per site between ``primary`` and ``BACKUP``."""
        # f32 scales are written as f16 when float constants are compressed: levels fit those
        compressed = ctx.options.compress_to_fp16

        def quantize(site: WeightSite, scheme: Scheme) -> Quantization:
            return _quantize(site, scheme, compressed)

        if primary.bits == 8:
            return [(site, quantize(site, primary)) for site in sites]
        last = last_projection(sites)
        kept = set() if ctx.options.get(ALL_LAYERS) else {id(s) for s in sites if s.embedding or s is last}
        ratio = ctx.options.get(RATIO)
        candidates = [site for site in sites if id(site) not in kept]
        eight_bit: dict[int, Quantization] = {}
        if ratio < 1.0:
            eight_bit = {id(site): quantize(site, BACKUP) for site in candidates}
            candidates = _four_bit_share(candidates, eight_bit, ratio)
        four_bit = {id(site): quantize(site, primary) for site in candidates}
        return [(site, four_bit.get(id(site)) or eight_bit.get(id(site)) or quantize(site, BACKUP)) for site in sites]


def _quantize(site: WeightSite, scheme: Scheme, fp16_compressed: bool) -> Quantization:
    """``site``'s scales, fit to the precision they are stored in."""
    float_type = site.weight.out_port(0).data.element_type
    stored_f16 = fp16_compressed and float_type is ElementType.f32
    weights = site.value
    params = quantization(weights, scheme, np.float16 if stored_f16 else float_type.numpy)
    release_mapped_pages(mapped_base(weights))  # read again block by block when written
    return params


def _four_bit_share(candidates: list[WeightSite], eight_bit: dict[int, Quantization], ratio: float) -> list[WeightSite]:
    """Candidates for 4 bits, up to ``ratio`` of the weights: those int8 represents worst first.

    The sensitivity is NNCF's data-free one: a layer whose int8 error is small (the largest
    mean squared error of an output channel) is the one int8 keeps accurate, so it is the one
    that stays int8; layers int8 represents poorly lose less by going to 4 bits. A layer
    that would overflow the share is skipped, a smaller one may still fit."""
    budget = ratio * sum(site.parameters for site in candidates)
    chosen: list[WeightSite] = []
    held = 0
    for site in sorted(candidates, key=lambda site: -eight_bit[id(site)].worst_row_error):
        if held + site.parameters <= budget:
            chosen.append(site)
            held += site.parameters
    return chosen


def _compress(rw: Rewriter, site: WeightSite, params: Quantization) -> None:
    from irconv_opset import Convert, Multiply, Reshape, Subtract

    weights = site.value
    rows, cols = weights.shape
    element_type = site.weight.out_port(0).data.element_type
    name = site.weight.name
    like = site.weight
    levels = rw.op(DeferredConst(pending=DeferredQuantized(weights, params)), name=f"{name}/quantized")  # type: ignore[arg-type]
    restored = rw.op(Convert(destination_type=element_type), levels, name=f"{name}/to_float")
    grouped = params.groups > 1  # else one scale per row: [rows, 1], like the weights' rank
    if params.zero_point is not None:
        zero_point = params.zero_point if grouped else params.zero_point[:, :, 0]
        zero = HeldValue(levels_as(zero_point, params.scheme.element_type))
        zero_port = rw.op(DeferredConst(pending=zero), name=f"{name}/zero_point")  # type: ignore[arg-type]
        zero_float = rw.op(Convert(destination_type=element_type), zero_port, name=f"{name}/zero_point/to_float")
        restored = rw.op(Subtract(), restored, zero_float, name=f"{name}/shifted")
    scale = params.scale if grouped else params.scale[:, :, 0]
    scale_port = rw.const(scale.astype(element_type.numpy), name=f"{name}/scale")
    restored = rw.op(Multiply(), restored, scale_port, name=f"{name}/scaled")
    if grouped:
        shape = rw.const(np.array([rows, cols], np.int64), like=like)
        restored = rw.op(Reshape(special_zero=False), restored, shape, name=f"{name}/ungrouped")
    _feed(rw, site, restored)


def _feed(rw: Rewriter, site: WeightSite, weights: OutPort) -> None:
    """``site``'s consumer reads ``weights`` (``[rows, cols]``), with ``transpose_b`` when
    the original matrix was ``[cols, rows]``."""
    if not site.rows_first:
        rw.replace_op(site.consumer, dataclasses.replace(site.consumer.op, transpose_b=True))  # type: ignore[type-var]
    rw.set_input(site.consumer.in_port(site.port), weights)


__all__ = ["CompressWeights"]
