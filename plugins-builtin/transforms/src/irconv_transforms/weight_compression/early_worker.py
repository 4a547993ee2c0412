"""The worker process of ``early``: quantizes the matrices it is sent, one at a time.

Reads a pickled list of ``EarlyJob`` on stdin (its length first, 8 bytes little-endian, so
that nothing after it is read ahead), then quantizes them in order, writing pickled
``(index, None)`` on stdout when it starts one and ``(index, Quantization)`` when it is done.
Between matrices it reads the lines that have arrived on stdin: ``STOP`` ends it, ``KEEP``
and a list of indices leaves it only those of the jobs still to come. Each file is mapped
once; a matrix's pages are released once it is done.
"""

from __future__ import annotations

import os
import pickle
import select
import sys
from pathlib import Path
from typing import BinaryIO

import numpy as np
from irconv.mapped_pages import release_mapped_pages

from irconv_transforms.weight_compression.early import KEEP, STOP, EarlyJob
from irconv_transforms.weight_compression.quantize import Quantization, mapped_base, quantization
from irconv_transforms.weight_compression.range_kernel import OffsetSums, offset_sums_for


def main(commands: int, results: BinaryIO) -> None:
    jobs: list[EarlyJob] = pickle.loads(_read_exactly(commands, int.from_bytes(_read_exactly(commands, 8), "little")))
    offset_sums = offset_sums_for(sum(job.matrix.shape[0] * job.matrix.shape[1] for job in jobs))
    maps: dict[Path, np.memmap] = {}
    control = _Control(commands)
    for index, job in enumerate(jobs):
        if not control.read():
            return
        if control.kept is not None and index not in control.kept:
            continue
        _send(results, (index, None))
        try:
            quantized = _quantized(job, maps, offset_sums)
        except Exception:  # noqa: BLE001 - the parent computes what the worker does not send
            continue
        _send(results, (index, quantized))


class _Control:
    """The lines the parent sends: ``STOP``, or ``KEEP`` and the jobs to keep."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor
        self.kept: set[int] | None = None
        self._pending = b""

    def read(self) -> bool:
        """Takes the lines that have arrived; False once told to stop (or the pipe closed)."""
        while select.select([self.descriptor], [], [], 0)[0]:
            arrived = os.read(self.descriptor, 1 << 16)
            if not arrived:
                return False
            *lines, self._pending = (self._pending + arrived).split(b"\n")
            for line in lines:
                if line == STOP.strip():
                    return False
                if line.startswith(KEEP):
                    self.kept = {int(word) for word in line[len(KEEP) :].split()}
        return True


def _quantized(job: EarlyJob, maps: dict[Path, np.memmap], offset_sums: OffsetSums | None) -> Quantization:
    """``job``'s matrix quantized (its file mapped once), its pages released after."""
    mapped = maps.get(job.matrix.file)
    if mapped is None:
        mapped = maps[job.matrix.file] = np.memmap(job.matrix.file, dtype=np.uint8, mode="r")
    weights = job.matrix.weights(mapped)
    with np.errstate(all="ignore"):
        quantized = quantization(weights, job.scheme, np.dtype(job.scale_dtype), offset_sums=offset_sums)
    release_mapped_pages(mapped_base(weights))
    return quantized


def _send(results: BinaryIO, message: object) -> None:
    pickle.dump(message, results, protocol=pickle.HIGHEST_PROTOCOL)
    results.flush()


def _read_exactly(descriptor: int, count: int) -> bytes:
    parts = []
    while count:
        part = os.read(descriptor, count)
        if not part:
            raise EOFError("the parent closed the pipe")
        parts.append(part)
        count -= len(part)
    return b"".join(parts)


if __name__ == "__main__":
    main(sys.stdin.fileno(), sys.stdout.buffer)
