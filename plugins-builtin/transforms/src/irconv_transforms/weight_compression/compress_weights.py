"""--weight-format: MatMul and embedding weights stored as 8- or 4-bit integers with scales."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from irconv import Graph, OutPort, Rewriter, Transform, TransformContext
from irconv.errors import UserError
from irconv.mapped_pages import release_mapped_pages
from irconv.ops import DeferredConst
from irconv.ops.deferred import HeldValue
from irconv.types import ElementType

from irconv_transforms.weight_compression.apply_awq import apply_awq
from irconv_transforms.weight_compression.early import EARLY_QUANTIZATIONS, EarlyQuantizations
from irconv_transforms.weight_compression.group_fallback import note_group_fallback
from irconv_transforms.weight_compression.mixed_precision import (
    activation_sensitivity,
    data_free_sensitivity,
    four_bit_share,
)
from irconv_transforms.weight_compression.options import (
    ALL_LAYERS,
    AWQ,
    GROUP_SIZE,
    NO_SCALE_ESTIMATION,
    RATIO,
    WEIGHT_FORMAT,
)
from irconv_transforms.weight_compression.parallel import run_in_order
from irconv_transforms.weight_compression.quantize import (
    BlockParams,
    DeferredQuantized,
    Quantization,
    Scheme,
    assemble,
    levels_as,
    mapped_base,
    quantization_jobs,
)
from irconv_transforms.weight_compression.range_kernel import LevelsInto, levels_into_for, offset_sums_for
from irconv_transforms.weight_compression.statistics import ACTIVATION_STATISTICS, InputStatistics
from irconv_transforms.weight_compression.weight_sites import WeightSite, data_input, last_projection, weight_sites

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

    With activation statistics in the graph's meta (``statistics.ACTIVATION_STATISTICS``:
    irconv-llm's ``--dataset`` runs a decoder on samples first), every MatMul's errors are
    weighted by its input's mean squared activation per channel: the
    range search picks by that error, 4-bit scales are refitted to it
    (``scale_estimation``), ``--ratio`` keeps in int8 the layers where 4 bits add most to
    it (``mixed_precision``), and ``--awq`` first moves per-channel scales from the
    activations into the weights (``apply_awq``). Scales are computed block by block on
    the core's ``--threads`` threads (``parallel``); the result does not depend on the count.
    """

    id = "compress.weights"
    # after the KV cache became state, and after the activation statistics were measured
    run_after = ("llm.make_stateful", "llm.activation_statistics")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        if ctx.options.get(AWQ) and graph.meta.get(ACTIVATION_STATISTICS) is None:
            raise UserError("--awq scales channels by their activations: give the samples with --dataset FILE")
        return ctx.options.get(WEIGHT_FORMAT) is not None

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        weight_format = ctx.options.get(WEIGHT_FORMAT)
        assert weight_format is not None  # condition()
        primary = primary_scheme(weight_format, ctx.options.get(GROUP_SIZE))
        sites = weight_sites(graph)
        if not sites:
            ctx.note("--weight-format: the model has no MatMul or embedding with constant weights; nothing compressed")
            return False
        threads = ctx.options.worker_threads()
        compressed = ctx.options.compress_to_fp16
        stats = _activation_statistics(graph, sites)
        schemes = _choose_schemes(sites, primary, stats, compressed, threads, ctx)
        refine = bool(stats) and not ctx.options.get(NO_SCALE_ESTIMATION)
        if stats and primary.bits == 4 and ctx.options.get(AWQ):
            awq = apply_awq(graph, sites, schemes, stats, np.float16 if compressed else np.float32, threads, refine)
            stats = awq.stats
            sites = weight_sites(graph)
            placed = ", ".join(f"{n} into {where}" for where, n in sorted(awq.placed.items())) or "none"
            ctx.note(f"--dataset: AWQ scaled the inputs of 4-bit layers: {placed}")
        requests = [_Request(site, schemes[site.consumer.id], stats.get(site.consumer.id), refine) for site in sites]
        early: EarlyQuantizations | None = graph.meta.pop(EARLY_QUANTIZATIONS, None)
        plan = list(zip(sites, quantize_sites(requests, compressed, threads, early), strict=True))
        levels_into = levels_into_for(sum(site.value.size for site in sites))
        rw = Rewriter(graph)
        with rw.batch():
            restored: dict[tuple[int, bool, int], OutPort] = {}
            for site, params in plan:
                key = (site.weight.id, site.rows_first, id(params))
                if key in restored:  # a tied embedding and head: one compressed copy read by both
                    _feed(rw, site, restored[key])
                else:
                    restored[key] = _compress(rw, site, params, levels_into)
        counts: dict[str, int] = {}
        for _, params in plan:
            counts[params.scheme.describe()] = counts.get(params.scheme.describe(), 0) + 1
        ctx.note("compressed weights: " + ", ".join(f"{n} layer(s) {kind}" for kind, n in sorted(counts.items()))
                 + ("" if early is None else f" ({early.taken} of {early.started} quantized while the model loaded)"))
        note_group_fallback(plan, ctx)
        return True


