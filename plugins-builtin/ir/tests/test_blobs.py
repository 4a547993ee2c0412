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
    data = (tmp_path / "w.bin").read_bytes()
    assert data[first[0] : first[0] + first[1]] == big.tobytes()
    assert data[other[0] : other[0] + other[1]] == nearly.tobytes()
    assert writer.blobs == 6 and len(data) == writer.size
