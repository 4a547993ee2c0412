"""irconv's weight compression against OVC + NNCF's data-free ``compress_weights``.

A random Llama-style decoder (``tests/llm/decoders.py``; its size set by ``--hidden`` and
``--layers``) exported to ONNX with its KV cache; for each mode, irconv converts it with
``--weight-format`` (one call, timed), and OVC converts it and NNCF compresses OVC's IR with
the same mode, group size and ratio (both timed, together). Both IRs run on OpenVINO's CPU
plugin in f32 (``tests/llm/accuracy.py``) on the same prompts; the logits' relative error
is against onnxruntime's f32 run of the ONNX file. Prints a Markdown table.

    python bench/llm_against_nncf.py [--dir /tmp/llm-nncf] [--hidden 64] [--layers 2] [--group 32]

With ``--trained``, data-aware compression instead: a small Llama trained for a few hundred
steps on CPU (``bench/trained_decoder.py``: the standard library's docstrings, a tenth held
out), so that perplexity means something, exported to ONNX without a KV cache beside its
tokenizer. ``--samples`` training paragraphs spread evenly over it are the calibration set
of both tools. Each conversion runs as its own process (wall time and peak RSS from
``os.wait4``): ``irconv convert`` without ``--dataset``, with it, and with it and ``--awq``,
and OVC + NNCF's ``compress_weights`` without and with a dataset (``awq=True,
scale_estimation=True``; with ``ratio`` below 1 NNCF then picks its int8 layers by its data-aware default, the maximum activation variance),
same mode, group size, ratio and samples. Every IR runs on OpenVINO's CPU plugin in f32 on
the held-out paragraphs (up to ``--eval`` of them, 128 tokens at most): the logits'
relative error against onnxruntime's f32 run, and the perplexity.

    python bench/llm_against_nncf.py --trained [--dir /tmp/llm-nncf-trained] [--hidden 128] [--layers 3]
        [--vocab 512] [--steps 400] [--group 32] [--samples 64] [--eval 64] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "llm"))

#: (irconv --weight-format, ratio)
CASES = [("int8", 1.0), ("int4-sym", 1.0), ("int4-asym", 1.0), ("int4-sym", 0.8), ("int4-asym", 0.8)]


def irconv_convert(model: Path, xml: Path, weight_format: str, group: int, ratio: float) -> float:
    from irconv import convert_model, save_model

    start = time.perf_counter()
    save_model(convert_model(model, weight_format=weight_format, group_size=group, ratio=ratio), xml)
    return time.perf_counter() - start


def nncf_convert(model: Path, xml: Path, weight_format: str, group: int, ratio: float) -> float:
    import nncf
    import openvino

    modes = {
        "int8": nncf.CompressWeightsMode.INT8_ASYM,
        "int4-sym": nncf.CompressWeightsMode.INT4_SYM,
        "int4-asym": nncf.CompressWeightsMode.INT4_ASYM,
    }
    options: dict[str, Any] = {"mode": modes[weight_format]}
    if weight_format.startswith("int4"):
        options |= {"group_size": group, "ratio": ratio}
    start = time.perf_counter()
    ovc = xml.with_name(xml.stem + "_ovc.xml")
    openvino.save_model(openvino.convert_model(model), ovc)  # f16 weights, OVC's default
    compressed = nncf.compress_weights(openvino.Core().read_model(ovc), **options)
    openvino.save_model(compressed, xml, compress_to_fp16=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--hidden", type=int)
    parser.add_argument("--layers", type=int)
    parser.add_argument("--group", type=int, default=32)
    parser.add_argument("--trained", action="store_true", help="data-aware compression of a trained model")
    parser.add_argument("--vocab", type=int, default=512)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--eval", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0, help="--trained: the training run's seed (initial weights, batches)")
    parser.add_argument("--nncf-child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.nncf_child:
        _nncf_child(*args.nncf_child)
        return
    if args.trained:
        from llm_data_aware import data_aware_table

        folder = args.dir or Path("/tmp/llm-nncf-trained")
        data_aware_table(folder, args.hidden or 128, args.layers or 3, args.vocab, args.steps, args.group, args.samples, args.eval, args.seed)
        return
    args.dir = args.dir or Path("/tmp/llm-nncf")
    args.hidden, args.layers = args.hidden or 64, args.layers or 2
    args.dir.mkdir(parents=True, exist_ok=True)
    from accuracy import openvino_logits, prompts, reference_logits, relative_error
    from decoders import exported

    shape = {"hidden_size": args.hidden, "intermediate_size": 2 * args.hidden, "num_hidden_layers": args.layers}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        decoder = exported("llama", args.dir, **shape)
    batch = prompts(decoder)
    expected = reference_logits(decoder, batch)
    print(f"llama: hidden {args.hidden}, {args.layers} layers, group {args.group}\n")
    print("| mode | ratio | irconv error | NNCF error | irconv .bin | NNCF .bin | irconv s | OVC+NNCF s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for weight_format, ratio in CASES:
        name = f"{weight_format}_{ratio}"
        ours, theirs = args.dir / f"irconv_{name}.xml", args.dir / f"nncf_{name}.xml"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            our_time = irconv_convert(decoder.path, ours, weight_format, args.group, ratio)
            their_time = nncf_convert(decoder.path, theirs, weight_format, args.group, ratio)
        errors = [relative_error(openvino_logits(decoder, xml, batch), expected) for xml in (ours, theirs)]
        sizes = [xml.with_suffix(".bin").stat().st_size for xml in (ours, theirs)]
        print(
            f"| {weight_format} | {ratio} | {errors[0]:.4f} | {errors[1]:.4f} | {sizes[0]} | {sizes[1]} "
            f"| {our_time:.2f} | {their_time:.2f} |",
            flush=True,
        )


def _nncf_child(onnx: str, xml: str, weight_format: str, group: str, ratio: str, *data: str) -> None:
    """OVC then NNCF's ``compress_weights`` (with ``data``: calibration file, tokenizer.json,
    samples, for AWQ + scale estimation), in a process of its own so its peak RSS is its own."""
    import nncf
    import numpy as np
    import openvino
    from tokenizers import Tokenizer

    options: dict[str, Any] = {"mode": getattr(nncf.CompressWeightsMode, _NNCF_MODES[weight_format]), "group_size": int(group), "ratio": float(ratio)}
    if data:
        calibration, tokenizer, samples = data
        lines = [line for line in Path(calibration).read_text().splitlines() if line.strip()][: int(samples)]
        encoded = Tokenizer.from_file(tokenizer).encode_batch(lines)
        feeds = [
            {
                "input_ids": np.asarray(item.ids[:512], np.int64)[None],
                "attention_mask": np.ones((1, len(item.ids[:512])), np.int64),
                "position_ids": np.arange(len(item.ids[:512]), dtype=np.int64)[None],
            }
            for item in encoded
        ]
        options |= {"dataset": nncf.Dataset(feeds), "awq": True, "scale_estimation": True, "subset_size": len(feeds)}
    ovc = Path(xml).with_name(Path(xml).stem + "_ovc.xml")
    openvino.save_model(openvino.convert_model(onnx), ovc)  # f16 weights, OVC's default
    compressed = nncf.compress_weights(openvino.Core().read_model(ovc), **options)
    openvino.save_model(compressed, xml, compress_to_fp16=False)


_NNCF_MODES = {"int4-sym": "INT4_SYM", "int4-asym": "INT4_ASYM", "int8": "INT8_ASYM"}


if __name__ == "__main__":
    main()