@dataclass(frozen=True)
class _Request:
    """One site to quantize under ``scheme``; with its input's ``stats``, the error is
    weighted by the activations (and 4-bit scales refitted to them with ``refine``)."""

    site: WeightSite
    scheme: Scheme
    stats: InputStatistics | None
    refine: bool


def quantize_sites(
    requests: list[_Request], compressed: bool, threads: int, early: EarlyQuantizations | None = None
) -> list[Quantization]:
    """Each request's quantization, computed block by block on ``threads`` threads (or
    taken from ``early``, where it was computed while the model loaded); a site's mapped
    pages are released once its last block is done. ``compressed``: the IR's float
    constants are written as f16 (so are the scales). Requests for the same weights read
    the same way (a tied embedding and head) share one ``Quantization``."""
    first: dict[tuple[object, ...], int] = {}
    for index, request in enumerate(requests):
        first.setdefault(_same_result(request), index)
    unique = [requests[index] for index in sorted(set(first.values()))]
    computed = dict(zip((_same_result(r) for r in unique), _quantize_with(unique, compressed, threads, early), strict=True))
    return [computed[_same_result(request)] for request in requests]


def _quantize_with(
    requests: list[_Request], compressed: bool, threads: int, early: EarlyQuantizations | None
) -> list[Quantization]:
    """``_quantize_each``, taking what ``early``'s worker computed: the worker keeps its share
    of the matrices it has not done yet while this process computes the others on its other
    threads, then the results are joined (the worker's where it had one, else computed here)."""
    if early is None:
        return _quantize_each(requests, compressed, threads)
    jobs = {id(r): _early_job(r, compressed, early) for r in requests}
    ours = sum(r.site.value.size for r in requests if jobs[id(r)] is None)
    coming, working = early.hand_over(sorted({j for j in jobs.values() if j is not None}), ours, threads)
    mine = [r for r in requests if jobs[id(r)] not in coming]
    own = dict(zip(map(id, mine), _quantize_each(mine, compressed, max(1, threads - 1) if working else threads), strict=True))
    done = early.finish()
    results = {}
    for request in requests:
        job = jobs[id(request)]
        if id(request) in own:
            results[id(request)] = own[id(request)]
        elif job in done:
            results[id(request)] = done[job]
            early.taken += 1
    missed = [r for r in requests if id(r) not in results]  # the worker failed
    results.update(zip(map(id, missed), _quantize_each(missed, compressed, threads), strict=True))
    return [results[id(request)] for request in requests]


def _early_job(request: _Request, compressed: bool, early: EarlyQuantizations) -> int | None:
    """The worker's job for ``request``'s data-free quantization, if it has one."""
    if request.stats is not None or request.refine or request.site.stacked:
        return None
    return early.index(request.site.value, request.scheme, _scale_dtype(request.site, compressed))


def _same_result(request: _Request) -> tuple[object, ...]:
    """What a request's quantization depends on: the weights, their orientation, the scheme,
    the activation statistics (by identity) and the refit."""
    site = request.site
    return (site.weight.id, site.rows_first, request.scheme, id(request.stats), request.refine)


def _quantize_each(requests: list[_Request], compressed: bool, threads: int) -> list[Quantization]:
    """``quantize_sites`` of requests for distinct weights."""
    jobs: list[Callable[[], BlockParams]] = []
    spans = []
    offset_sums = offset_sums_for(sum(r.site.value.size for r in requests if r.stats is None and not r.refine))
    for request in requests:
        importance = None if request.stats is None else request.stats.mean_square
        refine = request.refine and request.scheme.bits == 4
        scale_dtype = _scale_dtype(request.site, compressed)
        made = quantization_jobs(request.site.value, request.scheme, scale_dtype, importance, refine, offset_sums)
        jobs += made
        spans.append(len(made))
    results = run_in_order(jobs, threads)
    params = []
    for request, span in zip(requests, spans, strict=True):
        rows, cols = request.site.value.shape
        params.append(assemble(request.scheme, rows, cols, [next(results) for _ in range(span)]))
        release_mapped_pages(mapped_base(request.site.value))  # read again block by block when written
    return params


def _scale_dtype(site: WeightSite, compressed: bool) -> np.dtype:
    """The precision ``site``'s scales are stored in: levels are chosen to fit it."""
    return scale_dtype_for(site.weight.out_port(0).data.element_type, compressed)


def scale_dtype_for(float_type: ElementType, compressed: bool) -> np.dtype:
    """The precision the scales of weights of ``float_type`` are stored in (``compressed``:
    the IR's f32 constants are written as f16)."""
    return np.dtype(np.float16) if compressed and float_type is ElementType.f32 else float_type.numpy


