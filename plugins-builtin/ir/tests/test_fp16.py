"""f32 -> f16 conversion of constants: values, clamping and the counts reported."""

from __future__ import annotations

import numpy as np
from irconv_ir import blobs
from irconv_ir.blobs import BlobWriter
from irconv_ir.fp16 import F16, CompressionStats


def _compressed(value: np.ndarray, stats: CompressionStats, path) -> np.ndarray:
    """``value`` written to a .bin as the emitter writes it compressed, and read back."""
    reports: list[object] = []
    with open(path, "wb") as stream, BlobWriter(stream) as writer:
        offset, size = writer.add(value, F16, reports)
    stats.count(value.size, reports)
    return np.frombuffer(path.read_bytes()[offset : offset + size], np.float16).reshape(value.shape)


def test_values_counts_and_special_values(monkeypatch, tmp_path):
    monkeypatch.setattr(blobs, "BLOCK", 1000)  # several blocks, overflow in only some of them
    value = np.random.default_rng(5).standard_normal(4500).astype(np.float32)
    value[[10, 2500]] = [7e4, -1e9]
    value[[11, 12, 13, 14]] = [np.inf, -np.inf, np.nan, -0.0]
    value[[20, 3999]] = [1e-10, -2e-8]
    stats = CompressionStats()
    half = _compressed(value.reshape(45, 100), stats, tmp_path / "w.bin")
    assert half.shape == (45, 100) and half.dtype == np.float16
    flat = half.reshape(-1)
    assert flat[10] == 65504 and flat[2500] == -65504
    assert np.isposinf(flat[11]) and np.isneginf(flat[12]) and np.isnan(flat[13])
    ordinary = np.isfinite(value) & (np.abs(value) <= 65504)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(flat[ordinary], value[ordinary].astype(np.float16))
    assert (stats.constants, stats.values, stats.overflow, stats.underflow) == (1, 4500, 2, 2)
    assert "2 value(s) beyond" in stats.message() and "2 non-zero value(s)" in stats.message()


def test_message_is_quiet_when_nothing_was_compressed():
    assert CompressionStats().message() is None


def test_f16_loss_names_what_f16_cannot_hold():
    from irconv_ir.fp16 import f16_loss

    weights = np.random.default_rng(3).standard_normal(1000).astype(np.float32)
    assert f16_loss(weights, rounded=False) is None  # rounded, but nothing downstream needs it exact
    assert f16_loss(weights, rounded=True) == "in exact integer arithmetic, not exact in f16"
    assert f16_loss(np.array([1.0, 0.5, 2048.0, -65504.0], np.float32), rounded=True) is None  # all exact in f16
    assert f16_loss(np.array([65519.0, -1.0], np.float32), rounded=False) is None  # rounds to 65504, no clamp
    assert f16_loss(np.array([65520.0, 1.0], np.float32), rounded=False) == "values beyond +-65504"
    assert f16_loss(np.array([np.inf, -np.inf, np.nan, 3.0], np.float32), rounded=False) is None  # f16 has them
    assert f16_loss(np.array([np.nan, -1e5], np.float32), rounded=False) == "values beyond +-65504"
    assert f16_loss(np.array([4097.0], np.float32), rounded=True) is not None  # an integer f16 rounds to 4096


def test_message_names_the_kept_constants():
    stats = CompressionStats()
    stats.count(10, [(0, 0)])
    for index in range(5):
        stats.keep(f"bias{index}", "values beyond +-65504")
    text = stats.message()
    assert text == (
        "compressed 1 f32 constant(s) (10 values) to f16; kept 5 constant(s) f32 "
        "(values beyond +-65504): 'bias0', 'bias1', 'bias2' and 2 more"
    )


def test_a_clamped_blob_is_taken_back(monkeypatch, tmp_path):
    """``add_unless(..., refuse=any_clamped)``: a value f16 cannot hold is written, found
    clamped by the encoder and cut back out of the file; the next blob takes its place."""
    from irconv_ir.fp16 import any_clamped

    monkeypatch.setattr(blobs, "BLOCK", 1000)  # several blocks, the clamped value in the last
    first = np.arange(10, dtype=np.float32)
    beyond = np.random.default_rng(6).standard_normal(4500).astype(np.float32)
    beyond[-1] = 1e6
    path = tmp_path / "w.bin"
    with open(path, "wb") as stream, BlobWriter(stream, threads=2) as writer:
        assert writer.can_take_back
        assert writer.add(first, F16) == (0, 20)
        reports: list[object] = []
        assert writer.add_unless(beyond, F16, reports, refuse=any_clamped) is None
        assert reports == []
        assert writer.add(beyond) == (20, 18000)  # f32, where the f16 blob was
        assert writer.add_unless(beyond[:-1], F16, refuse=any_clamped) == (18020, 8998)
    data = path.read_bytes()
    assert len(data) == 20 + 18000 + 8998
    np.testing.assert_array_equal(np.frombuffer(data[20:18020], np.float32), beyond)
