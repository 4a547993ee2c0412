"""``.keras`` file vs SavedModel (``model.export()``) conversion: whole processes, side by side.

A child process builds each model with seeded random weights and saves it both ways (the
BiLSTM text model, the conv autoencoder, MobileNetV2 at 96x96, EfficientNetV2B0 at 64x64,
all ``weights=None``). Each form is then converted by ``irconv convert
--no-compress-to-fp16 -q`` as its own process, alternating (the order flips every round);
the script prints the median wall time of each route, their ratio, the IR's layers (all /
without Const) and whether the ``.keras`` route went through TensorFlow. Wall time includes
Python start-up and plugin loading. Everything lives in a temporary directory removed at the
end.

    python bench/keras_convert.py                      # 3 rounds, every model
    python bench/keras_convert.py --rounds 5 --models bilstm,autoencoder --keep /tmp/keras_bench
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import alternating, run_process

MODELS = ("autoencoder", "bilstm", "mobilenetv2", "efficientnetv2b0")

BUILD = r"""
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np, keras
L = keras.layers
out, names = sys.argv[1], sys.argv[2].split(",")

def autoencoder():
    i = keras.Input((28, 28, 1))
    x = L.MaxPooling2D()(L.Conv2D(16, 3, activation="relu", padding="same")(i))
    x = L.MaxPooling2D()(L.Conv2D(8, 3, activation="relu", padding="same")(x))
    x = L.Conv2DTranspose(8, 3, strides=2, activation="relu", padding="same")(x)
    x = L.Conv2DTranspose(16, 3, strides=2, activation="relu", padding="same")(x)
    return keras.Model(i, L.Conv2D(1, 3, activation="sigmoid", padding="same")(x))

def bilstm():
    i = keras.Input((20,), dtype="int32")
    x = L.Bidirectional(L.LSTM(16, return_sequences=True))(L.Embedding(1000, 32)(i))
    x = L.Dropout(0.5)(L.Dense(16, activation="relu")(L.GlobalMaxPooling1D()(x)))
    return keras.Model(i, L.Dense(1, activation="sigmoid")(x))

BUILDERS = {
    "autoencoder": autoencoder,
    "bilstm": bilstm,
    "mobilenetv2": lambda: keras.applications.MobileNetV2(weights=None, input_shape=(96, 96, 3)),
    "efficientnetv2b0": lambda: keras.applications.EfficientNetV2B0(weights=None, input_shape=(64, 64, 3)),
}
for name in names:
    keras.utils.set_random_seed(0)
    model = BUILDERS[name]()
    model.save(os.path.join(out, name + ".keras"))
    model.export(os.path.join(out, name + "_saved_model"), verbose=False)
"""

_LAYERS = re.compile(r": (\d+) layers in ")


def convert(model: Path, out: Path) -> tuple[float, int, bool]:
    """Wall seconds of one ``irconv convert`` process, the IR's layer count, and whether
    the notes say TensorFlow read the file."""
    command = [sys.executable, "-m", "irconv", "convert", str(model), "-o", str(out), "--no-compress-to-fp16"]
    done = run_process(command)
    found = _LAYERS.search(done.stdout)
    return done.wall, int(found.group(1)) if found else -1, "read through TensorFlow" in done.stdout


def non_const_layers(xml: Path) -> int:
    """Layers of the IR's top level (not those inside Loop bodies) other than Const."""
    import xml.etree.ElementTree as ElementTree

    layers = ElementTree.parse(xml).getroot().find("layers")
    return sum(1 for layer in (layers if layers is not None else []) if layer.get("type") != "Const")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--keep", type=Path, help="build into (and keep) this directory")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = sorted(set(names) - set(MODELS))
    if unknown:
        parser.error(f"unknown model(s) {unknown}; choose from {', '.join(MODELS)}")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="keras_bench_"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run([sys.executable, "-c", BUILD, str(folder), ",".join(names)], check=True)
        print(
            "| model | .keras s | SavedModel s | ratio | .keras layers (no Const) | SavedModel layers (no Const) | .keras via TF |"
        )
        print("|---|---:|---:|---:|---:|---:|---|")
        for name in names:
            forms = {"keras": folder / f"{name}.keras", "saved": folder / f"{name}_saved_model"}
            times: dict[str, list[float]] = {"keras": [], "saved": []}
            layers: dict[str, str] = {}
            via_tf = False
            for _, form in alternating(["keras", "saved"], args.rounds):
                xml = folder / f"{name}_{form}.xml"
                seconds, count, through_tf = convert(forms[form], xml)
                times[form].append(seconds)
                layers[form] = f"{count} ({non_const_layers(xml)})"
                via_tf |= form == "keras" and through_tf
            keras_s, saved_s = statistics.median(times["keras"]), statistics.median(times["saved"])
            print(
                f"| {name} | {keras_s:.2f} | {saved_s:.2f} | {keras_s / saved_s:.2f} | {layers['keras']} | "
                f"{layers['saved']} | {'yes' if via_tf else 'no'} |"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
