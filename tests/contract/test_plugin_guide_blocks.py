"""docs/plugin-guide.md's Python blocks run as the guide shows them, in order, in one
namespace (so later blocks use what earlier ones defined); then the guide's op, extractor,
option and transform are exercised for real. The guide's stand-in package ``irconv_myops``
("your plugin") is provided here with the option the guide declares."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from irconv import Option
from irconv.testing import GraphBuilder, infer_graph, run_extractor, run_transform

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "plugin-guide.md"
BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.S | re.M)


def blocks() -> list[str]:
    found = BLOCK.findall(GUIDE.read_text())
    return ["\n".join(line[len(indent):] for line in code.splitlines()) for indent, code in found]


@pytest.fixture
def guide(monkeypatch) -> dict[str, object]:
    """Every block executed; the namespace they built."""
    package = types.ModuleType("irconv_myops")
    options = types.ModuleType("irconv_myops.options")
    options.CLIP = Option("myops.clip", float, default=0.0, help="limit the output")  # type: ignore[attr-defined]
    package.options = options  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "irconv_myops", package)
    monkeypatch.setitem(sys.modules, "irconv_myops.options", options)
    namespace: dict[str, object] = {}
    exec("from irconv import hookimpl, MetaKey\nfrom irconv.graph import Graph\ngraph = Graph('g', 'test')\n",
         namespace)
    for i, code in enumerate(blocks()):
        try:
            exec(compile(code, f"{GUIDE.name} python block {i + 1}", "exec"), namespace)
        except Exception as exc:  # the block's own words in the failure
            pytest.fail(f"block {i + 1} of {GUIDE.name} fails: {type(exc).__name__}: {exc}\n{code}")
    return namespace


def test_the_guide_has_python_blocks():
    assert len(blocks()) >= 10


def test_every_block_runs(guide):
    assert {"Sharpen", "FuseSharpen", "extract_channel_affine", "clipped"} <= set(guide)


def test_the_guides_extractor_computes_what_its_docstring_says(guide):
    b = GraphBuilder()
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)
    (y,) = run_extractor(b, guide["extract_channel_affine"], b.const(x),  # type: ignore[arg-type]
                         attributes={"axis": 1, "scale": [1.0, 2.0, 3.0], "bias": [0.5, 0.0, -1.0]})
    b.result(y, "y")
    infer_graph(b.graph)
    expected = x * np.array([1, 2, 3], np.float32).reshape(3, 1, 1) + np.array([0.5, 0, -1], np.float32).reshape(3, 1, 1)
    np.testing.assert_allclose(y.data.get_value(), expected)


def test_the_guides_fusion_multiplies_the_factors(guide):
    sharpen, fuse = guide["Sharpen"], guide["FuseSharpen"]
    b = GraphBuilder()
    inner = b.op(sharpen(factor=2.0), b.parameter("x", (4,)), name="inner")  # type: ignore[operator]
    b.result(b.op(sharpen(factor=3.0), inner, name="outer"), "y")  # type: ignore[operator]
    assert run_transform(b.graph, fuse())  # type: ignore[operator]
    (left,) = [n for n in b.graph.nodes() if n.type == "Sharpen"]
    assert left.op.factor == 6.0


@pytest.mark.parametrize(("clip", "expected"), [(0.5, [-0.5, 0.3, 0.5]), (None, [-2.0, 0.3, 2.0])])
def test_the_guides_option_is_read_in_an_extractor(guide, clip, expected):
    from irconv import ConversionOptions
    from irconv.frontend import extractor

    clipped = guide["clipped"]
    from irconv_opset import Clamp

    record = extractor("onnx", "Clipped", lambda node, ctx: [clipped(ctx, ctx.input(0))],  # type: ignore[operator]
                       produces=[Clamp])
    options = ConversionOptions() if clip is None else ConversionOptions().with_values(**{"myops.clip": clip})
    b = GraphBuilder()
    (y,) = run_extractor(b, record, b.const(np.array([-2.0, 0.3, 2.0], np.float32)), options=options)
    b.result(y, "y")
    infer_graph(b.graph)
    np.testing.assert_allclose(y.data.get_value(), expected, rtol=1e-6)
