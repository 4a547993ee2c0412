"""Hook implementations of irconv-torch: the torch.export loader, ATen extractors, the
torch reference for ``--verify``. torch is imported only when a PyTorch model is converted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import LoadContext
from irconv.graph import Graph
from irconv.plugins import Extractor, InstallHint, Loader, hookimpl


def _load(model: Any, ctx: LoadContext, **keywords: Any) -> Graph:
    if isinstance(model, Path):
        from irconv_torch.load import load_file

        return load_file(model, ctx)
    from irconv_torch.load import load_object

    return load_object(model, ctx, **keywords)


def _accepts(model: Any) -> bool:
    from irconv_torch.load import accepts

    return accepts(model)


def _sniff(path: Path) -> bool:
    from irconv_torch.sniff import looks_like_pt2

    return looks_like_pt2(path)


@hookimpl
def load_model() -> list[Loader]:
    from irconv_torch.load import OBJECT_KEYWORDS

    return [Loader("torch", _load, suffixes=(".pt2",), sniff=_sniff, accepts_object=_accepts,
                   object_keywords=OBJECT_KEYWORDS, aliases=("pytorch",),
                   description="PyTorch: torch.export archives (.pt2), torch.nn.Module, ExportedProgram")]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, "torch", "irconv_torch.extractors")


@hookimpl
def verify_model() -> list[object]:
    """torch itself as the reference for ``irconv convert --verify`` (see irconv_torch.verify)."""
    from irconv_torch.verify import VERIFIER

    return [VERIFIER]


@hookimpl
def declare_hints() -> list[InstallHint]:
    return [InstallHint("irconv-torch", frameworks=("torch",), suffixes=(".pt2",),
                        description="PyTorch programs (torch.export)")]
