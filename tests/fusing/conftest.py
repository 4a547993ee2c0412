"""End-to-end checks for the fusions: the fused IR computes what the unfused IR computes.

Each check builds the same small graph twice, runs one transform on one copy, emits both
as IR and runs them side by side in OpenVINO on the same random inputs (the unfused graph
is the reference: it is written with the plain opset ops the fusion removes). Checks that
a fusion must not fire compare the graph structurally with an untouched copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv import ConversionOptions, Graph, Parameter, Transform
from irconv.testing import assert_graphs_equal, run_transform
from irconv.testing.runtime import emit_ir, run_ir

Factory = Callable[[], Graph]


def random_inputs(graph: Graph, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    feed = {}
    for node in graph.parameters():
        shape = node.out_port(0).data.shape
        assert isinstance(node.op, Parameter) and shape is not None and all(d is not None for d in shape)
        feed[node.name] = rng.standard_normal(shape).astype(node.op.element_type.numpy)
    return feed


def _run(graph: Graph, path: Path, feed: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run_ir(emit_ir(graph, path), dict(feed))


def check_fuses(
    factory: Factory,
    transform: Transform,
    tmp_path: Path,
    *,
    gone: tuple[str, ...] = (),
    present: tuple[str, ...] = (),
    inputs: Mapping[str, np.ndarray] | None = None,
    options: ConversionOptions | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-5,
) -> Graph:
    """Run ``transform`` on a fresh graph: it must change it, remove the op types ``gone``,
    leave ``present`` ones, and the fused IR must match the unfused IR in OpenVINO."""
    reference, fused = factory(), factory()
    assert run_transform(fused, transform, options) is True, f"{transform.id} did not fire"
    types = {n.type for n in fused.nodes()}
    assert not types & set(gone), f"{transform.id} left {sorted(types & set(gone))}"
    assert set(present) <= types, f"{transform.id}: missing {sorted(set(present) - types)} in {sorted(types)}"
    run_transform(reference, _Nothing())  # infer it the same way
    feed = dict(inputs) if inputs is not None else random_inputs(reference)
    want = _run(reference, tmp_path / "reference.xml", feed)
    got = _run(fused, tmp_path / "fused.xml", feed)
    assert want.keys() == got.keys()
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=rtol, atol=atol, err_msg=name)
    return fused


def check_untouched(factory: Factory, transform: Transform, options: ConversionOptions | None = None) -> None:
    """``transform`` must report no change and leave the graph exactly as built."""
    graph, expected = factory(), factory()
    run_transform(expected, _Nothing())
    assert run_transform(graph, transform, options) is False, f"{transform.id} fired"
    assert_graphs_equal(graph, expected)


def frozen(*names: str) -> ConversionOptions:
    """Options freezing the named nodes (``--finegrain-fusing``)."""
    return ConversionOptions(finegrain_fusing=tuple(names))


class _Nothing(Transform):
    id = "test.nothing"

    def apply(self, graph: Graph, ctx: Any) -> bool:
        return False


@pytest.fixture(name="check_fuses")
def _check_fuses_fixture(tmp_path: Path) -> Callable[..., Graph]:
    """``check_fuses(factory, transform, gone=..., present=...)`` (see ``check_fuses``)."""
    return lambda factory, transform, **kw: check_fuses(factory, transform, tmp_path, **kw)


@pytest.fixture(name="check_untouched")
def _check_untouched_fixture() -> Callable[..., None]:
    return check_untouched


@pytest.fixture(name="frozen")
def _frozen_fixture() -> Callable[..., ConversionOptions]:
    return frozen
