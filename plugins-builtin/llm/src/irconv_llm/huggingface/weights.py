"""The program's weights taken from the checkpoint's memory-mapped safetensors.

The traced program names each weight after the module path (``model.layers.0.mlp.up_proj.weight``);
the checkpoint names it the same, or under another name of the same tensor (a tied
language-model head is stored once, as the embedding), or without the base model's prefix.
A weight stored in f16 or bf16 is widened to the model's f32 when it is read, block by block
(a ``DeferredConst``): the writer and the weight compression read it that way, and nothing
holds a whole widened matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from irconv import Graph
from irconv.errors import ModelFileError, quoted
from irconv.narrow_float import widen
from irconv.ops import Const, DeferredConst, DeferredProduct
from irconv.ops.deferred import DEFER_MIN_BYTES

from irconv_llm.huggingface.checkpoint import Checkpoint

#: The prefix the tracing wrapper adds to the model's names (its attribute ``model``).
WRAPPED = "model."


def widened(value: np.ndarray, dtype: np.dtype) -> Const:
    """A Const of ``value`` read as ``dtype``: itself when it has that type, computed at once
    when small, else deferred (widened block by block when read, its mapped pages released)."""
    if value.dtype == dtype:
        return Const(value)
    if value.nbytes < DEFER_MIN_BYTES:
        return Const(widen(np.asarray(value)).astype(dtype))
    return DeferredConst(pending=DeferredProduct.widened(value, dtype))


@dataclass
class Merged:
    """A model weight transformers makes of several checkpoint tensors (experts stored one
    by one, loaded as one stacked matrix): its converter and the keys by source pattern."""

    converter: Any
    keys: dict[str, list[str]] = field(default_factory=dict)


def checkpoint_keys(model: Any, checkpoint: Checkpoint) -> tuple[dict[str, str], dict[str, Merged]]:
    """The checkpoint's key of each of ``model``'s weights by the model's name, and the
    weights transformers merges from several keys.

    transformers renames some checkpoint keys when it loads them (GPT-NeoX's ``embed_out`` is
    its ``lm_head``; a base model's keys lack the head's prefix) and merges others (Mixtral's
    experts): its own rules are applied here."""
    from transformers.conversion_mapping import get_model_conversion_mapping
    from transformers.core_model_loading import WeightConverter, WeightRenaming, rename_source_key

    transforms = get_model_conversion_mapping(model)
    renamings = [t for t in transforms if isinstance(t, WeightRenaming)]
    converters = [t for t in transforms if isinstance(t, WeightConverter)]
    names = dict.fromkeys(model.state_dict())
    found: dict[str, str] = {}
    merged: dict[str, Merged] = {}
    for key in checkpoint.entries:
        name, pattern = rename_source_key(key, renamings, converters, model.base_model_prefix, names)
        if pattern is None:
            found.setdefault(name, key)
            continue
        converter = next(c for c in converters if pattern in c.source_patterns)
        merged.setdefault(name, Merged(converter)).keys.setdefault(pattern, []).append(key)
    return found, merged


def merged_value(merged: Merged, checkpoint: Checkpoint) -> np.ndarray:
    """The weight transformers' converter makes of the checkpoint tensors (computed whole:
    merged weights are not streamed)."""
    import torch
    from transformers.core_model_loading import dot_natural_key

    converter = merged.converter
    tensors: dict[str, Any] = {pattern: [_as_torch(checkpoint.array(k)) for k in sorted(keys, key=dot_natural_key)]
               for pattern, keys in merged.keys.items()}
    for operation in converter.operations:
        tensors = operation.convert(tensors, source_patterns=converter.source_patterns,
                                    target_patterns=converter.target_patterns)
    (value,) = tensors.values()
    result: np.ndarray = value.to(torch.float32).numpy()
    return result


def _as_torch(array: np.ndarray) -> Any:
    import torch

    if array.dtype.itemsize == 2 and array.dtype.kind not in "fiu":  # bf16, which NumPy lacks
        return torch.from_numpy(np.array(array).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.array(array))


def checkpoint_key(name: str, aliases: dict[str, list[str]], keys: dict[str, str]) -> str | None:
    """The checkpoint's key for the model's weight ``name`` (or another name of the same tensor)."""
    for candidate in aliases.get(name, [name]):
        if candidate in keys:
            return keys[candidate]
    return None


def _set_value(node: Any, value: np.ndarray, key: str, checkpoint: Checkpoint) -> None:
    """The stand-in Const ``node`` takes ``value`` (its shape, in the stand-in's type)."""
    old = node.op
    assert isinstance(old, Const)
    expected = old.value.shape
    if tuple(value.shape) != tuple(expected):
        raise ModelFileError(f"{checkpoint.folder}: tensor {quoted(key)} has shape {list(value.shape)}, "
                             f"the model's {quoted(node.name)} {list(expected)} (config.json and weights disagree)")
    node.op = widened(value, old.value.dtype)
    node.op.infer(node)


def attach_weights(graph: Graph, program: Any, model: Any, aliases: dict[str, list[str]],
                   checkpoint: Checkpoint) -> int:
    """Every parameter (and stored buffer) Const of ``graph`` read from ``checkpoint``;
    returns how many. A parameter the checkpoint lacks is an error naming it."""
    from torch.export.graph_signature import InputKind

    keys, merged = checkpoint_keys(model, checkpoint)
    missing: list[str] = []
    attached = 0
    for spec in program.graph_signature.input_specs:
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER) or spec.target is None:
            continue
        name = spec.target.removeprefix(WRAPPED)
        key = checkpoint_key(name, aliases, keys)
        if key is None and name in merged and graph.has_node(spec.target):
            _set_value(graph.node(spec.target), merged_value(merged[name], checkpoint), name, checkpoint)
            attached += 1
            continue
        if key is None:
            if spec.kind == InputKind.PARAMETER:
                missing.append(spec.target)
            continue  # a buffer the model computes itself (rotary frequencies)
        if not graph.has_node(spec.target):
            continue  # not used by the traced computation
        _set_value(graph.node(spec.target), checkpoint.array(key), key, checkpoint)
        attached += 1
    if missing:
        raise ModelFileError(f"{checkpoint.folder}: the safetensors files lack {len(missing)} weight(s) of the model "
                             f"({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}); the checkpoint is "
                             "incomplete or does not match config.json")
    return attached
