"""irconv's weight compression against OVC + NNCF's data-free ``compress_weights``.

A random Llama-style decoder (``tests/llm/decoders.py``; its size set by ``--hidden`` and
``--layers``) exported to ONNX with its KV cache; for each mode, irconv converts it with
``--weight-format`` (one call, timed), and OVC converts it and NNCF compresses OVC's IR with
the same mode, group size and ratio (both timed, together). Both IRs run on OpenVINO's CPU
plugin in f32 (``tests/llm/accuracy.py``) on the same prompts; the logits' relative error
is against onnxruntime's f32 run of the ONNX file. Prints a Markdown table.

    python bench/llm_against_nncf.py [--dir /tmp/llm-nncf] [--hidden 64] [--layers 2] [--group 32]
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
    parser.add_argument("--dir", type=Path, default=Path("/tmp/llm-nncf"))
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--group", type=int, default=32)
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