def _activation_statistics(graph: Graph, sites: list[WeightSite]) -> dict[int, InputStatistics]:
    """The measured statistics of each MatMul site's input, by consumer node id (none
    without ``ACTIVATION_STATISTICS``)."""
    by_port: dict[OutPort, InputStatistics] = graph.meta.get(ACTIVATION_STATISTICS) or {}
    return {site.consumer.id: by_port[data_input(site)] for site in sites
            if not site.embedding and not site.stacked and data_input(site) in by_port}


def _choose_schemes(
    sites: list[WeightSite],
    primary: Scheme,
    stats: dict[int, InputStatistics],
    compressed: bool,
    threads: int,
    ctx: TransformContext,
) -> dict[int, Scheme]:
    """Each site's scheme, by consumer node id: 8-bit formats put every site in ``primary``;
    4-bit ones choose per site between ``primary`` and ``BACKUP``."""
    if primary.bits == 8:
        return {site.consumer.id: primary for site in sites}
    last = last_projection(sites)
    kept = set() if ctx.options.get(ALL_LAYERS) else {id(s) for s in sites if s.embedding or s is last}
    candidates = [site for site in sites if id(site) not in kept]
    ratio = ctx.options.get(RATIO)
    if ratio < 1.0:
        candidates = _four_bit_share(candidates, primary, stats, compressed, threads, ratio)
    chosen = {id(site) for site in candidates}
    return {site.consumer.id: primary if id(site) in chosen else BACKUP for site in sites}


def _four_bit_share(
    candidates: list[WeightSite],
    primary: Scheme,
    stats: dict[int, InputStatistics],
    compressed: bool,
    threads: int,
    ratio: float,
) -> list[WeightSite]:
    """Candidates for 4 bits, up to ``ratio`` of the weights (``mixed_precision``)."""

    def quantized(scheme: Scheme) -> list[Quantization]:
        requests = [_Request(site, scheme, stats.get(site.consumer.id), False) for site in candidates]
        return quantize_sites(requests, compressed, threads)

    eight = quantized(BACKUP)
    if stats:
        pairs = zip(candidates, quantized(primary), eight, strict=True)
        sensitivity = [activation_sensitivity(four, e) for _, four, e in pairs]
    else:
        sensitivity = [data_free_sensitivity(e) for e in eight]
    chosen = four_bit_share([site.parameters for site in candidates], sensitivity, ratio)
    return [candidates[index] for index in chosen]


def _compress(rw: Rewriter, site: WeightSite, params: Quantization, levels_into: LevelsInto | None) -> OutPort:
    """``site``'s consumer reads its weights restored from ``params``' levels (computed by
    ``levels_into`` when the writer reads them, if given); the restored weights
    (``site.matrix_shape``). Stacked expert matrices keep their leading axis on the levels,
    scales and zero points (``[E, rows, ...]``), the form OpenVINO's CPU plugin decompresses
    inside its fully connected layer."""
    from irconv_opset import Convert, Multiply, Reshape, Subtract

    weights = site.value
    element_type = site.weight.out_port(0).data.element_type
    name = site.weight.name
    like = site.weight
    stack = site.matrix_shape[0] if site.stacked else 1
    levels = rw.op(DeferredConst(pending=DeferredQuantized(weights, params, stack, levels_into)), name=f"{name}/quantized")  # type: ignore[arg-type]  # core types pending as DeferredProduct only
    restored = rw.op(Convert(destination_type=element_type), levels, name=f"{name}/to_float")
    grouped = params.groups > 1  # else one scale per row: [rows, 1], like the weights' rank
    per_row = (*site.matrix_shape[:-1], params.groups, 1) if grouped else (*site.matrix_shape[:-1], 1)
    if params.zero_point is not None:
        zero = HeldValue(levels_as(params.zero_point.reshape(per_row), params.scheme.element_type))
        zero_port = rw.op(DeferredConst(pending=zero), name=f"{name}/zero_point")  # type: ignore[arg-type]  # core types pending as DeferredProduct only
        zero_float = rw.op(Convert(destination_type=element_type), zero_port, name=f"{name}/zero_point/to_float")
        restored = rw.op(Subtract(), restored, zero_float, name=f"{name}/shifted")
    scale_port = rw.const(params.scale.reshape(per_row), element_type.numpy, name=f"{name}/scale")
    restored = rw.op(Multiply(), restored, scale_port, name=f"{name}/scaled")
    if grouped:
        target = rw.const(np.array(site.matrix_shape, np.int64), like=like)
        restored = rw.op(Reshape(special_zero=False), restored, target, name=f"{name}/ungrouped")
    _feed(rw, site, restored)
    return restored


def _feed(rw: Rewriter, site: WeightSite, weights: OutPort) -> None:
    """``site``'s consumer reads ``weights`` (``[rows, cols]``), with ``transpose_b`` when
    the original matrix was ``[cols, rows]``."""
    if not site.rows_first:
        rw.replace_op(site.consumer, dataclasses.replace(site.consumer.op, transpose_b=True))
    rw.set_input(site.consumer.in_port(site.port), weights)


__all__ = ["CompressWeights"]
