"""Quantizations computed while the model is still being loaded.

A loader that knows its weight matrices before it has a graph (irconv-llm's Hugging Face
loader: the model's linear layers and embeddings, memory-mapped from their files, known
before ``torch.export`` traces the model on one core for seconds to minutes) starts their
data-free quantization here, under the schemes ``compress.weights`` is expected to choose,
in a worker process (``early_worker``) that maps the same files. A thread would not do: the
trace holds the GIL almost always, and a thread that gives it up for each NumPy call waits
a switch interval to get it back. The graph keeps the ``EarlyQuantizations`` in its meta.
``compress.weights`` takes a quantization where a site reads the same matrix (the same
memory, layout and type, or that array read as a wider type) under the same scheme and
scale precision; of the matrices not done yet it leaves the worker the one under way and its
share of the rest, computes the others on its remaining threads meanwhile, then waits for
the worker. Anything else (a weight a fusion rescaled, a site given another scheme, a
worker that failed) is computed as without them: the result never depends on what was
computed early.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np
from irconv import MetaKey
from irconv.ops.deferred import DeferredProduct
from irconv.types import ElementType

from irconv_transforms.weight_compression.quantize import Quantization, Scheme, Weights

#: What the worker is sent to stop after the matrix under way.
STOP = b"stop\n"
#: What starts the line that leaves the worker only the listed jobs of those still to come.
KEEP = b"keep"


@dataclass(frozen=True)
class MappedMatrix:
    """A ``[rows, cols]`` matrix as a file holds it: ``element_type`` values, row by row,
    from byte ``offset``; ``read_as``: the wider float type it is read as, if any."""

    file: Path
    offset: int
    shape: tuple[int, int]
    element_type: ElementType
    read_as: ElementType | None = None

    def weights(self, mapped: np.ndarray) -> Weights:
        """The matrix read from ``mapped``, the file's bytes mapped."""
        count = self.shape[0] * self.shape[1]
        size = count * self.element_type.numpy.itemsize
        array = mapped[self.offset : self.offset + size].view(self.element_type.numpy).reshape(self.shape)
        return array if self.read_as is None else DeferredProduct.widened(array, self.read_as.numpy)


@dataclass(frozen=True)
class EarlyJob:
    """A matrix to quantize under ``scheme``, scales rounded to ``scale_dtype``."""

    matrix: MappedMatrix
    scheme: Scheme
    scale_dtype: str


