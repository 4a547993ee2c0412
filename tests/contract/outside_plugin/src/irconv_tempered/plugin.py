"""Hook implementations of irconv-tempered: records only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irconv import Extractor, Option, Transform, hookimpl


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_tempered.options import LOG

    return [LOG]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    if framework not in (None, "onnx"):
        return []
    from irconv.frontend import collect

    from irconv_tempered import extractors

    return collect(extractors)


@hookimpl
def middle_transform() -> list[Transform]:
    from irconv_tempered.merge_divisions import MergeDivisions

    return [MergeDivisions()]
