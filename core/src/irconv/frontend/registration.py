"""The one way a front end declares an extractor: ``extractor(framework, op, ...)``.

Used as a factory it returns the ``Extractor`` record at once::

    extractor("onnx", "Relu", lambda node, ctx: Relu(), produces=[Relu])

and as a decorator it turns the function into the record (which stays callable, so other
extractors can still call it)::

    @extractor("onnx", "Conv", versions=(1, None), produces=[Convolution, GroupConvolution])
    def conv(node: Node, ctx: ExtractContext) -> Op: ...

A module of extractors lists its records with ``collect(module)`` (every ``Extractor`` at
module level, in definition order) or returns an explicit list.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, overload

from irconv.contract.records import NEWEST, ExtractFn, Extractor, Produces

if TYPE_CHECKING:
    from irconv.ops import Op

Versions = tuple[int, "int | None"] | range | int


def version_range(versions: Versions) -> range:
    """``(13, None)``: 13 and newer; ``(1, 12)``: 1..12; ``7``: only 7; a ``range`` as it is."""
    if isinstance(versions, range):
        return versions
    if isinstance(versions, int):
        return range(versions, versions + 1)
    first, last = versions
    return range(first, (NEWEST if last is None else last) + 1)


@overload
def extractor(framework: str, op: str, extract: ExtractFn, *, versions: Versions = ..., domain: str = ...,
              produces: Sequence[type[Op]] = ...) -> Extractor: ...


@overload
def extractor(framework: str, op: str, extract: None = ..., *, versions: Versions = ..., domain: str = ...,
              produces: Sequence[type[Op]] = ...) -> Callable[[ExtractFn], Extractor]: ...


def extractor(
    framework: str,
    op: str,
    extract: ExtractFn | None = None,
    *,
    versions: Versions = (1, None),
    domain: str = "",
    produces: Sequence[type[Op]] = (),
) -> Extractor | Callable[[ExtractFn], Extractor]:
    """The record for ``framework``'s ``op`` in ``domain``, for the framework versions
    ``versions`` (ONNX: opsets of the domain; others: what their loader puts in
    ``SourceOp.opset_version``), producing the op classes ``produces`` (checked against the
    declared ops when the registry is built)."""
    span = version_range(versions)
    made: Produces = tuple(produces)

    def make(fn: ExtractFn) -> Extractor:
        return Extractor(framework, op, fn, domain=domain, opsets=span, produces=made)

    return make if extract is None else make(extract)


def aliases(framework: str, ops: Iterable[str], extract: ExtractFn, *, versions: Versions = (1, None),
            domain: str = "", produces: Sequence[type[Op]] = ()) -> list[Extractor]:
    """One record per name for ops that share an extractor (aliases, a family of unary ops)."""
    return [extractor(framework, name, extract, versions=versions, domain=domain, produces=produces)
            for name in ops]


def collect(*modules: ModuleType) -> list[Extractor]:
    """Every ``Extractor`` (or list of them) bound at module level in ``modules``, in order,
    each once. A record imported from another module counts too: import modules, not records."""
    found: dict[int, Extractor] = {}
    for module in modules:
        for value in vars(module).values():
            for record in _records(value):
                found.setdefault(id(record), record)
    return list(found.values())


def extractors_of(asked: str | None, framework: str, module: str) -> list[Extractor]:
    """A front end's ``extract_op`` answer: ``module.all_extractors()`` when ``asked`` is
    ``framework`` or None (every framework, as ``irconv ops`` asks). For another
    framework's conversion it is empty and ``module`` stays unimported."""
    if asked not in (None, framework):
        return []
    return list(importlib.import_module(module).all_extractors())


def _records(value: Any) -> list[Extractor]:
    if isinstance(value, Extractor):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Extractor) for v in value):
        return list(value)
    return []
