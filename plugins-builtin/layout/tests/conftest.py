"""Helpers for the layout transform tests: run a graph on OpenVINO before and after."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv import ConversionOptions
from irconv.graph import Graph


@pytest.fixture
def run_graph(tmp_path: Path) -> Callable[[Graph, list[np.ndarray]], list[np.ndarray]]:
    """Emit ``graph`` as IR and run it on OpenVINO CPU; outputs in Result order."""
    counter = iter(range(1000))

    def run(graph: Graph, inputs: list[np.ndarray]) -> list[np.ndarray]:
        from irconv.testing import infer_graph
        from irconv.testing.runtime import emit_ir, run_ir

        infer_graph(graph)
        xml = emit_ir(copy.deepcopy(graph), tmp_path / f"g{next(counter)}.xml")
        return list(run_ir(xml, inputs).values())

    return run


def transposes(graph: Graph) -> int:
    return len(graph.by_type("Transpose"))


@pytest.fixture
def count_transposes() -> Callable[[Graph], int]:
    return transposes


def rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).uniform(-1, 1, shape).astype(np.float32)


@pytest.fixture
def random_array() -> Callable[..., np.ndarray]:
    return rand


def options(**kwargs: Any) -> ConversionOptions:
    from irconv.plugins import OptionTable
    from irconv_layout.options import OPTIONS

    table = OptionTable()
    for option in OPTIONS:
        table.add(option, "irconv-layout")
    return ConversionOptions.from_kwargs(table, **kwargs).resolved(table)


@pytest.fixture
def make_options() -> Callable[..., ConversionOptions]:
    return options
