"""What keeping one layer in int8 is worth, against what ``--ratio``'s ranking estimates.

The trained Llama of ``bench/llm_against_nncf.py --trained`` (``bench/trained_decoder.py``),
compressed with ``--dataset`` in 4 bits: once with every candidate in 4 bits, then once per
candidate with that layer alone in int8. Each IR runs on OpenVINO's CPU plugin in f32 on the
held-out paragraphs; the table gives the logits error (relative, against onnxruntime's f32
run), what keeping the layer in int8 removes from its square (the benefit measured at the
model's output), and the ranking's estimate of the same from the activation statistics:
the activation-weighted squared output error 4 bits add to the layer, in all and per weight.

    python bench/llm_int8_choice.py [--dir /tmp/llm-nncf-trained] [--seed 0] [--group 128]
        [--weight-format int4-sym]

It reaches into ``compress_weights._four_bit_share`` to force the choice (a diagnostic: no
option picks single layers); everything else is the conversion users run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from llm_data_aware import held_out_ids, openvino_logits, reference_logits, relative_error
from trained_decoder import trained


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/llm-nncf-trained"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--group", type=int, default=128)
    parser.add_argument("--weight-format", default="int4-sym")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--eval", type=int, default=64)
    args = parser.parse_args()
    import irconv_transforms.weight_compression.compress_weights as compress
    from irconv import convert_model, save_model

    model = trained(args.dir / "model", 128, 3, 512, 400, seed=args.seed)
    calibration = args.dir / "calibration.txt"
    step = max(1, len(model.calibration) // args.samples)
    calibration.write_text("\n".join(model.calibration[::step][: args.samples]) + "\n")
    sequences = held_out_ids(model, args.eval)
    expected = reference_logits(model.onnx, sequences)
    estimates: dict[str, tuple[int, float]] = {}
    forced: list[str | None] = [None]

    def choose(candidates: list[Any], primary: Any, stats: dict[int, Any], compressed: bool, threads: int, ratio: float) -> list[Any]:
        requests = [compress._Request(site, scheme, stats.get(site.consumer.id), False) for site in candidates for scheme in (primary, compress.BACKUP)]
        made = compress.quantize_sites(requests, compressed, threads)
        for index, site in enumerate(candidates):
            estimates[site.consumer.name] = (site.parameters, made[2 * index].squared_error - made[2 * index + 1].squared_error)
        return [site for site in candidates if site.consumer.name != forced[0]]

    compress._four_bit_share = choose  # type: ignore[assignment]

    def error(name: str | None) -> float:
        forced[0] = name
        xml = args.dir / "int8_choice.xml"
        options = {"weight_format": args.weight_format, "group_size": args.group, "ratio": 0.8}
        save_model(convert_model(model.onnx, dataset=calibration, subset_size=args.samples, **options), xml)
        return relative_error(openvino_logits(xml, sequences), expected)

    everything = error(None)
    print(f"seed {args.seed}, {args.weight_format}, group {args.group}; every candidate in 4 bits: logits error {everything:.5f}\n")
    print("| layer in int8 | weights | logits error | benefit (error² removed) | per weight | estimate | estimate per weight |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (parameters, estimate) in list(estimates.items()):
        alone = error(name)
        benefit = everything**2 - alone**2
        print(
            f"| {name} | {parameters} | {alone:.5f} | {benefit:.2e} | {benefit / parameters:.2e} | {estimate:.4f} "
            f"| {estimate / parameters:.2e} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
