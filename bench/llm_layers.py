"""Layers and CPU latency of irconv's IR against OVC's on transformer decoders and encoders.

Small Llama-, Qwen2-, Phi3- and Gemma-style decoders with an explicit KV cache
(``tests/llm/decoders.py``) and BERT- and DeBERTa-v2-style encoders, random weights, each
exported by both of PyTorch's ONNX exporters (TorchScript-based and dynamo-based); each ONNX
file converted by ``irconv`` and by OVC (``openvino.convert_model``), both stateless with
default options. Prints a Markdown table of layers (all of them, and without ``Const``), the
CPU latency of both IRs and the op types whose counts differ.

Latency: both IRs compiled on the CPU at f32 (``INFERENCE_PRECISION_HINT``), one inference
thread, one stream; warmed up, then run alternately on the same inputs (the order flips every
round), twice with the compile order swapped; the median of each IR's times and the median
of the per-round irconv/OVC ratios (geometric mean of the two passes). Decoders run a prefill
of ``SEQUENCE`` tokens after ``PAST`` cached ones, encoders ``SEQUENCE`` tokens, batch 1.
``--profile`` prints, per row, the op types whose summed times (``PERF_COUNT``) differ most.

    python bench/llm_layers.py [--dir /tmp/llm-layers] [--models llama,qwen2,...] [--rounds 400]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from harness import alternating, use_test_helpers

EXPORTERS = {"torchscript": False, "dynamo": True}
DECODERS = ("llama", "qwen2", "phi3", "gemma")
ENCODERS = ("bert", "deberta_v2")
SEQUENCE, PAST = 16, 32
LATENCY_CONFIG = {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY"}


def encoder_config(family: str) -> Any:
    """A 2-layer encoder config of ``family`` (hidden 64, 4 heads)."""
    import transformers

    common: dict[str, Any] = dict(
        vocab_size=256, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128
    )
    if family == "bert":
        return transformers.BertConfig(**common)
    # DeBERTa-v2/v3 as published: relative attention with log buckets, both disentangled terms
    return transformers.DebertaV2Config(
        **common,
        relative_attention=True,
        position_buckets=32,
        max_relative_positions=-1,
        pos_att_type=["p2c", "c2p"],
        norm_rel_ebd="layer_norm",
        share_att_key=True,
        position_biased_input=False,
    )


def encoder_onnx(family: str, path: Path, dynamo: bool) -> Path:
    """A random-weight ``family`` encoder exported to ``path``: input_ids and attention_mask in,
    the last hidden state out."""
    import torch
    import transformers
    from decoders import traceable_masks

    torch.manual_seed(0)
    config = encoder_config(family)
    if family == "bert":
        encoder = transformers.BertModel(config, add_pooling_layer=False).eval()
    else:
        encoder = transformers.AutoModel.from_config(config).eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    batch, length = 2, 7
    inputs = (torch.randint(0, 256, (batch, length)), torch.ones(batch, length, dtype=torch.long))
    names = ["input_ids", "attention_mask"]
    options: dict[str, Any]
    if dynamo:
        from torch.export import Dim

        axes = {0: Dim("batch"), 1: Dim("sequence")}
        options = {"dynamic_shapes": {name: axes for name in names}, "opset_version": 18}
    else:
        options = {"dynamic_axes": {name: {0: "batch", 1: "sequence"} for name in names}, "opset_version": 17}
    with torch.no_grad(), traceable_masks():
        torch.onnx.export(
            Encoder().eval(), inputs, str(path), input_names=names, output_names=["last_hidden_state"],
            dynamo=dynamo, **options,
        )
    return path


def exported(model: str, directory: Path, dynamo: bool) -> Path:
    if model in ENCODERS:
        return encoder_onnx(model, directory / f"{model}{'_dynamo' if dynamo else ''}.onnx", dynamo)
    from decoders import exported as decoder

    return decoder(model, directory, dynamo=dynamo).path


def feeds(model: str, inputs: list[Any]) -> dict[str, np.ndarray]:
    """Inputs of ``model``'s IR (``inputs``: its OpenVINO input ports) for one timed inference."""
    rng = np.random.default_rng(0)
    past = 0 if model in ENCODERS else PAST
    values: dict[str, np.ndarray] = {
        "input_ids": rng.integers(3, 256, (1, SEQUENCE)),
        "attention_mask": np.ones((1, past + SEQUENCE), np.int64),
        "position_ids": np.arange(past, past + SEQUENCE)[None],
    }
    out = {}
    for port in inputs:
        name = port.get_any_name()
        if name in values:
            out[name] = values[name]
        else:  # a past key or value: [batch, kv heads, past, head dim]
            shape = port.get_partial_shape()
            heads, head_dim = shape[1].get_length(), shape[3].get_length()
            out[name] = rng.standard_normal((1, heads, past, head_dim)).astype(np.float32)
    return out


def layer_types(xml: Path) -> Counter[str]:
    return Counter(layer.get("type", "") for layer in ElementTree.parse(xml).getroot().iter("layer"))


def convert_both(onnx_path: Path) -> tuple[Path, Path]:
    import openvino
    from irconv import convert_model, save_model

    ours = onnx_path.with_name(onnx_path.stem + "_irconv.xml")
    save_model(convert_model(onnx_path), ours)
    theirs = onnx_path.with_name(onnx_path.stem + "_ovc.xml")
    openvino.save_model(openvino.convert_model(onnx_path), theirs)
    return ours, theirs


