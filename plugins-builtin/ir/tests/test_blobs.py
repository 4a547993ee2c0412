"""The .bin writer: exact de-duplication, also when sampled keys collide."""

from __future__ import annotations

import numpy as np
from irconv_ir.blobs import SAMPLE, BlobWriter


def test_equal_blobs_share_and_near_equal_blobs_do_not(tmp_path):
    rng = np.random.default_rng(0)
    big = rng.random(100_000, dtype=np.float32)
    nearly = big.copy()
    step = big.nbytes // SAMPLE
    raw = nearly.view(np.uint8)
    raw[step * 100 + 1] ^= 0xFF  # a byte the sampled key does not look at
    small = np.arange(10, dtype=np.int64)
    with open(tmp_path / "w.bin", "w+b") as stream:
        writer = BlobWriter(stream)
        first = writer.add(big)
        assert writer.add(big.copy()) == first
        other = writer.add(nearly)
        assert other != first
        assert writer.add(nearly.copy()) == other
        s1 = writer.add(small)
        assert writer.add(small.reshape(2, 5).copy()) == s1
        assert writer.add(small.astype(np.int32)) != s1
        assert writer.add(np.array(True)) == writer.add(np.array([1], np.uint8))
        assert writer.add(np.zeros(0, np.float32))[1] == 0
        assert writer.add(np.zeros((0, 3), np.float32)) == writer.add(np.zeros((3, 0), np.float32))
    data = (tmp_path / "w.bin").read_bytes()
    assert data[first[0] : first[0] + first[1]] == big.tobytes()
    assert data[other[0] : other[0] + other[1]] == nearly.tobytes()
    assert writer.blobs == 6 and len(data) == writer.size


def test_strided_values_are_written_in_c_order_raw_and_compressed(tmp_path, monkeypatch):
    from irconv_ir import blobs
    from irconv_ir.fp16 import F16

    w = np.random.default_rng(1).standard_normal((300, 70)).astype(np.float32)
    views = [w.T, w[::2, ::-3], np.asfortranarray(w.reshape(30, 10, 70))]
    reports: list[object] = []
    monkeypatch.setattr(blobs, "BLOCK", 1000)  # many blocks, none a whole number of rows
    with open(tmp_path / "w.bin", "wb") as stream, BlobWriter(stream) as writer:
        placed = [(v, writer.add(v), writer.add(v, F16, reports)) for v in views]
        assert writer.add(w.T.copy(order="F")) == placed[0][1]  # the same values again
    data = (tmp_path / "w.bin").read_bytes()
    for v, (offset, size), (half_offset, half_size) in placed:
        assert data[offset : offset + size] == np.ascontiguousarray(v).tobytes()
        assert data[half_offset : half_offset + half_size] == v.astype(np.float16).tobytes()
    assert reports and all(report == (0, 0) for report in reports)


def test_written_weights_of_a_read_only_mapping_stay_readable(tmp_path):
    w = np.random.default_rng(2).standard_normal(1 << 19).astype(np.float32)
    w.tofile(tmp_path / "weights.raw")
    mapped = np.memmap(tmp_path / "weights.raw", np.float32, "r", shape=w.shape)
    with open(tmp_path / "w.bin", "wb") as stream, BlobWriter(stream) as writer:
        offset, size = writer.add(mapped)  # its pages are released once written
    np.testing.assert_array_equal(mapped, w)  # and mapped again from the file when read
    assert (tmp_path / "w.bin").read_bytes()[offset : offset + size] == w.tobytes()
