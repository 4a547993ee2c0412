"""irconv_opset.lowering.convolution and .pooling: the emitted IR, run in OpenVINO, against
direct numpy loops over the windows (written from the op definitions, not from the lowering)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from irconv import ExtractContext
from irconv.graph import OutPort
from irconv_opset.lowering.convolution import (
    ChannelsLastConvolution,
    FilterLayout,
    PadSplit,
    TransposedPadding,
    Window,
    channel_bias,
    channels_last_convolution,
    convolution,
    convolution_backprop,
    padding_for_output_size,
    split_padding,
)
from irconv_opset.lowering.pooling import GlobalPool, PoolWindow, avg_pool, global_pool, lp_pool, max_pool
from irconv_opset.testing_lowering import run_lowering

rng = np.random.default_rng(39)


def _run(tmp_path: Path, lowering: Callable[[ExtractContext, list[OutPort]], OutPort], inputs: list[np.ndarray],
         constant: tuple[int, ...] = ()) -> np.ndarray:
    """``lowering`` on ``inputs`` (those at ``constant`` given to it as Consts) in OpenVINO."""
    fed = [v for i, v in enumerate(inputs) if i not in constant]

    def lowered(ctx: ExtractContext, params: list[OutPort]) -> list[OutPort]:
        given = iter(params)
        ports = [ctx.const(v) if i in constant else next(given) for i, v in enumerate(inputs)]
        return [lowering(ctx, ports)]

    return run_lowering(lowered, fed, tmp_path)[0]


def _tensor(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def _conv_reference(x: np.ndarray, w: np.ndarray, strides: tuple[int, int], dilations: tuple[int, int],
                    begin: tuple[int, int], end: tuple[int, int], groups: int) -> np.ndarray:
    """Cross-correlation of NCHW ``x`` with [O, C/g, kh, kw] ``w``, zero padded."""
    x = np.pad(x, ((0, 0), (0, 0), (begin[0], end[0]), (begin[1], end[1])))
    n, c, h, wd = x.shape
    o, per_group, kh, kw = w.shape
    oh = (h - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (wd - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    y = np.zeros((n, o, oh, ow), np.float64)
    for out in range(o):
        group = out // (o // groups)
        for i in range(oh):
            for j in range(ow):
                rows = i * strides[0] + np.arange(kh) * dilations[0]
                cols = j * strides[1] + np.arange(kw) * dilations[1]
                patch = x[:, group * per_group:(group + 1) * per_group][:, :, rows][:, :, :, cols]
                y[:, out, i, j] = (patch * w[out]).sum(axis=(1, 2, 3))
    return y


def _deconv_reference(x: np.ndarray, w: np.ndarray, strides: tuple[int, int], begin: tuple[int, int],
                      end: tuple[int, int], extra: tuple[int, int], groups: int) -> np.ndarray:
    """Transposed convolution of NCHW ``x`` with [I, O/g, kh, kw] ``w``: every input cell
    scatters its kernel, then ``begin``/``end`` cells are cropped and ``extra`` zeros added."""
    n, c, h, wd = x.shape
    _, per_group_out, kh, kw = w.shape
    full = np.zeros((n, per_group_out * groups, (h - 1) * strides[0] + kh + extra[0],
                     (wd - 1) * strides[1] + kw + extra[1]))
    for ci in range(c):
        group = ci // (c // groups)
        for i in range(h):
            for j in range(wd):
                region = full[:, group * per_group_out:(group + 1) * per_group_out,
                              i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
                region += x[:, ci, i, j][:, None, None, None] * w[ci][None]
    return full[:, :, begin[0]:full.shape[2] - end[0], begin[1]:full.shape[3] - end[1]]


@pytest.mark.parametrize("weights_constant", [True, False], ids=["constant_weights", "runtime_weights"])
def test_grouped_convolution_with_bias(tmp_path: Path, weights_constant: bool) -> None:
    x, w, b = _tensor(1, 4, 9, 8), _tensor(6, 2, 3, 2), _tensor(6)
    window = Window.of((2, 1), (1, 2), (1, 0), (0, 2))

    def lowering(ctx: ExtractContext, ports: list[OutPort]) -> OutPort:
        return channel_bias(ctx, convolution(ctx, ports[0], ports[1], window, 2), ports[2], 4)

    got = _run(tmp_path, lowering, [x, w, b], constant=(1, 2) if weights_constant else (2,))
    expected = _conv_reference(x, w, (2, 1), (1, 2), (1, 0), (0, 2), 2) + b[None, :, None, None]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("split", [PadSplit.END, PadSplit.BEGIN, PadSplit.SYMMETRIC])
def test_grouped_transposed_convolution_reaches_the_requested_size(tmp_path: Path, split: PadSplit) -> None:
    x, w = _tensor(1, 4, 5, 4), _tensor(4, 3, 3, 4)  # [I, O/g, k...], 2 groups: 6 outputs
    window = Window.of((2, 3))
    wanted = (10, 13)  # the full result is 11 x 13: one cell cropped, then none
    padding = padding_for_output_size((5, 4), (3, 4), window, wanted, split)
    explicit = Window(window.strides, window.dilations, padding.pads_begin, padding.pads_end)

    def lowering(ctx: ExtractContext, ports: list[OutPort]) -> OutPort:
        return convolution_backprop(ctx, ports[0], ports[1], explicit, padding.output_padding, 2)

    got = _run(tmp_path, lowering, [x, w], constant=(1,))
    assert got.shape == (1, 6, *wanted)
    expected = _deconv_reference(x, w, (2, 3), padding.pads_begin, padding.pads_end, padding.output_padding, 2)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_split_padding_puts_the_odd_cell_where_asked_and_negative_totals_in_output_padding() -> None:
    assert split_padding([3, -2], PadSplit.END) == TransposedPadding((1, 0), (2, 0), (0, 2))
    assert split_padding([3], PadSplit.BEGIN, [1]) == TransposedPadding((2,), (1,), (1,))
    # MXNet: equal pads rounded up, the surplus cell given back at the end
    assert split_padding([3, 4], PadSplit.SYMMETRIC) == TransposedPadding((2, 2), (2, 2), (1, 0))


@pytest.mark.parametrize("layout", [FilterLayout.SPATIAL_IN_OUT, FilterLayout.OUT_SPATIAL_IN,
                                    FilterLayout.SPATIAL_CHANNEL_MULTIPLIER])
@pytest.mark.parametrize("as_array", [True, False], ids=["array", "port"])
def test_channels_last_filters_map_onto_the_same_convolution(tmp_path: Path, layout: FilterLayout,
                                                            as_array: bool) -> None:
    if layout is FilterLayout.SPATIAL_CHANNEL_MULTIPLIER and not as_array:
        pytest.skip("depthwise filters are constant in every front end")
    x = _tensor(1, 3, 7, 6)
    oihw = _tensor(6, 3, 3, 2) if layout is not FilterLayout.SPATIAL_CHANNEL_MULTIPLIER else _tensor(6, 1, 3, 2)
    stored = {FilterLayout.SPATIAL_IN_OUT: oihw.transpose(2, 3, 1, 0),
              FilterLayout.OUT_SPATIAL_IN: oihw.transpose(0, 2, 3, 1),
              # [kh, kw, C, M]: output channel c * M + m reads input channel c
              FilterLayout.SPATIAL_CHANNEL_MULTIPLIER: oihw[:, 0].reshape(3, 2, 3, 2).transpose(2, 3, 0, 1)}[layout]
    stored = np.ascontiguousarray(stored)
    window = Window.of((1, 2), (2, 1), (2, 0), (1, 1))

    def lowering(ctx: ExtractContext, ports: list[OutPort]) -> OutPort:
        spec = ChannelsLastConvolution(window, stored if as_array else ports[1], layout)
        return channels_last_convolution(ctx, ports[0], spec, lambda op, inputs: ctx.op(op, *inputs))

    got = _run(tmp_path, lowering, [x, stored], constant=(1,))
    groups = 3 if layout is FilterLayout.SPATIAL_CHANNEL_MULTIPLIER else 1
    expected = _conv_reference(x, oihw, (1, 2), (2, 1), (2, 0), (1, 1), groups)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def _windows(x: np.ndarray, kernel: tuple[int, int], strides: tuple[int, int], pads: tuple[int, int],
             out: tuple[int, int]) -> list[tuple[int, int, np.ndarray, int]]:
    """(i, j, real cells, padded cell count) of every window of a padded NCHW input."""
    h, w = x.shape[2:]
    found = []
    for i in range(out[0]):
        for j in range(out[1]):
            r0, c0 = i * strides[0] - pads[0], j * strides[1] - pads[1]
            r1, c1 = min(r0 + kernel[0], h + pads[0]), min(c0 + kernel[1], w + pads[1])
            cells = x[:, :, max(r0, 0):min(r1, h), max(c0, 0):min(c1, w)]
            found.append((i, j, cells, (r1 - r0) * (c1 - c0)))
    return found


def test_max_and_avg_pool_with_ceil_torch_rounding(tmp_path: Path) -> None:
    x = _tensor(1, 2, 7, 8)
    pool = PoolWindow.of((3, 2), (2, 3), (1, 1), rounding="ceil_torch")
    # ceil((7 + 2 - 3) / 2) + 1 = 4 rows (the last starts at 5 < 7 + 1); ceil((8 + 2 - 2) / 3) + 1 = 4
    # columns, but the last would start at 9 >= 8 + 1, inside the end padding: ceil_torch drops it
    out = (4, 3)
    maxima = _run(tmp_path, lambda ctx, p: max_pool(ctx, p[0], pool).out_port(0), [x])
    means = _run(tmp_path, lambda ctx, p: avg_pool(ctx, p[0], pool, exclude_pad=True), [x])
    counted = _run(tmp_path, lambda ctx, p: avg_pool(ctx, p[0], pool, exclude_pad=False), [x])
    assert maxima.shape == means.shape == (1, 2, *out)
    for i, j, cells, padded in _windows(x, (3, 2), (2, 3), (1, 1), out):
        np.testing.assert_allclose(maxima[:, :, i, j], cells.max(axis=(2, 3)), rtol=1e-6)
        np.testing.assert_allclose(means[:, :, i, j], cells.mean(axis=(2, 3)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(counted[:, :, i, j], cells.sum(axis=(2, 3)) / padded, rtol=1e-5, atol=1e-6)


def test_lp_pool_and_global_pools(tmp_path: Path) -> None:
    x = _tensor(1, 2, 6, 6)
    pool = PoolWindow.of((2, 3), (2, 3))

    def lp(ctx: ExtractContext, p: list[OutPort]) -> OutPort:
        return lp_pool(ctx, p[0], 3.0, pool.size, lambda y: avg_pool(ctx, y, pool, exclude_pad=False))

    got = _run(tmp_path, lp, [x])
    expected = (np.abs(x) ** 3).reshape(1, 2, 3, 2, 2, 3).sum(axis=(3, 5)) ** (1 / 3)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    axes = [2, 3]
    for kind, reference in [(GlobalPool.MAX, x.max(axis=(2, 3), keepdims=True)),
                            (GlobalPool.AVG, x.mean(axis=(2, 3), keepdims=True)),
                            (GlobalPool.L2, np.sqrt((x**2).sum(axis=(2, 3), keepdims=True))),
                            (GlobalPool.LP, (np.abs(x) ** 3).sum(axis=(2, 3), keepdims=True) ** (1 / 3))]:
        def reduce(ctx: ExtractContext, p: list[OutPort], kind: GlobalPool = kind) -> OutPort:
            return global_pool(ctx, p[0], kind, ctx.const(np.array(axes, np.int64)), p=3.0)

        np.testing.assert_allclose(_run(tmp_path, reduce, [x]), reference, rtol=1e-5, atol=1e-6)


def test_a_window_refuses_mismatched_lengths_and_unknown_padding() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        Window((1, 1), (1,), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="auto_pad"):
        Window.of((1,), auto_pad="SAME")
    assert Window.of((2, 2), pads_begin=(1, 1), auto_pad="valid").pads_begin == (0, 0)
