"""Layer counts of irconv's IR against OVC's on transformer decoders and an encoder.

Small Llama-, Qwen2- and Phi3-style decoders with an explicit KV cache (``tests/llm/decoders.py``)
and a BERT-style encoder, random weights, each exported by both of PyTorch's ONNX exporters
(TorchScript-based and dynamo-based); each ONNX file converted by ``irconv`` and by OVC
(``openvino.convert_model``), both stateless with default options. Prints a Markdown table of
layers (all of them, and without ``Const``) and the op types whose counts differ.

    python bench/llm_layers.py [--dir /tmp/llm-layers] [--models llama,qwen2,phi3,bert]
"""

from __future__ import annotations

import argparse
import sys
import warnings
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXPORTERS = {"torchscript": False, "dynamo": True}


def bert_onnx(path: Path, dynamo: bool) -> Path:
    """A 2-layer BERT-style encoder (hidden 64, 4 heads) with random weights, exported to ``path``."""
    import torch
    import transformers

    config = transformers.BertConfig(
        vocab_size=256, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128
    )
    torch.manual_seed(0)
    bert = transformers.BertModel(config, add_pooling_layer=False).eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    model = Encoder().eval()
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
    with torch.no_grad():
        torch.onnx.export(
            model, inputs, str(path), input_names=names, output_names=["last_hidden_state"], dynamo=dynamo, **options
        )
    return path


def exported(model: str, directory: Path, dynamo: bool) -> Path:
    if model == "bert":
        return bert_onnx(directory / f"bert{'_dynamo' if dynamo else ''}.onnx", dynamo)
    sys.path.insert(0, str(REPO / "tests" / "llm"))
    from decoders import exported as decoder

    return decoder(model, directory, dynamo=dynamo).path


def layer_types(xml: Path) -> Counter[str]:
    return Counter(layer.get("type", "") for layer in ElementTree.parse(xml).getroot().iter("layer"))


def convert_both(onnx_path: Path) -> tuple[Counter[str], Counter[str]]:
    import openvino
    from irconv import convert_model, save_model

    ours = onnx_path.with_name(onnx_path.stem + "_irconv.xml")
    save_model(convert_model(onnx_path), ours)
    theirs = onnx_path.with_name(onnx_path.stem + "_ovc.xml")
    openvino.save_model(openvino.convert_model(onnx_path), theirs)
    return layer_types(ours), layer_types(theirs)


def difference(ours: Counter[str], theirs: Counter[str]) -> str:
    types = sorted(set(ours) | set(theirs))
    return ", ".join(f"{t} {ours[t]}/{theirs[t]}" for t in types if ours[t] != theirs[t] and t != "Const")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/llm-layers"))
    parser.add_argument("--models", default="llama,qwen2,phi3,bert")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    print(
        "| model | exporter | irconv layers | OVC layers | irconv w/o Const | OVC w/o Const | differing types (irconv/OVC) |"
    )
    print("|---|---|---:|---:|---:|---:|---|")
    for model in args.models.split(","):
        for exporter, dynamo in EXPORTERS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours, theirs = convert_both(exported(model, args.dir, dynamo))
            total, their_total = sum(ours.values()), sum(theirs.values())
            print(
                f"| {model} | {exporter} | {total} | {their_total} | {total - ours['Const']} "
                f"| {their_total - theirs['Const']} | {difference(ours, theirs)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