def difference(ours: Counter[str], theirs: Counter[str]) -> str:
    types = sorted(set(ours) | set(theirs))
    return ", ".join(f"{t} {ours[t]}/{theirs[t]}" for t in types if ours[t] != theirs[t] and t != "Const")


def compiled(xml: Path, profile: bool) -> Any:
    from irconv.runtime import compile_for_comparison

    return compile_for_comparison(xml, config={**LATENCY_CONFIG, **({"PERF_COUNT": True} if profile else {})})


def compiles(xml: Path) -> bool:
    """Whether OpenVINO's CPU plugin compiles the IR (it refuses, e.g., an If of dynamic rank)."""
    try:
        compiled(xml, profile=False)
    except RuntimeError:
        return False
    return True


def timed_pass(first: Path, second: Path, model: str, rounds: int, profile: bool) -> tuple[list[float], list[float], list[Any]]:
    """Per-round ms of ``first`` and ``second``, compiled in that order and run alternately;
    and their infer requests (for their profiles)."""
    requests = [compiled(xml, profile).create_infer_request() for xml in (first, second)]
    inputs = [feeds(model, list(request.model_inputs)) for request in requests]
    for _ in range(20):
        for request, feed in zip(requests, inputs, strict=True):
            request.infer(feed)
    times: list[list[float]] = [[], []]
    for _, k in alternating([0, 1], rounds):
        start = time.perf_counter()
        requests[k].infer(inputs[k])
        times[k].append((time.perf_counter() - start) * 1000)
    return times[0], times[1], requests


def alone(xml: Path, model: str, rounds: int) -> float:
    """Median ms of one IR (the other does not compile)."""
    request = compiled(xml, profile=False).create_infer_request()
    feed = feeds(model, list(request.model_inputs))
    for _ in range(20):
        request.infer(feed)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        request.infer(feed)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def latency(ours: Path, theirs: Path, model: str, rounds: int, profile: bool) -> tuple[float, float, float, list[Any]]:
    """Median ms of irconv's and OVC's IR and the irconv/OVC ratio (see the module's docstring);
    with ``profile``, the infer requests of the second pass (irconv's, OVC's)."""
    half = max(rounds // 2, 1)
    ours_1, theirs_1, _ = timed_pass(ours, theirs, model, half, profile=False)
    theirs_2, ours_2, requests = timed_pass(theirs, ours, model, half, profile)
    ratio_1 = statistics.median(a / b for a, b in zip(ours_1, theirs_1, strict=True))
    ratio_2 = statistics.median(a / b for a, b in zip(ours_2, theirs_2, strict=True))
    return statistics.median(ours_1 + ours_2), statistics.median(theirs_1 + theirs_2), float(np.sqrt(ratio_1 * ratio_2)), requests[::-1]


def profile_difference(requests: list[Any], top: int = 6) -> str:
    """The op types whose summed real time differs most between the two requests' last runs."""
    sums: list[Counter[str]] = []
    for request in requests:
        total: Counter[str] = Counter()
        for info in request.profiling_info:
            total[info.node_type] += info.real_time.total_seconds() * 1e6
        sums.append(total)
    types = sorted(set(sums[0]) | set(sums[1]), key=lambda t: -abs(sums[0][t] - sums[1][t]))[:top]
    return ", ".join(f"{t} {sums[0][t]:.0f}/{sums[1][t]:.0f}us" for t in types)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/llm-layers"))
    parser.add_argument("--models", default=",".join(DECODERS + ENCODERS))
    parser.add_argument("--exporters", default=",".join(EXPORTERS))
    parser.add_argument("--rounds", type=int, default=400, help="timed rounds (0: layer counts only)")
    parser.add_argument("--profile", action="store_true", help="print per-op-type times of both IRs")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    use_test_helpers("llm")
    import openvino

    print(
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}, OpenVINO {openvino.get_version().split('-')[0]}, "
        f"{args.rounds} rounds, f32, 1 thread"
    )
    print(
        "| model | exporter | irconv layers | OVC layers | irconv w/o Const | OVC w/o Const "
        "| ms irconv | ms OVC | irconv/OVC | differing types (irconv/OVC) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for model in args.models.split(","):
        for exporter in args.exporters.split(","):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours, theirs = convert_both(exported(model, args.dir, EXPORTERS[exporter]))
            refused = [f"{tool}'s IR does not compile" for tool, xml in (("irconv", ours), ("OVC", theirs))
                       if args.rounds and not compiles(xml)]
            if refused == ["OVC's IR does not compile"]:  # irconv's timed alone, no ratio
                timing, requests = f"{alone(ours, model, args.rounds):.3f} | - | -", []
            elif refused or not args.rounds:
                timing, requests = f"{' | '.join(['-'] * 3)}", []
            else:
                ms_ours, ms_theirs, ratio, requests = latency(ours, theirs, model, args.rounds, args.profile)
                timing = f"{ms_ours:.3f} | {ms_theirs:.3f} | {ratio:.3f}"
            types, their_types = layer_types(ours), layer_types(theirs)
            total, their_total = sum(types.values()), sum(their_types.values())
            print(
                f"| {model} | {exporter} | {total} | {their_total} | {total - types['Const']} "
                f"| {their_total - their_types['Const']} | {timing} "
                f"| {'; '.join([*refused, difference(types, their_types)])} |",
                flush=True,
            )
            if args.profile and requests:
                print(f"<!-- {model} {exporter} profile irconv/OVC: {profile_difference(requests)} -->", flush=True)


if __name__ == "__main__":
    main()
