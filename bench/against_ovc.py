"""``irconv convert`` against ``ovc`` on ONNX, TensorFlow, TFLite and ``.pt2`` files: the table.

Builds (or reuses, with ``--keep DIR``) the models, each in a child process, with random
weights from a fixed seed (nothing downloaded):

* ONNX, exported by ``torch.onnx.export(..., dynamo=True)``: torchvision-like CNNs (the
  plain-torch blocks of ``tests/torch/families.py`` at ResNet-50's and a MobileNetV3's
  sizes) and ``transformers`` models from configs of several sizes (``family_kit.text`` /
  ``vision``): BERT 4x256 and BERT-base, ViT-small, a Llama 8x512 and a GPT-2 6x512;
* TensorFlow frozen graphs: Keras ResNet50 and MobileNetV2;
* TFLite, from TF's converter: MobileNetV2 and ResNet50 float, MobileNetV2 full-int8
  (``tests/tflite/tflite_support.convert_with_tf``);
* ``.pt2`` (``torch.export.save``): the ResNet-50 and BERT 4x256 above.

Each model is converted by ``irconv convert`` and by ``ovc`` as whole processes, paired and
alternating (the order flips every round), both with their defaults (f16 compression on);
per model the median wall time, CPU time (user + system of the child, ``os.wait4``) and the
largest peak RSS of each tool and their irconv/ovc ratios, then the medians of the ratios
over the models, and the CPU time of ``irconv --version`` (best of 5).

    python bench/against_ovc.py --keep /tmp/against_ovc              # every model, 3 rounds
    python bench/against_ovc.py --keep /tmp/against_ovc --models onnx-resnet50,tf-resnet50 --rounds 5
    python bench/against_ovc.py --baseline /path/to/other-venv/bin/python   # against another irconv
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import MIB, Runs, alternating, run_process, use_test_helpers


# ------------------------------------------------------------------- torch models
def resnet50() -> Any:
    """torchvision's ResNet-50 layout ([3, 4, 6, 3] bottlenecks, 25.6 M parameters)."""
    use_test_helpers("torch")
    import torch
    from families import Bottleneck, conv_bn
    from family_kit import randomise_statistics
    from torch import nn

    layers: list[nn.Module] = [conv_bn(3, 64, 7, 2), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for index in range(blocks):
            layers.append(Bottleneck(cin, width, stride if index == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)]
    return randomise_statistics(nn.Sequential(*layers)), (torch.randn(1, 3, 224, 224),)


def mobilenet_v3() -> Any:
    use_test_helpers("torch")
    import torch
    from families import MobileNetV3Style
    from family_kit import randomise_statistics

    return randomise_statistics(MobileNetV3Style()), (torch.randn(1, 3, 224, 224),)


def _text(model: str, config: str, decoder: bool = False, **sizes: Any) -> Callable[[], Any]:
    def build() -> Any:
        use_test_helpers("torch")
        from family_kit import text

        return text(model, config, decoder=decoder, vocab=sizes.get("vocab_size", 512), seq=128, **sizes)()

    return build


def _vit_small() -> Any:
    use_test_helpers("torch")
    from family_kit import vision

    return vision("ViTModel", "ViTConfig", size=224, hidden_size=384, num_hidden_layers=12, num_attention_heads=6,
                  intermediate_size=1536, image_size=224, patch_size=16)()


TORCH: dict[str, Callable[[], Any]] = {
    "resnet50": resnet50,
    "mobilenet-v3-style": mobilenet_v3,
    "bert-4x256": _text("BertModel", "BertConfig", hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                        intermediate_size=1024, vocab_size=30522),
    "bert-base": _text("BertModel", "BertConfig", hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                       intermediate_size=3072, vocab_size=30522),
    "vit-small": _vit_small,
    "llama-8x512": _text("LlamaModel", "LlamaConfig", decoder=True, hidden_size=512, num_hidden_layers=8,
                         num_attention_heads=8, num_key_value_heads=4, intermediate_size=1376, vocab_size=32000),
    "gpt2-6x512": _text("GPT2Model", "GPT2Config", decoder=True, n_embd=512, n_layer=6, n_head=8, vocab_size=50257),
}


def build_onnx(name: str, path: Path) -> None:
    import torch

    torch.manual_seed(0)
    module, example = TORCH[name]()
    torch.onnx.export(module, example, str(path), dynamo=True, external_data=False)


def build_pt2(name: str, path: Path) -> None:
    import torch

    torch.manual_seed(0)
    module, example = TORCH[name]()
    torch.export.save(torch.export.export(module, example), str(path))


# -------------------------------------------------------------- TF and TFLite models
def _keras(app: str) -> Any:
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    return getattr(tf.keras.applications, app)(weights=None, input_shape=(224, 224, 3))


def build_frozen(app: str, path: Path) -> None:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    model = _keras(app)
    spec = tf.TensorSpec([1, 224, 224, 3], tf.float32, name="input")
    function = tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    frozen = convert_variables_to_constants_v2(function)
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString())


def build_tflite(app: str, mode: str, path: Path) -> None:
    import numpy as np
    import tensorflow as tf

    use_test_helpers("tflite")
    from tflite_support import convert_with_tf

    image = np.random.default_rng(1).uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32)
    path.write_bytes(convert_with_tf(tf.lite.TFLiteConverter.from_keras_model(_keras(app)), mode, [image]))


