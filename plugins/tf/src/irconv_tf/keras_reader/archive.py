"""The two parts of a ``.keras`` zip: the model config and the weights file.

Keras stores a layer's variables under a path made from the layer *class*, not its name
(``layers/conv2d_1/vars/0``): a container's layers are numbered per snake-cased class name
in the container's order (``keras.src.saving.saving_lib``). ``weight_groups`` repeats that
numbering so each layer finds its variables.
"""

from __future__ import annotations

import bisect
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


class Variables:
    """Every variable of the weights file by its path (``layers/dense/vars/0``)."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self._arrays = arrays
        self._names = sorted(arrays)

    def under(self, path: str) -> dict[str, np.ndarray]:
        """The arrays under group ``path``, keyed by their path below it (``vars/0``,
        ``forward_layer/cell/vars/1``); empty when the group is absent."""
        prefix = f"{path}/"
        start = bisect.bisect_left(self._names, prefix)
        end = bisect.bisect_left(self._names, prefix[:-1] + chr(ord("/") + 1))
        return {name[len(prefix) :]: self._arrays[name] for name in self._names[start:end]}


@dataclass
class KerasArchive:
    config: dict[str, Any]
    weights: Variables


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
    return KerasArchive(config, Variables({} if weights_bytes is None else read_variables(weights_bytes)))


_VARIABLE = re.compile(r"(^|/)vars/\d+$")


def read_variables(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an HDF5 weights file held in memory, by path. The file is opened as an
    in-memory image and each dataset read straight into NumPy: h5py's object layer costs
    about a millisecond per group and dataset, seconds on an application model."""
    try:
        import h5py  # Keras' own dependency (irconv-tf[keras]): only a .keras file with weights needs it
    except ImportError:
        raise NotReadable("h5py, which reads the weights, is not installed") from None
    try:
        file = h5py.File(h5py.h5f.open_file_image(data), "r")
    except (OSError, ValueError) as exc:
        raise NotReadable(f"{WEIGHTS} is not a readable HDF5 file ({exc})") from exc
    try:
        names: list[str] = []
        file.visit(names.append)
        found = {}
        for name in names:
            if _VARIABLE.search(name):
                dataset = h5py.h5d.open(file.id, name.encode())
                array = np.empty(dataset.shape, dataset.dtype)
                dataset.read(h5py.h5s.ALL, h5py.h5s.ALL, array)
                found[name] = array
        return found
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise NotReadable(f"{WEIGHTS} is not a readable HDF5 file ({exc})") from exc
    finally:
        file.close()


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
