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
