"""Helpers for the irconv-prep transform tests: options as the CLI resolves them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def options(**kwargs: Any) -> Any:
    from irconv import ConversionOptions
    from irconv.plugins import OptionTable
    from irconv_prep.options import OPTIONS

    table = OptionTable()
    for option in OPTIONS:
        table.add(option, "irconv-prep")
    return ConversionOptions.from_kwargs(table, **kwargs).resolved(table)


@pytest.fixture
def make_options() -> Callable[..., Any]:
    return options
