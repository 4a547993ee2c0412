"""Independent jobs on a pool of threads, results in submission order.

The weight-compression jobs spend their time in NumPy's array kernels, which release the
GIL, so threads use every core without copying the (often memory-mapped) weights into
other processes. Results come back in the order the jobs were given, and no job's result
depends on which thread ran it: the output is the same for any thread count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def run_in_order(jobs: Sequence[Callable[[], T]], threads: int) -> Iterator[T]:
    """Each job's result, in the jobs' order, computed on up to ``threads`` threads (jobs
    start in order too, so the first results come while later jobs still run)."""
    if threads <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield job()
        return
    with ThreadPoolExecutor(max_workers=min(threads, len(jobs)), thread_name_prefix="irconv-compress") as pool:
        yield from pool.map(_call, jobs)


def _call(job: Callable[[], T]) -> T:
    return job()
