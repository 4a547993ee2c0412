"""Damage an emitted IR on purpose: a --verify test must see the difference."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

_DTYPES = {"f32": np.float32, "f16": np.float16}


def corrupt_largest_const(xml: Path) -> str:
    """Overwrite the weights of the IR's largest float Const with 7.0; returns its name."""
    root = ET.parse(xml).getroot()
    consts = []
    for layer in root.iter("layer"):
        data = layer.find("data")
        if layer.get("type") == "Const" and data is not None and data.get("element_type") in _DTYPES:
            consts.append((int(data.get("size")), int(data.get("offset")), data.get("element_type"), layer.get("name")))
    size, offset, element_type, name = max(consts)
    dtype = _DTYPES[element_type]
    blob = bytearray(xml.with_suffix(".bin").read_bytes())
    blob[offset : offset + size] = np.full(size // np.dtype(dtype).itemsize, 7.0, dtype).tobytes()
    xml.with_suffix(".bin").write_bytes(bytes(blob))
    return name
