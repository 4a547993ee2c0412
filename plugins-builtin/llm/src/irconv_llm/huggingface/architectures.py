"""Which checkpoints irconv converts, by the architecture ``config.json`` names, and for which task."""

from __future__ import annotations

from typing import Any

from irconv.errors import UserError, shortened

from irconv_llm.options import TASKS

TEXT_GENERATION_WITH_PAST, TEXT_GENERATION, FEATURE_EXTRACTION = TASKS

#: Decoder-only causal LMs, by transformers' class name; each is traced as transformers defines it.
CAUSAL_LMS = (
    "LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", "Phi3ForCausalLM",
    "GemmaForCausalLM", "Gemma2ForCausalLM", "Gemma3ForCausalLM", "GPT2LMHeadModel", "GPTNeoXForCausalLM",
    "FalconForCausalLM", "OPTForCausalLM", "BloomForCausalLM", "StableLmForCausalLM", "Starcoder2ForCausalLM",
    "OlmoForCausalLM", "MixtralForCausalLM", "Qwen2MoeForCausalLM",
)
#: Encoders whose last hidden state is the embedding (BERT-style), by the model type.
ENCODER_TYPES = ("bert", "roberta", "xlm-roberta", "distilbert")


def architecture(config: dict[str, Any], folder: str) -> str:
    names = config.get("architectures") or []
    if not names or not isinstance(names[0], str):
        raise UserError(f"{folder}/config.json names no architecture (an 'architectures' list); "
                        "irconv reads checkpoints saved by transformers' save_pretrained")
    return str(names[0])


def default_task(config: dict[str, Any], folder: str) -> str:
    if config.get("model_type") in ENCODER_TYPES:
        return FEATURE_EXTRACTION
    return TEXT_GENERATION_WITH_PAST


def model_class(config: dict[str, Any], task: str, folder: str) -> Any:
    """transformers' class for the checkpoint and ``task``; a one-line error for one not covered."""
    import transformers

    name = architecture(config, folder)
    if task == FEATURE_EXTRACTION:
        model_type = config.get("model_type")
        if model_type not in ENCODER_TYPES:
            raise UserError(f"{folder}: --task {task} converts the encoders {', '.join(ENCODER_TYPES)}, "
                            f"not model type {shortened(repr(model_type))} ({name})")
        return transformers.AutoModel
    if name not in CAUSAL_LMS:
        raise UserError(f"{folder}: architecture {name} is not one irconv converts for --task {task} "
                        f"(decoder-only causal LMs: {', '.join(CAUSAL_LMS)})")
    found = getattr(transformers, name, None)
    if found is None:
        raise UserError(f"{folder}: architecture {name} is not in the installed transformers "
                        f"{transformers.__version__}; upgrade transformers")
    return found
