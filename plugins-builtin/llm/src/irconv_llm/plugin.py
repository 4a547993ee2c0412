"""Hook implementations of irconv-llm: options, and the decoder transforms (weight compression
is irconv-transforms'; ``--dataset`` measures the activations it weights by)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irconv import Option
from irconv.plugins import Loader, Transform, hookimpl


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_llm.options import OPTIONS

    return OPTIONS


def _load_checkpoint_folder(path: Any, ctx: Any) -> Any:
    from irconv_llm.huggingface.load import load_folder

    return load_folder(path, ctx)


def _is_checkpoint_folder(path: Any) -> bool:
    from irconv_llm.huggingface.checkpoint import is_checkpoint_folder

    return is_checkpoint_folder(path)


@hookimpl
def load_model() -> list[Loader]:
    return [Loader("huggingface", _load_checkpoint_folder, sniff=_is_checkpoint_folder, aliases=("hf", "transformers"),
                   description="Hugging Face checkpoint folders (config.json + safetensors) -> an OpenVINO GenAI folder")]


@hookimpl
def middle_transform() -> list[Transform]:
    from irconv_llm.drop_empty_concat_operands import DropEmptyConcatOperands
    from irconv_llm.drop_whole_slices import DropWholeSlices
    from irconv_llm.fuse_folded_heads_attention import FuseFoldedHeadsAttention
    from irconv_llm.fuse_split_scale_attention import FuseSplitScaleAttention
    from irconv_llm.gather_as_vector import GatherAsVector
    from irconv_llm.index_by_ranges_as_slice import IndexByRangesAsSlice
    from irconv_llm.rotate_half_form import RotateHalfForm

    return [DropEmptyConcatOperands(), DropWholeSlices(), FuseFoldedHeadsAttention(), FuseSplitScaleAttention(), GatherAsVector(),
            IndexByRangesAsSlice(), RotateHalfForm()]


@hookimpl
def back_transform() -> list[Transform]:
    from irconv_llm.alibi_bias_form import AlibiBiasForm
    from irconv_llm.make_stateful import MakeStateful
    from irconv_llm.measure_activations import MeasureActivations
    from irconv_llm.subtract_constant_as_add import SubtractConstantAsAdd

    return [AlibiBiasForm(), MakeStateful(), MeasureActivations(), SubtractConstantAsAdd()]
