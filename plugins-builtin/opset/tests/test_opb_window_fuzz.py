"""Window arithmetic of convolutions and poolings on many random configurations.

For each seeded random configuration (input size, kernel, stride, dilation, pads,
auto_pad, rounding), the output shape our ``infer`` gives must be the one OpenVINO's own
shape inference gives for the same op (node factory, no compilation: fast).
"""

from __future__ import annotations

import numpy as np
import pytest
from irconv.errors import ConversionError
from irconv.ops import Op
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import AvgPool, Convolution, ConvolutionBackpropData, GroupConvolution, MaxPool
from irconv.runtime import compile_for_comparison

CONFIGS_PER_OP = 150
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")


def _ours(op: Op, data: tuple[int, ...], weights: np.ndarray | None) -> tuple[int | None, ...] | None:
    builder = GraphBuilder()
    ports = [builder.parameter("x", data)]
    if weights is not None:
        ports.append(builder.const(weights))
    node = builder.node(op, *ports)
    infer_graph(builder.graph)
    return node.out_port(0).data.get_shape()


def _openvino(op: Op, data: tuple[int, ...], weights: np.ndarray | None, attrs: dict) -> tuple[int, ...] | None:  # type: ignore[type-arg]
    import openvino.opset14 as ops
    from openvino.utils.node_factory import NodeFactory

    args = [ops.parameter(list(data), np.float32).output(0)]
    if weights is not None:
        args.append(ops.constant(weights).output(0))
    try:
        node = NodeFactory(f"opset{op.version}").create(op.type, args, attrs)
    except RuntimeError:
        return None  # a configuration the runtime rejects (e.g. a window larger than the input)
    return tuple(d.get_length() if d.is_static else None for d in node.get_output_partial_shape(0))


def _configs(kind: str) -> list[tuple[Op, tuple[int, ...], np.ndarray | None, dict]]:  # type: ignore[type-arg]
    rng = np.random.default_rng({"max": 1, "avg": 2, "conv": 3, "group": 4, "deconv": 5}[kind])
    configs = []
    for _ in range(CONFIGS_PER_OP):
        rank = int(rng.integers(1, 4))
        spatial = tuple(int(v) for v in rng.integers(1, 14, rank))
        kernel = tuple(int(v) for v in rng.integers(1, 5, rank))
        strides = tuple(int(v) for v in rng.integers(1, 4, rank))
        dilations = tuple(int(v) for v in rng.integers(1, 3, rank))
        pads_begin = tuple(int(v) for v in rng.integers(0, 3, rank))
        pads_end = tuple(int(v) for v in rng.integers(0, 3, rank))
        auto_pad = str(rng.choice(AUTO_PADS))
        window = dict(strides=strides, pads_begin=pads_begin, pads_end=pads_end, auto_pad=auto_pad)
        data = (2, 4, *spatial)
        weights = None
        if kind in ("max", "avg"):
            rounding = str(rng.choice(("floor", "ceil", "ceil_torch")))
            window.update(kernel=kernel, rounding_type=rounding, dilations=dilations)
            if kind == "max":
                op: Op = MaxPool(**window)
                window["index_element_type"] = "i64"
                window["axis"] = 0
            else:
                window["exclude-pad"] = bool(rng.integers(0, 2))
                op = AvgPool(
                    **{k: v for k, v in window.items() if k != "exclude-pad"}, exclude_pad=window["exclude-pad"]
                )
        else:
            window["dilations"] = dilations
            if kind == "conv":
                weights = np.ones((3, 4, *kernel), np.float32)
                op = Convolution(**window)
            elif kind == "group":
                weights = np.ones((2, 3, 2, *kernel), np.float32)
                op = GroupConvolution(**window)
            else:
                padding = tuple(
                    min(int(v), s - 1, d - 1)
                    for v, s, d in zip(rng.integers(0, 2, rank), strides, dilations, strict=True)
                )
                padding = tuple(max(p, 0) for p in padding)
                window["output_padding"] = padding
                weights = np.ones((4, 3, *kernel), np.float32)
                op = ConvolutionBackpropData(**window)
        attrs = {k: (list(v) if isinstance(v, tuple) else v) for k, v in window.items()}
        configs.append((op, data, weights, attrs))
    return configs


@pytest.mark.parametrize("kind", ["max", "avg", "conv", "group", "deconv"])
def test_random_windows_match_openvino(kind: str) -> None:
    checked = 0
    mismatches = []
    for op, data, weights, attrs in _configs(kind):
        theirs = _openvino(op, data, weights, attrs)
        if theirs is None:
            continue
        checked += 1
        if None in theirs:
            # The runtime gives up on a window that leaves nothing; we refuse it outright.
            with pytest.raises(ConversionError, match="empty output"):
                _ours(op, data, weights)
            continue
        ours = _ours(op, data, weights)
        if ours != theirs:
            mismatches.append(f"{op.describe()} {attrs} on {data}: ours {ours}, OpenVINO {theirs}")
    assert checked > CONFIGS_PER_OP // 2, f"only {checked} configurations were valid for the runtime"
    assert not mismatches, f"{len(mismatches)} of {checked} differ:\n" + "\n".join(mismatches[:10])


VALUE_CONFIGS = 40


@pytest.mark.parametrize("kind", ["max", "avg", "conv", "group", "deconv"])
def test_random_windows_evaluate_like_the_runtime(kind: str) -> None:
    """Values too: ``evaluate`` against the CPU plugin on the first valid random configurations."""
    import openvino as ov
    import openvino.opset14 as ops
    from openvino.utils.node_factory import NodeFactory

    rng = np.random.default_rng(99)
    core = ov.Core()
    checked = 0
    mismatches = []
    for op, data, weights, attrs in _configs(kind):
        theirs = _openvino(op, data, weights, attrs)
        if theirs is None or None in theirs or 0 in theirs:
            continue
        x = rng.standard_normal(data).astype(np.float32)
        w = None if weights is None else rng.standard_normal(weights.shape).astype(np.float32)
        source = ops.parameter(list(data), np.float32)  # run the CPU kernel, not constant folding
        args = [source.output(0)] + ([] if w is None else [ops.constant(w).output(0)])
        node = NodeFactory(f"opset{op.version}").create(op.type, args, attrs)
        compiled = compile_for_comparison(ov.Model([node.output(0)], [source]), core=core)
        expected = compiled({0: x})[0]
        ours = op.evaluate([x] if w is None else [x, w])
        assert ours is not None
        # An average over a window that covers no input is NaN here; the CPU plugin gives NaN
        # or 0 depending on the kernel it picks, so those cells are not compared.
        defined = ~np.isnan(ours[0]) if ours[0].shape == expected.shape else slice(None)
        if ours[0].shape != expected.shape or not np.allclose(
            ours[0][defined], expected[defined], rtol=1e-4, atol=1e-4
        ):
            mismatches.append(f"{op.describe()} {attrs} on {data}: max diff {np.abs(ours[0] - expected).max()}")
        checked += 1
        if checked == VALUE_CONFIGS:
            break
    assert checked == VALUE_CONFIGS, f"only {checked} configurations were valid for the runtime"
    assert not mismatches, f"{len(mismatches)} of {checked} differ:\n" + "\n".join(mismatches[:10])
