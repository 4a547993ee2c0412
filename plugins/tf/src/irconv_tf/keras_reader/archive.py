"""The two parts of a ``.keras`` zip: the model config and the weights file.

Keras stores a layer's variables under a path made from the layer *class*, not its name
(``layers/conv2d_1/vars/0``): a container's layers are numbered per snake-cased class name
in the container's order (``keras.src.saving.saving_lib``). ``weight_groups`` repeats that
numbering so each layer finds its variables.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CONFIG = "config.json"
WEIGHTS = "model.weights.h5"
METADATA = "metadata.json"


class NotReadable(Exception):
    """The file is outside what this reader understands; TensorFlow should read it."""


@dataclass
class KerasArchive:
    config: dict[str, Any]
    weights: Any  # an open h5py.File, or None for a model without variables

    def close(self) -> None:
        if self.weights is not None:
            self.weights.close()


def open_archive(path: Path) -> KerasArchive:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if CONFIG not in names:
                raise NotReadable(f"no {CONFIG} in the archive")
            config = json.loads(archive.read(CONFIG))
            metadata = json.loads(archive.read(METADATA)) if METADATA in names else {}
            weights_bytes = archive.read(WEIGHTS) if WEIGHTS in names else None
            if weights_bytes is None and any(n.startswith("model.weights") for n in names):
                raise NotReadable("weights stored in another form than model.weights.h5")
    except (zipfile.BadZipFile, OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise NotReadable(f"not a readable .keras zip ({type(exc).__name__}: {exc})") from exc
    if not isinstance(config, dict):
        raise NotReadable("config.json does not hold a model")
    version = str(metadata.get("keras_version", "")) if isinstance(metadata, dict) else ""
    if not version.startswith("3."):  # Keras 2 wrote other config forms into .keras files
        raise NotReadable(f"saved by Keras {version or 'of an unknown version'}, not Keras 3")
    if weights_bytes is None:
        return KerasArchive(config, None)
    try:
        import h5py  # Keras' own dependency (irconv-tf[keras]): only a .keras file with weights needs it
    except ImportError:
        raise NotReadable("h5py, which reads the weights, is not installed") from None
    try:
        return KerasArchive(config, h5py.File(io.BytesIO(weights_bytes), "r"))
    except OSError as exc:
        raise NotReadable(f"{WEIGHTS} is not a readable HDF5 file ({exc})") from exc


def to_snake_case(name: str) -> str:
    """Keras' ``naming.to_snake_case``: ``SeparableConv2D`` -> ``separable_conv2d``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def weight_groups(class_names: list[str]) -> Iterator[str]:
    """The weights-file group name of each layer of a container, in the container's order."""
    used: dict[str, int] = {}
    for class_name in class_names:
        base = to_snake_case(class_name)
        if base in used:
            used[base] += 1
            yield f"{base}_{used[base]}"
        else:
            used[base] = 0
            yield base


def read_group(weights: Any, path: str) -> dict[str, np.ndarray]:
    """Every array under ``path`` of the weights file, keyed by its path below it
    (``vars/0``, ``forward_layer/cell/vars/1``); empty when the group is absent."""
    if weights is None or path not in weights:
        return {}
    found: dict[str, np.ndarray] = {}

    def visit(name: str, item: Any) -> None:
        if hasattr(item, "shape"):
            found[name] = np.asarray(item[()])

    weights[path].visititems(visit)
    return found
