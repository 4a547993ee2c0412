"""tf.grouped_convolution on small graphs: positive, negative, and the runtime agrees."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.testing import GraphBuilder, run_transform
from irconv_opset import Convolution
from irconv_tf.transforms.grouped_convolution import GroupedConvolution

R = np.random.default_rng(3)


def _conv(channels: int, filter_channels: int) -> tuple[GraphBuilder, np.ndarray]:
    b = GraphBuilder("conv", framework="tf")
    x = b.parameter("x", (1, channels, 5, 5))
    w = R.uniform(-1, 1, (8, filter_channels, 3, 3)).astype(np.float32)
    conv = Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1), auto_pad="explicit")
    b.result(b.op(conv, x, b.const(w), name="conv"), "y")
    return b, w


def test_fewer_filter_channels_become_groups() -> None:
    b, w = _conv(channels=8, filter_channels=2)
    assert run_transform(b.graph, GroupedConvolution()) is True
    (node,) = b.graph.by_type("GroupConvolution")
    assert node.name == "conv" and not b.graph.by_type("Convolution")
    np.testing.assert_array_equal(node.in_port(1).constant(shape_derived=True), w.reshape(4, 2, 2, 3, 3))
    assert node.out_port(0).data.get_shape() == (1, 8, 5, 5)
    assert "y" in node.out_port(0).data.names


def test_full_filters_unchanged() -> None:
    b, _ = _conv(channels=2, filter_channels=2)
    assert run_transform(b.graph, GroupedConvolution()) is False
    assert len(b.graph.by_type("Convolution")) == 1 and not b.graph.by_type("GroupConvolution")


def test_grouped_matches_per_group_reference(tmp_path: Path) -> None:
    """The IR computes one convolution per channel group (NumPy reference from the definition)."""
    pytest.importorskip("openvino")
    from irconv.plugins import PluginHost
    from irconv.testing.runtime import emit_ir, run_ir

    b, w = _conv(channels=8, filter_channels=2)
    run_transform(b.graph, GroupedConvolution())
    x = R.uniform(-1, 1, (1, 8, 5, 5)).astype(np.float32)
    got = run_ir(emit_ir(b.graph, tmp_path / "m.xml", host=PluginHost()), {"x": x})["y"]
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((1, 8, 5, 5), np.float32)
    for o in range(8):
        g = o // 2  # output channels 2g, 2g+1 read input channels 2g, 2g+1
        for i in range(5):
            for j in range(5):
                want[0, o, i, j] = np.sum(padded[0, 2 * g : 2 * g + 2, i : i + 3, j : j + 3] * w[o])
    np.testing.assert_allclose(got, want, atol=1e-5)
