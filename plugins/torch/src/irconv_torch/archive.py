"""Reading a ``.pt2`` file (``torch.export.save``) without running code from it.

``torch.export.load`` unpickles with ``weights_only=False`` in three places: tensors the
archive stores pickled, the example inputs (after ``weights_only=True`` fails), and custom
or opaque object constants. A pickle can run any code, so this reader takes the archive
apart itself: the program is JSON, raw weights are byte records, a pickled tensor is read
with ``torch.load(..., weights_only=True)`` (tensors only), example inputs are never read,
and object constants and the legacy pickled weight files are refused.
"""

from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path
from typing import Any

from irconv.errors import ModelFileError, quoted, shortened
from irconv.graph.budget import check_weight_bytes

from irconv_torch.archive_version import WriterVersion


def load_program_file(path: Path) -> Any:
    """The ``ExportedProgram`` in the ``.pt2`` at ``path``; one clear error for a file
    that is not one, is damaged, holds several programs, or would need unpickling."""
    from torch.export.pt2_archive import _package as package
    from torch.export.pt2_archive import constants as names

    try:
        reader = package.PT2ArchiveReader(str(path))
    except Exception as exc:
        raise ModelFileError(f"{path} is not a torch.export archive (.pt2), or it is damaged: "
                             f"{_first_line(exc)}") from None
    files = reader.get_file_names()
    prefix, suffix = names.MODELS_FILENAME_FORMAT.split("{}")
    models = [f[len(prefix):-len(suffix)] for f in files if f.startswith(prefix) and f.endswith(suffix)]
    if not models:
        raise ModelFileError(f"{path} holds no exported program (no {names.MODELS_DIR}*.json); "
                             "write it with torch.export.save")
    if len(models) > 1:
        raise ModelFileError(f"{path} holds {len(models)} exported programs ({', '.join(sorted(models))}); "
                             "irconv converts an archive of one")
    (model,) = models
    try:
        document = json.loads(reader.read_bytes(names.MODELS_FILENAME_FORMAT.format(model)))
    except Exception as exc:
        raise ModelFileError(f"{path}: the exported program {shortened(repr(model))} is not valid JSON "
                             f"({type(exc).__name__}: {_first_line(exc)})") from None
    writer = WriterVersion.of(document)
    writer.check_readable(path)
    try:
        return _program(reader, package, names, model, files, document)
    except ModelFileError:
        raise
    except Exception as exc:
        raise ModelFileError(f"{path}: the exported program {shortened(repr(model))} cannot be read "
                             f"({type(exc).__name__}: {_first_line(exc)}){writer.hint()}") from None


def _program(reader: Any, package: Any, names: Any, model: str, files: list[str], document: Any) -> Any:
    from torch._export.serde import schema
    from torch._export.serde.serialize import ExportedProgramDeserializer, _dict_to_dataclass

    serialized = _dict_to_dataclass(schema.ExportedProgram, document)
    state_dict = _payloads(reader, package, names, model, files, weights=True)
    constants = _payloads(reader, package, names, model, files, weights=False)
    # b"": the example inputs are not read (torch unpickles them with weights_only=False)
    return ExportedProgramDeserializer(None).deserialize(serialized, state_dict, constants, b"")


def _payloads(reader: Any, package: Any, names: Any, model: str, files: list[str], *, weights: bool) -> dict[str, Any]:
    """The archive's weights (or tensor constants) by fully qualified name, as tensors
    over the records' bytes; a record that would need unpickling code is refused."""
    import torch

    folder = names.WEIGHTS_DIR if weights else names.CONSTANTS_DIR
    kind = "weights" if weights else "constants"
    if f"{folder}{model}.pt" in files:
        raise ModelFileError(f"the {kind} are in torch's legacy pickled format, which irconv does not unpickle; "
                             "save the program again with a current torch.export.save")
    config_name = (names.WEIGHTS_CONFIG_FILENAME_FORMAT if weights else names.CONSTANTS_CONFIG_FILENAME_FORMAT)
    config_name = config_name.format(model)
    if config_name not in files:
        return {}
    config = package._load_payload_config(reader, config_name)
    for fqn, meta in config.config.items():
        if not meta.use_pickle and meta.tensor_meta is not None:
            _check_record(reader, os.path.join(folder, meta.path_name), meta.tensor_meta, f"{kind[:-1]} {quoted(fqn)}")
    records = package._build_file_map(reader, config, folder)
    found: dict[str, Any] = {}
    for fqn, meta in config.config.items():
        if not weights and not meta.path_name.startswith(names.TENSOR_CONSTANT_FILENAME_PREFIX):
            raise ModelFileError(f"constant {quoted(fqn)} is a pickled Python object; irconv does not unpickle "
                                 "code from a model file")
        if meta.use_pickle:
            data = reader.read_bytes(os.path.join(folder, meta.path_name))
            try:
                found[fqn] = torch.load(io.BytesIO(data), weights_only=True)
            except Exception as exc:
                raise ModelFileError(f"{kind[:-1]} {quoted(fqn)} is a pickle that is not a plain tensor "
                                     f"(refused: {_first_line(exc)})") from None
            continue
        from torch._export.serde.serialize import (
            deserialize_size,
            deserialize_storage_offset,
            deserialize_stride,
        )

        tensor_meta = meta.tensor_meta
        tensor = torch.as_strided(records[meta.path_name], size=deserialize_size(tensor_meta.sizes),
                                  stride=deserialize_stride(tensor_meta.strides),
                                  storage_offset=deserialize_storage_offset(tensor_meta.storage_offset))
        found[fqn] = torch.nn.Parameter(tensor, requires_grad=False) if weights and meta.is_param else tensor
    return found


def _check_record(reader: Any, record: str, tensor_meta: Any, where: str) -> None:
    """The record holds the bytes its tensor's metadata declares (torch reads an emptied
    record as zeros of the declared shape, and would allocate them from that shape)."""
    import torch
    from torch._export.serde.serialize import (
        deserialize_scalar_type,
        deserialize_size,
        deserialize_storage_offset,
        deserialize_stride,
    )

    sizes = [_meta_int(d, where, "size") for d in deserialize_size(tensor_meta.sizes)]
    strides = [_meta_int(d, where, "stride") for d in deserialize_stride(tensor_meta.strides)]
    offset = _meta_int(deserialize_storage_offset(tensor_meta.storage_offset), where, "storage offset")
    if len(strides) != len(sizes):
        raise ModelFileError(f"{where}: {len(sizes)} sizes but {len(strides)} strides in the archive's metadata")
    unit = torch._utils._element_size(deserialize_scalar_type(tensor_meta.dtype))
    # elements of the record the view reaches: records may be shared by several views, so more is fine
    reach = 0 if 0 in sizes else offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))
    shape = sizes if reach == math.prod(sizes) else [reach]
    check_weight_bytes(where, shape, unit, reader.archive_file.get_record_size(record), at_least=True)


def _meta_int(value: Any, where: str, field: str) -> int:
    """A size, stride or offset of a stored tensor: a whole number >= 0 (weights have no symbols)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ModelFileError(f"{where}: {field} {str(value)[:60]} in the archive's metadata is not a whole number >= 0")
    return value


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
