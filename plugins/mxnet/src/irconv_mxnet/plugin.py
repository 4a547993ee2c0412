"""Hook implementations of irconv-mxnet: the MXNet loader, its option and extractors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from irconv.plugins import Extractor, Loader, Option, hookimpl

if TYPE_CHECKING:
    from irconv import LoadContext
    from irconv.graph import Graph


def _load(path: Path, ctx: LoadContext) -> Graph:
    from irconv_mxnet.loader import load_mxnet

    return load_mxnet(path, ctx)


def _sniff(path: Path) -> bool:
    from irconv_mxnet.sniff import looks_like_mxnet

    return looks_like_mxnet(path)


@hookimpl
def declare_options() -> list[Option[Any]]:
    from irconv_mxnet.options import EPOCH

    return [EPOCH]


@hookimpl
def load_model() -> list[Loader]:
    return [
        Loader(
            framework="mxnet",
            load=_load,
            suffixes=(".json", ".params"),
            sniff=_sniff,
            description="MXNet <prefix>-symbol.json + <prefix>-NNNN.params (HybridBlock.export, checkpoints)",
        )
    ]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, "mxnet", "irconv_mxnet.extractors")
