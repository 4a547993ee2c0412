"""Hook implementations of irconv-jax: the StableHLO loader and its extractors. jax is
imported only when a JAX program is converted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import LoadContext
from irconv.graph import Graph
from irconv.plugins import Extractor, InstallHint, Loader, hookimpl


def _load(model: Any, ctx: LoadContext, **keywords: Any) -> Graph:
    if isinstance(model, Path):
        from irconv_jax.load import load_file

        return load_file(model, ctx)
    from irconv_jax.load import load_object

    return load_object(model, ctx, **keywords)


def _accepts(model: Any) -> bool:
    from irconv_jax.load import accepts

    return accepts(model)


def _sniff(path: Path) -> bool:
    from irconv_jax.sniff import looks_like_jax_export

    return looks_like_jax_export(path)


@hookimpl
def load_model() -> list[Loader]:
    from irconv_jax.load import OBJECT_KEYWORDS
    from irconv_jax.sniff import SUFFIXES

    return [Loader("jax", _load, suffixes=SUFFIXES, sniff=_sniff, accepts_object=_accepts,
                   object_keywords=OBJECT_KEYWORDS, aliases=("flax", "stablehlo"),
                   description="JAX: jax.export artifacts (.jaxexport), JAX functions, bound Flax modules")]


@hookimpl
def extract_op(framework: str | None) -> list[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, "jax", "irconv_jax.extractors")


@hookimpl
def verify_model() -> list[object]:
    """jax itself as the reference for ``irconv convert --verify`` (see irconv_jax.verify)."""
    from irconv_jax.verify import VERIFIER

    return [VERIFIER]


@hookimpl
def declare_hints() -> list[InstallHint]:
    return [InstallHint("irconv-jax", frameworks=("jax",), suffixes=(".jaxexport",),
                        description="JAX programs (jax.export, Flax)")]
