"""The loader of Hugging Face checkpoint folders (see the package docstring)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from irconv import MODEL_FOLDER, Graph, LoadContext, ModelFolder
from irconv.errors import UserError

from irconv_llm.huggingface.architectures import (
    FEATURE_EXTRACTION,
    TEXT_GENERATION_WITH_PAST,
    default_task,
    model_class,
)
from irconv_llm.huggingface.checkpoint import Checkpoint
from irconv_llm.huggingface.companions import MODEL_FILE, write_companions
from irconv_llm.options import MAKE_STATEFUL, TASK


def load_folder(path: Path, ctx: LoadContext) -> Graph:
    """The graph of the checkpoint in ``path``, its weights memory-mapped, with what its
    output folder holds besides the IR."""
    _require("torch", "transformers", "irconv_torch")
    checkpoint = Checkpoint.open(path)
    task = ctx.options.get(TASK) or default_task(checkpoint.config, str(path))
    cls = model_class(checkpoint.config, task, str(path))

    from irconv_torch.load import load_object
    from irconv_transforms.weight_compression.early import EARLY_QUANTIZATIONS
    from transformers import AutoConfig

    from irconv_llm.huggingface import dense_experts
    from irconv_llm.huggingface.early_quantization import start_early_quantization
    from irconv_llm.huggingface.trace import empty_model, export_decoder, export_encoder, parameter_aliases
    from irconv_llm.huggingface.weights import attach_weights

    config = AutoConfig.from_pretrained(str(path), local_files_only=True)
    early = None
    try:
        with dense_experts.registered():  # mixture-of-experts layers as every expert on every token
            model = empty_model(cls, config)
            aliases = parameter_aliases(model)
            early = start_early_quantization(model, aliases, checkpoint, ctx)  # on another core, while tracing
            if task == FEATURE_EXTRACTION:
                program = export_encoder(model)
            else:
                program, _ = export_decoder(model, task)
        graph = load_object(program, ctx)
        attach_weights(graph, program, model, aliases, checkpoint)
    except BaseException:
        if early is not None:
            early.finish()  # the worker ends; its results are dropped
        raise
    if early is not None:
        graph.meta[EARLY_QUANTIZATIONS] = early
    graph.name = path.name
    _any_size_inputs(graph)
    _name_outputs(graph, task)
    if task == TEXT_GENERATION_WITH_PAST:
        graph.meta[MAKE_STATEFUL] = True
    graph.meta[MODEL_FOLDER] = ModelFolder(MODEL_FILE, functools.partial(_companions, path, task))
    return graph


def _companions(source: Path, task: str, folder: Path, ctx: Any) -> None:
    write_companions(source, folder, ctx, detokenizer=task != FEATURE_EXTRACTION)


def _any_size_inputs(graph: Graph) -> None:
    """The inputs' dynamic dims without lower bounds. torch.export traces each dynamic dim as
    at least 2 and derives bounds from that (the attention mask at least past + new = 4 long),
    but the folder's model takes any batch and any prompt, a single token included."""
    from dataclasses import replace

    for node in graph.parameters():
        if getattr(node.op, "bounds", None) is not None:
            node.op = replace(node.op, bounds=None)


def _name_outputs(graph: Graph, task: str) -> None:
    """The names OpenVINO GenAI reads: ``logits`` (``last_hidden_state`` for an encoder),
    and Hugging Face's names for the cache inputs (the variables' ids once stateful)."""
    results = graph.results()
    first = results[0].in_port(0).get_source()
    assert first is not None
    first.data.names[:] = ["last_hidden_state" if task == FEATURE_EXTRACTION else "logits"]  # not the node's
    for node in graph.parameters():
        names = node.out_port(0).data.names
        name = names[0] if names else node.name
        if name.startswith("past_"):
            index = int(name.rsplit("_", 1)[1])
            names[:] = [f"past_key_values.{index // 2}.{'key' if index % 2 == 0 else 'value'}"]


def _require(*modules: str) -> None:
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise UserError(f"converting a Hugging Face checkpoint needs {', '.join(missing)}: "
                        "pip install irconv-llm[huggingface] irconv-torch[torch]")
