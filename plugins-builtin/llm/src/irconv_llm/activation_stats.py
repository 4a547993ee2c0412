"""Activation statistics of the compressed MatMuls' inputs, from the model run in OpenVINO.

The graph, before compression, is written as a temporary IR with f32 weights; every tensor
feeding a compressed MatMul becomes an extra output; the CPU plugin runs it in f32 (no
bf16 compute, an f32 KV cache) on each sample, one at a time from an empty cache. Per
tensor, the statistics are streamed: the mean magnitude and the mean square of each input
channel, and a few token rows kept evenly across the samples (what AWQ's scale search
measures output errors on). Memory: one sample's activations at a time, plus the kept rows.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from irconv import AtomicFiles, ConversionOptions, EmitContext, Graph, OutPort
from irconv.errors import UserError, quoted
from irconv_transforms.weight_compression.statistics import InputStatistics
from irconv_transforms.weight_compression.weight_sites import WeightSite, data_input

#: Token rows kept per tensor for the AWQ scale search.
KEPT_ROWS = 256
#: Inputs a decoder's run is fed by name (the rest must be a past KV cache).
_STANDARD = ("input_ids", "attention_mask", "position_ids", "beam_idx")


def collect(
    graph: Graph, sites: list[WeightSite], samples: list[np.ndarray], options: ConversionOptions
) -> dict[OutPort, InputStatistics]:
    """Statistics of each MatMul site's input over ``samples`` (token ids ``[length]`` each)."""
    import openvino as ov
    from irconv.runtime import compile_for_comparison

    matmuls = [site for site in sites if not site.embedding]
    with tempfile.TemporaryDirectory(prefix="irconv-dataset-") as folder:
        xml = _write_f32(graph, Path(folder) / "model.xml", options)
        core = ov.Core()
        model = core.read_model(str(xml))
        by_name = {op.get_friendly_name(): op for op in model.get_ops()}
        tapped: dict[OutPort, int] = {}
        outputs: list[Any] = []
        for site in matmuls:
            port = data_input(site)
            if port in tapped:
                continue
            op = by_name.get(site.consumer.name)
            if op is None:
                raise UserError(f"--dataset: MatMul {quoted(site.consumer.name)} is not in the model OpenVINO read back")
            tapped[port] = len(model.outputs) + len(outputs)
            outputs.append(op.input(1 - site.port).get_source_output())
        model.add_outputs(outputs)
        # Statistics of the f32 model, whatever the CPU's default precision.
        compiled = compile_for_comparison(model, core=core)
        feeds = _feeder(compiled)
        accumulators = {port: _Accumulator(len(samples)) for port in tapped}
        request = compiled.create_infer_request()
        for ids in samples:
            request.reset_state()
            results = request.infer(feeds(ids))
            for port, index in tapped.items():
                accumulators[port].add(np.asarray(results[compiled.outputs[index]]))
            del results
    return {port: accumulator.result() for port, accumulator in accumulators.items()}


def _write_f32(graph: Graph, xml: Path, options: ConversionOptions) -> Path:
    from irconv_ir.writer import write_ir

    with AtomicFiles() as files:
        write_ir(graph, xml, EmitContext(replace(options, compress_to_fp16=False), files))
        files.commit()
    return xml


def _feeder(compiled: Any) -> Callable[[np.ndarray], dict[Any, np.ndarray]]:
    """The inputs of one sample's run from its token ids: all ones mask, positions from 0,
    beam 0; a stateless model's past KV inputs get one position the mask hides (the CPU
    plugin mishandles an empty past)."""
    ports: dict[str, Any] = {}
    past = []
    for port in compiled.inputs:
        names = port.get_names()
        standard = [name for name in _STANDARD if name in names]
        if standard:
            ports[standard[0]] = port
            continue
        shape = port.get_partial_shape()
        if not any("past" in name for name in names) or shape.rank.is_dynamic or shape.rank.get_length() != 4:
            raise UserError(
                f"--dataset: cannot feed model input {quoted(port.get_any_name())} ({shape}); data-aware compression runs "
                "decoders whose inputs are input_ids, attention_mask, position_ids, beam_idx and past key/values"
            )
        past.append(port)
    if "input_ids" not in ports:
        names = ", ".join(sorted(port.get_any_name() for port in compiled.inputs))
        raise UserError(f"--dataset: the model has no input_ids input (inputs: {names})")
    hidden = 1 if past else 0

    def typed(name: str, value: np.ndarray) -> np.ndarray:
        return value.astype(ports[name].get_element_type().to_dtype())

    def feeds(ids: np.ndarray) -> dict[Any, np.ndarray]:
        length = ids.size
        values: dict[Any, np.ndarray] = {ports["input_ids"]: typed("input_ids", ids[None])}
        if "attention_mask" in ports:
            mask = np.concatenate([np.zeros(hidden, np.int64), np.ones(length, np.int64)])[None]
            values[ports["attention_mask"]] = typed("attention_mask", mask)
        if "position_ids" in ports:
            values[ports["position_ids"]] = typed("position_ids", np.arange(length)[None])
        if "beam_idx" in ports:
            values[ports["beam_idx"]] = typed("beam_idx", np.zeros(1))
        for port in past:
            shape = [1 if dim.is_dynamic else dim.get_length() for dim in port.get_partial_shape()]
            shape[0] = 1
            values[port] = np.zeros(shape, port.get_element_type().to_dtype())
        return values

    return feeds


class _Accumulator:
    """Streamed sums of one tensor's activations, and its kept rows."""

    def __init__(self, samples: int) -> None:
        self._per_sample = max(1, math.ceil(KEPT_ROWS / max(samples, 1)))
        self._magnitude: np.ndarray | None = None
        self._square: np.ndarray | None = None
        self._count = 0
        self._rows: list[np.ndarray] = []

    def add(self, activations: np.ndarray) -> None:
        tokens = activations.reshape(-1, activations.shape[-1]).astype(np.float64)
        magnitude, square = np.abs(tokens).sum(0), np.square(tokens).sum(0)
        self._magnitude = magnitude if self._magnitude is None else self._magnitude + magnitude
        self._square = square if self._square is None else self._square + square
        self._count += tokens.shape[0]
        picked = np.unique(np.linspace(0, tokens.shape[0] - 1, min(self._per_sample, tokens.shape[0])).astype(int))
        self._rows.append(tokens[picked].astype(np.float32))

    def result(self) -> InputStatistics:
        assert self._magnitude is not None and self._square is not None
        rows = np.concatenate(self._rows)[:KEPT_ROWS]
        count = float(self._count)
        return InputStatistics(
            (self._magnitude / count).astype(np.float32), (self._square / count).astype(np.float32), rows
        )