#: name -> (file suffix, builder writing that file)
MODELS: dict[str, tuple[str, Callable[[Path], None]]] = {
    **{f"onnx-{name}": (".onnx", lambda path, name=name: build_onnx(name, path)) for name in TORCH},
    "tf-resnet50": (".pb", lambda path: build_frozen("ResNet50", path)),
    "tf-mobilenet-v2": (".pb", lambda path: build_frozen("MobileNetV2", path)),
    "tflite-mobilenet-v2": (".tflite", lambda path: build_tflite("MobileNetV2", "float", path)),
    "tflite-resnet50": (".tflite", lambda path: build_tflite("ResNet50", "float", path)),
    "tflite-mobilenet-v2-int8": (".tflite", lambda path: build_tflite("MobileNetV2", "int8", path)),
    "pt2-resnet50": (".pt2", lambda path: build_pt2("resnet50", path)),
    "pt2-bert-4x256": (".pt2", lambda path: build_pt2("bert-4x256", path)),
}


def model_file(name: str, work: Path) -> Path:
    """The model's file in ``work``, built in a child process when it is not there yet."""
    suffix, _ = MODELS[name]
    path = work / f"{name}{suffix}"
    if not path.exists():
        start = time.perf_counter()
        partial = path.with_name(path.name + ".partial")
        subprocess.run([sys.executable, __file__, "--build", name, str(partial)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        partial.rename(path)
        print(f"built {name} in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return path


# ------------------------------------------------------------------------ measuring
def commands(model: Path, out: Path, baseline: str | None = None) -> dict[str, list[str]]:
    """irconv and the tool it is compared with: ovc, or ``baseline``, the Python of another
    irconv installation (an earlier revision's, say)."""
    other = ([baseline, "-m", "irconv", "convert", str(model), "-o", str(out / "baseline.xml")] if baseline
             else [shutil.which("ovc") or "ovc", str(model), "--output_model", str(out / "ovc.xml")])
    return {"irconv": [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(out / "irconv.xml")],
            "baseline" if baseline else "ovc": other}


def measure(name: str, model: Path, rounds: int, work: Path, baseline: str | None = None) -> dict[str, Any]:
    """Per tool: median wall s, median CPU s and largest peak RSS (MiB) over ``rounds``."""
    out = work / f"{name}_out"
    out.mkdir(exist_ok=True)
    cmds = commands(model, out, baseline)
    runs = {tool: Runs() for tool in cmds}
    for _, tool in alternating(list(cmds), rounds):
        runs[tool].add(run_process(cmds[tool]))
        for written in out.iterdir():
            written.unlink()
    row: dict[str, Any] = {"model": name, "mib": _size(model) / MIB}
    for tool, found in runs.items():
        row[tool] = (found.wall, found.cpu, found.peak_mib)
    return row


def _size(model: Path) -> int:
    extra = model.with_name(model.name + ".data")  # ONNX external data, if any
    return model.stat().st_size + (extra.stat().st_size if extra.exists() else 0)


def version_cpu() -> float:
    """CPU seconds of ``irconv --version``, best of 5."""
    return min(run_process([sys.executable, "-m", "irconv", "--version"]).cpu for _ in range(5))


def table(rows: list[dict[str, Any]], other: str = "ovc") -> str:
    lines = [
        f"| model | MiB | irconv s | {other} s | wall ratio | irconv CPU s | {other} CPU s | CPU ratio | "
        f"irconv peak MiB | {other} peak MiB | peak ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ratios: list[tuple[float, float, float]] = []
    for row in rows:
        mine, theirs = row["irconv"], row[other]
        ratio = tuple(a / b for a, b in zip(mine, theirs, strict=True))
        ratios.append(ratio)  # type: ignore[arg-type]
        lines.append(
            f"| {row['model']} | {row['mib']:.0f} | {mine[0]:.2f} | {theirs[0]:.2f} | {ratio[0]:.2f} | "
            f"{mine[1]:.2f} | {theirs[1]:.2f} | {ratio[1]:.2f} | {mine[2]:.0f} | {theirs[2]:.0f} | {ratio[2]:.2f} |"
        )
    medians = [statistics.median(r[i] for r in ratios) for i in range(3)]
    worst = [max(r[i] for r in ratios) for i in range(3)]
    lines.append(f"| **median** | | | | **{medians[0]:.2f}** | | | **{medians[1]:.2f}** | | | **{medians[2]:.2f}** |")
    lines.append(f"| largest | | | | {worst[0]:.2f} | | | {worst[1]:.2f} | | | {worst[2]:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated names (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="0: only build the models")
    parser.add_argument("--keep", type=Path, default=Path("/tmp/irconv_against_ovc"),
                        help="where the models are built and kept")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="compare with the irconv installed for this Python (another revision) instead of ovc")
    parser.add_argument("--build", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build:  # in a child: the measuring parent stays small
        MODELS[args.build[0]][1](Path(args.build[1]))
        return 0
    # measure what a user runs: bytecode cached, caches warm
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "irconv", "plugins"], check=True, capture_output=True)
    args.keep.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        try:
            model = model_file(name, args.keep)
        except subprocess.CalledProcessError as exc:
            last = exc.stderr.decode(errors="replace").strip().splitlines()[-1:]
            print(f"{name}: not built: {last}", file=sys.stderr)
            continue
        if not args.rounds:
            continue
        rows.append(measure(name, model, args.rounds, args.keep, args.baseline))
        print(f"{name}: measured", file=sys.stderr, flush=True)
    if not rows:
        return 0
    print(f"{args.rounds} alternating rounds per model, both tools' defaults (f16 compression), "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
    print(table(rows, "baseline" if args.baseline else "ovc"))
    print(f"\n`irconv --version`: {version_cpu():.2f} s CPU (best of 5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