@dataclass
class EarlyQuantizations:
    """The worker's quantizations, by the matrix they read and how."""

    _worker: subprocess.Popen[bytes] | None
    _keys: dict[Hashable, int]
    _matrices: list[Weights] = field(repr=False)  # referenced: their memory is not reused
    _results: dict[int, Quantization] = field(default_factory=dict, repr=False)
    _under_way: int | None = None
    _reader: threading.Thread | None = field(default=None, repr=False)
    #: How many of the worker's quantizations were used.
    taken: int = 0

    @classmethod
    def start(cls, matrices: list[tuple[Weights, MappedMatrix, Scheme]], scale_dtype: np.dtype) -> EarlyQuantizations:
        """Each matrix (``weights``: as the graph reads it; the ``MappedMatrix`` it is)
        quantized under its scheme, one after another in a worker process."""
        if not sys.executable or getattr(sys, "frozen", False):  # no interpreter to start a worker with
            return cls(None, {}, [])
        keys: dict[Hashable, int] = {}
        jobs: list[EarlyJob] = []
        kept: list[Weights] = []
        for weights, mapped, scheme in matrices:
            key = _key(weights, scheme, scale_dtype)
            if key is not None and key not in keys:
                keys[key] = len(jobs)
                jobs.append(EarlyJob(mapped, scheme, np.dtype(scale_dtype).str))
                kept.append(weights)
        command = [sys.executable, "-m", "irconv_transforms.weight_compression.early_worker"]
        try:
            worker = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return cls(None, {}, [])
        early = cls(worker, keys, kept)
        assert worker.stdin is not None and worker.stdout is not None
        early._reader = threading.Thread(target=early._read, args=(worker.stdout,), daemon=True)
        early._reader.start()
        message = pickle.dumps(jobs, protocol=pickle.HIGHEST_PROTOCOL)
        early._send(len(message).to_bytes(8, "little") + message)
        return early

    @property
    def started(self) -> int:
        return len(self._keys)

    def index(self, weights: Weights, scheme: Scheme, scale_dtype: np.dtype) -> int | None:
        """The worker's job that quantizes ``weights`` under ``scheme``, if there is one."""
        key = _key(weights, scheme, scale_dtype)
        return None if key is None else self._keys.get(key)

    def hand_over(self, needed: list[int], other_values: int, cores: int) -> tuple[set[int], bool]:
        """Of the ``needed`` jobs, those whose results are to come from the worker (done, and
        those it is left: the one under way and the next ones, up to its share of what
        remains for ``cores`` cores; ``other_values``: weight values the caller computes
        besides), and whether it still works on some. The worker is told to skip the others,
        which the caller computes."""
        done = {i for i in needed if i in self._results}
        if self._worker is None or self._worker.poll() is not None:
            return done, False
        under_way = self._under_way
        left = [i for i in needed if i not in done]
        kept = {under_way} if under_way is not None and under_way in left else set()
        coming = [i for i in left if under_way is None or i > under_way]
        budget = (other_values + sum(self._matrices[i].size for i in coming)) / max(cores, 1)
        for index in coming:
            if budget <= 0:
                break
            kept.add(index)
            budget -= self._matrices[index].size
        self._send(KEEP + b" " + b" ".join(str(i).encode() for i in sorted(kept)) + b"\n")
        return done | kept, bool(kept)

    def finish(self) -> dict[int, Quantization]:
        """The worker's results, once it has ended (told to stop after the matrix under way)."""
        worker, self._worker = self._worker, None
        if worker is not None:
            self._send(STOP, worker)
            try:
                assert worker.stdin is not None
                worker.stdin.close()
            except OSError:
                pass  # it has ended already
            if self._reader is not None:
                self._reader.join()
            worker.wait()
        return self._results

    def _send(self, message: bytes, worker: subprocess.Popen[bytes] | None = None) -> None:
        worker = worker or self._worker
        try:
            assert worker is not None and worker.stdin is not None
            worker.stdin.write(message)
            worker.stdin.flush()
        except (OSError, ValueError):
            pass  # the worker has ended: what it did not compute is computed by the caller

    def _read(self, stream: IO[bytes]) -> None:
        """The worker's messages as they come, until it ends: ``(index, None)`` when it starts
        a job, ``(index, Quantization)`` when it is done."""
        try:
            while True:
                index, quantized = pickle.load(stream)
                if quantized is None:
                    self._under_way = index
                else:
                    self._results[index] = quantized
        except (EOFError, OSError, pickle.UnpicklingError):
            return


#: The quantizations a loader started, for ``compress.weights`` (which removes them).
EARLY_QUANTIZATIONS: MetaKey[EarlyQuantizations] = MetaKey(
    "compress.early_quantizations", EarlyQuantizations, doc="data-free quantizations started while the model loaded"
)


def _key(weights: Weights, scheme: Scheme, scale_dtype: np.dtype) -> Hashable | None:
    """What a quantization of ``weights`` depends on: the matrix's memory, layout and type
    (and the type it is read as), the scheme and the scales' precision; None for a matrix
    computed from others (a rescaling), whose values its memory does not tell."""
    if isinstance(weights, DeferredProduct):
        if not weights.is_widening:
            return None
        return ("widened", _array_key(weights.base), weights.dtype.str, scheme, np.dtype(scale_dtype).str)
    return ("array", _array_key(weights), scheme, np.dtype(scale_dtype).str)


def _array_key(array: np.ndarray) -> Hashable:
    return (array.__array_interface__["data"][0], array.shape, array.strides, array.dtype.str)
