"""Hook implementations of irconv-llm: state ops, options, and the decoder transforms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irconv import Op, Option
from irconv.plugins import Transform, hookimpl


@hookimpl
def declare_ops() -> Sequence[type[Op]]:
    from irconv_llm.state_ops import OPS

    return OPS


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_llm.options import OPTIONS

    return OPTIONS


@hookimpl
def middle_transform() -> list[Transform]:
    from irconv_llm.fuse_split_scale_attention import FuseSplitScaleAttention
    from irconv_llm.gather_as_vector import GatherAsVector
    from irconv_llm.merge_equal_ops import MergeEqualOps

    return [FuseSplitScaleAttention(), GatherAsVector(), MergeEqualOps()]


@hookimpl
def back_transform() -> list[Transform]:
    from irconv_llm.compress_weights import CompressWeights
    from irconv_llm.make_stateful import MakeStateful

    return [MakeStateful(), CompressWeights()]
