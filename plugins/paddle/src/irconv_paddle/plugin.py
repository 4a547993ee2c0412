"""Hook implementations of irconv-paddle: the Paddle loader (legacy and PIR programs) and extractors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from irconv.plugins import Extractor, Loader, hookimpl

if TYPE_CHECKING:
    from irconv import LoadContext
    from irconv.graph import Graph


def _load(path: Path, ctx: LoadContext) -> Graph:
    from irconv_paddle.loader import load_paddle

    return load_paddle(path, ctx)


def _sniff(path: Path) -> bool:
    from irconv_paddle.sniff import looks_like_paddle

    return looks_like_paddle(path)


@hookimpl
def load_model() -> list[Loader]:
    return [Loader("paddle", _load, suffixes=(".pdmodel", ".json"), sniff=_sniff,
                   description="Paddle inference programs: <prefix>.pdmodel or PIR <prefix>.json, "
                               "with <prefix>.pdiparams")]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, "paddle", "irconv_paddle.extractors")
