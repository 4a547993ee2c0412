"""A checkpoint folder: its configuration and its safetensors tensors, memory-mapped.

The safetensors format is an 8-byte little-endian header length, a JSON header giving each
tensor's dtype, shape and byte range, then the bytes. Each tensor is read as a NumPy view of
a read-only memory map of its file: no byte is read before something asks for it.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from irconv.errors import ModelFileError, UserError, quoted
from irconv.types import ElementType

CONFIG = "config.json"
INDEX = "model.safetensors.index.json"
#: safetensors dtype names -> NumPy dtypes (bf16 through the core's element type).
_DTYPES: dict[str, np.dtype] = {
    "F32": np.dtype(np.float32), "F16": np.dtype(np.float16), "BF16": ElementType.bf16.numpy,
    "F64": np.dtype(np.float64), "I64": np.dtype(np.int64), "I32": np.dtype(np.int32),
    "I16": np.dtype(np.int16), "I8": np.dtype(np.int8), "U8": np.dtype(np.uint8), "BOOL": np.dtype(np.bool_),
}


def is_checkpoint_folder(path: Path) -> bool:
    """A directory holding ``config.json`` and safetensors weights (or their index)."""
    if not path.is_dir() or not (path / CONFIG).is_file():
        return False
    return (path / INDEX).is_file() or any(path.glob("*.safetensors"))


@dataclass(frozen=True)
class TensorEntry:
    file: Path
    dtype: np.dtype
    shape: tuple[int, ...]
    start: int  # absolute byte offset in the file
    end: int


@dataclass
class Checkpoint:
    """The folder's configuration and where each of its tensors is."""

    folder: Path
    config: dict[str, Any]
    entries: dict[str, TensorEntry]
    _maps: dict[Path, np.memmap] = field(default_factory=dict, repr=False)

    @classmethod
    def open(cls, folder: Path) -> Checkpoint:
        config = _read_json(folder / CONFIG)
        entries: dict[str, TensorEntry] = {}
        for file in _shard_files(folder):
            entries.update(_header(file))
        return cls(folder, config, entries)

    def array(self, key: str) -> np.ndarray:
        """Tensor ``key`` as a read-only view of its file's memory map."""
        entry = self.entries[key]
        whole = self._maps.get(entry.file)
        if whole is None:
            whole = self._maps[entry.file] = np.memmap(entry.file, dtype=np.uint8, mode="r")
        count = int(np.prod(entry.shape, dtype=np.int64))
        return whole[entry.start : entry.end].view(entry.dtype)[:count].reshape(entry.shape)

    def nbytes(self) -> int:
        return sum(e.end - e.start for e in self.entries.values())


def _read_json(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"cannot read {path}: {exc}") from None
    if not isinstance(value, dict):
        raise ModelFileError(f"{path} is not a JSON object")
    return value


def _shard_files(folder: Path) -> list[Path]:
    """The safetensors files of the checkpoint: those its index names (each must exist),
    or every ``*.safetensors`` of the folder when there is no index."""
    index = folder / INDEX
    if not index.is_file():
        return sorted(folder.glob("*.safetensors"))
    weight_map = _read_json(index).get("weight_map")
    if not isinstance(weight_map, dict) or not weight_map:
        raise ModelFileError(f"{index} has no weight_map naming the checkpoint's shards")
    names = sorted(set(weight_map.values()))
    missing = [name for name in names if not (folder / name).is_file()]
    if missing:
        raise UserError(f"{folder}: {len(missing)} of the {len(names)} safetensors shards named by {INDEX} "
                        f"are missing ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}); "
                        "download or copy the whole checkpoint")
    return [folder / name for name in names]


def _header(file: Path) -> dict[str, TensorEntry]:
    try:
        with open(file, "rb") as f:
            head = f.read(8)
            (length,) = struct.unpack("<Q", head) if len(head) == 8 else (None,)
            size = file.stat().st_size
            if length is None or length > size - 8:
                raise ModelFileError(f"{file} is not a safetensors file (truncated or bad header)")
            header = json.loads(f.read(length))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"cannot read {file} as safetensors: {exc}") from None
    base = 8 + length
    entries = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ModelFileError(f"{file}: tensor {quoted(key)} has dtype {info.get('dtype')}, which irconv does not read")
        start, end = (base + int(o) for o in info["data_offsets"])
        if end > size:
            raise ModelFileError(f"{file} is truncated: tensor {quoted(key)} ends at byte {end} of {size}")
        entries[key] = TensorEntry(file, dtype, tuple(int(d) for d in info["shape"]), start, end)
    return entries
