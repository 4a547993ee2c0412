"""The checkpoint's weight matrices quantized while ``torch.export`` traces the model.

The trace keeps one core busy (seconds for a small model, tens of seconds for a large
one) before there is a graph; the weight matrices are known already: each linear layer's
``[out, in]`` weight and the embedding tables, memory-mapped from the safetensors files.
With a data-free ``--weight-format`` (no ``--dataset``, ``--ratio`` 1), their quantization
starts on another core under the schemes ``compress.weights`` gives such layers (the
embeddings in int8 under a 4-bit format, as it keeps them unless ``--all-layers``), read
the way the graph will read them (``weights.widened``). ``compress.weights`` takes each one
a site reads unchanged and computes the rest as usual (see
``irconv_transforms.weight_compression.early``): the IR is the same either way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from irconv import LoadContext
from irconv.ops import DeferredConst
from irconv.types import ElementType
from irconv_transforms.weight_compression.compress_weights import BACKUP, primary_scheme, scale_dtype_for
from irconv_transforms.weight_compression.early import EarlyQuantizations, MappedMatrix
from irconv_transforms.weight_compression.options import ALL_LAYERS, GROUP_SIZE, RATIO, WEIGHT_FORMAT
from irconv_transforms.weight_compression.quantize import Scheme, Weights

from irconv_llm.huggingface.checkpoint import Checkpoint
from irconv_llm.huggingface.weights import checkpoint_key, checkpoint_keys, widened
from irconv_llm.options import DATASET


def start_early_quantization(
    model: Any, aliases: dict[str, list[str]], checkpoint: Checkpoint, ctx: LoadContext
) -> EarlyQuantizations | None:
    """The quantizations of ``model``'s linear and embedding weights started, or None when
    the options leave them to the activations (``--dataset``) or to a choice between
    schemes (``--ratio``), or compress nothing."""
    weight_format = ctx.options.get(WEIGHT_FORMAT)
    if weight_format is None or ctx.options.get(DATASET) is not None or ctx.options.get(RATIO) < 1.0:
        return None
    primary = primary_scheme(weight_format, ctx.options.get(GROUP_SIZE))
    embedding_scheme = BACKUP if primary.bits == 4 and not ctx.options.get(ALL_LAYERS) else primary
    matrices = _matrices(model, aliases, checkpoint, primary, embedding_scheme)
    if not matrices:
        return None
    return EarlyQuantizations.start(matrices, scale_dtype_for(ElementType.f32, ctx.options.compress_to_fp16))


def _matrices(
    model: Any, aliases: dict[str, list[str]], checkpoint: Checkpoint, primary: Scheme, embedding_scheme: Scheme
) -> list[tuple[Weights, MappedMatrix, Scheme]]:
    """Each linear layer's and embedding's weights as the graph will read them, where the
    file holds them, and the scheme they are expected to take, in the model's order."""
    import torch

    embeddings = {id(module) for module in (model.get_input_embeddings(), model.get_output_embeddings())}
    keys, _ = checkpoint_keys(model, checkpoint)
    found: list[tuple[Weights, MappedMatrix, Scheme]] = []
    for name, module in model.named_modules():
        embedding = id(module) in embeddings
        if not (embedding or isinstance(module, torch.nn.Linear)) or getattr(module, "weight", None) is None:
            continue
        key = checkpoint_key(f"{name}.weight", aliases, keys)
        entry = None if key is None else checkpoint.entries[key]
        if key is None or entry is None or len(entry.shape) != 2:
            continue
        weights = _as_read(checkpoint.array(key), np.dtype(np.float32))
        if weights is None:
            continue
        stored = ElementType.from_numpy(entry.dtype)
        read_as = None if stored is ElementType.f32 else ElementType.f32
        mapped = MappedMatrix(entry.file, entry.start, (entry.shape[0], entry.shape[1]), stored, read_as)
        found.append((weights, mapped, embedding_scheme if embedding else primary))
    return found


def _as_read(value: np.ndarray, dtype: np.dtype) -> Weights | None:
    """``value`` as the graph's constant holds it (``weights.widened``), or None where that
    is a copy made at once (a small matrix: no quantization of it could be matched)."""
    if value.dtype == dtype:
        return value
    op = widened(value, dtype)
    return op.stored if isinstance(op, DeferredConst) else None
