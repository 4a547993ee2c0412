"""The front-end vocabulary: what every extractor, in every front end, is written with.

- registration: ``extractor(framework, op, fn, versions=, domain=, produces=[OpClass])``
  (also a decorator), ``aliases`` for ops sharing a function, ``collect`` for a module's
  records, ``extractors_of`` for a plugin's ``extract_op`` hook; ``ExtractFn``, the type of an
  extract function (what a factory of them returns);
- attributes: ``ctx.attrs`` (an ``AttributeReader``) with typed readers and one error
  shape, ``AttributeValueError``;
- constants, axes, ranks, broadcasting: ``i64``, ``i32``, ``f32``, ``typed``,
  ``const_like``, ``numpy_dtype``, ``input_constant``, ``input_scalar``, ``input_vector``, ``require_rank``,
  ``normalize_axis``, ``normalize_axes``, ``per_axis``;
- model files: ``opens_like`` for a loader's ``sniff``;
- a tensor's constant value: ``ctx.input_value(i)`` for an extractor's inputs,
  ``port.constant(shape_derived=...)`` everywhere else.

Graph-building helpers made of opset ops (``shape_of``, ``rank_of``, ``axes_from``, ...)
are in ``irconv_opset.build``.
"""

from __future__ import annotations

from irconv.contract.attributes import AttributeReader, AttributeValueError
from irconv.contract.records import ExtractFn
from irconv.frontend.files import opens_like
from irconv.frontend.helpers import (
    const_like,
    f32,
    i32,
    i64,
    input_constant,
    input_scalar,
    input_vector,
    normalize_axes,
    normalize_axis,
    numpy_dtype,
    per_axis,
    require_rank,
    typed,
)
from irconv.frontend.registration import Versions, aliases, collect, extractor, extractors_of, version_range

__all__ = [
    "AttributeReader",
    "AttributeValueError",
    "ExtractFn",
    "Versions",
    "aliases",
    "collect",
    "const_like",
    "extractor",
    "extractors_of",
    "f32",
    "i32",
    "i64",
    "input_constant",
    "input_scalar",
    "input_vector",
    "normalize_axes",
    "normalize_axis",
    "numpy_dtype",
    "opens_like",
    "per_axis",
    "require_rank",
    "typed",
    "version_range",
]
