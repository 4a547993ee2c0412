"""``irconv convert-many``: the jobs of a zoo, converting one of them, and running them all.

A job is plain data (picklable, JSON-able) so any executor can ship it: the local process
pool (default; one model per worker process), Dask or Ray (optional extras). A worker
converts one model and returns a result record; a model that fails is a failed record,
never an exception that stops the batch.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from irconv.errors import IrconvError, UserError, clipped_lines


@dataclass(frozen=True)
class Job:
    """One model to convert and where its IR goes."""

    name: str
    model: str
    output: str
    framework: str | None = None
    weights: str | None = None
    inputs: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()  # plugin options by name, as --option gives them
    timeout: float | None = None  # seconds; enforced where the job runs on a process's main thread


@dataclass
class Result:
    """What happened to one job (a row of the report)."""

    name: str
    model: str
    output: str
    status: str  # "ok", "failed" or "skipped" (output complete and newer than its inputs)
    seconds: float = 0.0
    peak_mb: float = 0.0
    layers: int = 0
    error: str = ""
    framework: str = ""
    worker: int = field(default=0)

    def row(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------------- resuming
def inputs_of(job: Job) -> list[Path]:
    return [Path(p) for p in (job.model, job.weights) if p]


def _mtime(path: Path) -> float:
    if path.is_dir():
        return max((p.stat().st_mtime for p in path.rglob("*") if p.is_file()), default=path.stat().st_mtime)
    return path.stat().st_mtime


def is_up_to_date(job: Job) -> bool:
    """True when the IR (.xml and .bin) exists, is not empty and is newer than every input."""
    xml = Path(job.output)
    outputs = [xml, xml.with_suffix(".bin")]
    try:
        if any(not p.is_file() or p.stat().st_size == 0 for p in outputs):
            return False
        newest_input = max(_mtime(p) for p in inputs_of(job))
        return min(p.stat().st_mtime for p in outputs) >= newest_input
    except (OSError, ValueError):
        return False


# ---------------------------------------------------------------------------- one model
@functools.cache
def worker_host(disabled: tuple[str, ...]) -> Any:
    """The plugins, loaded once per worker process (a forked worker inherits the parent's)."""
    from irconv.plugins.manager import PluginHost

    host = PluginHost(disabled=disabled)
    host.registry()
    return host


def _reset_peak_memory() -> bool:
    """Reset this process's peak RSS (Linux: ``/proc/self/clear_refs``), so each model's is its own."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _peak_memory_mb(reset_worked: bool) -> float:
    if reset_worked:
        try:
            with open("/proc/self/status") as handle:
                for line in handle:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # peak of the whole worker


def convert_one(job: Job, disabled: tuple[str, ...] = ()) -> Result:
    """Convert one job in this process; every failure (and running out of time) becomes a
    failed ``Result``."""
    result = Result(job.name, job.model, job.output, "failed", worker=os.getpid())
    reset = _reset_peak_memory()
    start = time.perf_counter()
    try:
        with _time_limit(job.timeout):
            _convert(job, disabled, result)
    except _TimedOut:
        result.error = f"timed out after {job.timeout:g} s"
    result.seconds = round(time.perf_counter() - start, 3)
    result.peak_mb = round(_peak_memory_mb(reset), 1)
    return result


class _TimedOut(BaseException):
    """Raised in the converting thread when the job's time is up (not an Exception: the
    pipeline's own error handling must not swallow it)."""


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (SIGALRM; only on a process's main thread, where
    the local pool and sequential runs convert; Python code is interrupted between bytecodes)."""
    usable = seconds and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not usable:
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _TimedOut

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, float(seconds or 0))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _convert(job: Job, disabled: tuple[str, ...], result: Result) -> None:
    from irconv.contract.options import ConversionOptions, InputSpec
    from irconv.pipeline.run import ConversionReport, convert, save

    report = ConversionReport()
    try:
        host = worker_host(disabled)
        table = host.registry().options
        for key, _ in job.options:
            if table.by_name(key) is None:
                raise table.unknown(key, "options")
        options = ConversionOptions(
            framework=job.framework,
            inputs=[InputSpec.parse(text) for text in job.inputs],
            weights=Path(job.weights) if job.weights else None,
            plugin_values=dict(job.options),
        ).resolved(table)
        graph = convert(Path(job.model), options, host, report)
        save(graph, Path(job.output), options, host, protected=tuple(inputs_of(job)), report=report)
        result.status, result.layers, result.framework = "ok", len(graph), report.framework
    except IrconvError as exc:
        result.error = clipped_lines(str(exc).strip()) or "failed"
    except Exception as exc:  # a bug while converting one model must not stop the batch
        result.error = clipped_lines(f"internal error: {type(exc).__name__}: {exc}")
    finally:
        result.framework = result.framework or report.framework  # known once a loader was picked


# ---------------------------------------------------------------------------- executors
WORKER_DIED = "the worker process died converting it (a crash in native code?)"

Runner = Callable[[Sequence[Job], int, tuple[str, ...], Callable[[Result], None]], None]


def run_sequential(
    jobs: Sequence[Job], workers: int, disabled: tuple[str, ...], done: Callable[[Result], None]
) -> None:
    for job in jobs:
        done(convert_one(job, disabled))


def run_processes(jobs: Sequence[Job], workers: int, disabled: tuple[str, ...], done: Callable[[Result], None]) -> None:
    """A local process pool, one model per task. Workers are forked (where the platform
    allows and ``start_method`` finds it safe) after the plugins are loaded and a first model
    converted, so they start warm. A worker that dies (a crash in native code) fails only the model it was converting."""
    import multiprocessing

    worker_host(disabled)  # load plugins before forking
    available = multiprocessing.get_all_start_methods()
    pending = list(jobs)
    if start_method(available, sys.modules) == "fork" and len(pending) > workers:
        # The first model is converted here: the front end's modules (a framework's protobuf
        # schemas, the extractor tables) are then imported once and every forked worker starts warm.
        done(convert_one(pending.pop(0), disabled))
    method = start_method(available, sys.modules)  # again: that model may have loaded TensorFlow
    if method == "fork":  # every framework's extractors imported once here: the workers inherit them
        worker_host(disabled).registry().all_extractors()
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(["irconv.cli.batch"])
    broken: list[Job] = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures: dict[Future[Result], Job] = {pool.submit(convert_one, job, disabled): job for job in pending}
        try:
            for future in _as_completed(futures):
                try:
                    done(future.result())
                except BrokenProcessPool:
                    broken.append(futures[future])
        except KeyboardInterrupt:
            _stop(pool)
            raise
    # A dead worker breaks the whole pool: retry its victims one at a time, each in a fresh
    # worker, so only the model that kills its process is reported as failed.
    for job in broken:
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as single:
            try:
                done(single.submit(convert_one, job, disabled).result())
            except BrokenProcessPool:
                done(Result(job.name, job.model, job.output, "failed", error=WORKER_DIED))


def _stop(pool: ProcessPoolExecutor) -> None:
    """Ctrl-C: no new model starts, and the workers stop at once (SIGTERM: a worker removes
    the files it was writing, as one conversion does when interrupted)."""
    # Taken before shutdown, which drops the pool's table of them (the pool has no public kill).
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=10)


# Native runtimes whose thread pools and allocators do not survive a fork: a child forked
# from a process that has run one of them can crash in native code at any moment.
FORK_UNSAFE_MODULES = ("tensorflow", "openvino", "onnxruntime", "torch", "mxnet", "jax")


def start_method(available: Sequence[str], loaded: Mapping[str, object]) -> str | None:
    """``fork`` (warm workers: plugins and front-end modules already imported) unless this
    process has loaded a fork-unsafe runtime (a front end that converts with TensorFlow, or a
    caller's own imports); then ``forkserver`` (workers forked from a clean server process),
    or the platform's default where neither exists."""
    if "fork" in available and not any(name in loaded for name in FORK_UNSAFE_MODULES):
        return "fork"
    return "forkserver" if "forkserver" in available else None


def _as_completed(futures: dict[Future[Result], Job]) -> Iterator[Future[Result]]:
    from concurrent.futures import as_completed

    yield from as_completed(futures)


def run_dask(
    jobs: Sequence[Job],
    workers: int,
    disabled: tuple[str, ...],
    done: Callable[[Result], None],
    address: str | None = None,
) -> None:
    """Dask: the cluster at ``address``, or a local cluster of ``workers`` processes on loopback."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UserError("--executor dask needs Dask: pip install 'dask[distributed]'") from None
    cluster = None
    if address is None:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        )
    try:
        with Client(address or cluster) as client:
            futures = [client.submit(convert_one, job, disabled, pure=False) for job in jobs]
            for future in as_completed(futures):
                done(future.result())
    finally:
        if cluster is not None:
            cluster.close()


def run_ray(
    jobs: Sequence[Job],
    workers: int,
    disabled: tuple[str, ...],
    done: Callable[[Result], None],
    address: str | None = None,
) -> None:
    """Ray: the cluster at ``address``, or a local one with ``workers`` CPUs."""
    try:
        import ray
    except ImportError:
        raise UserError("--executor ray needs Ray: pip install 'ray[default]'") from None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1")
    try:
        remote = ray.remote(num_cpus=1)(convert_one)
        refs = [remote.remote(job, disabled) for job in jobs]
        while refs:
            ready, refs = ray.wait(refs, num_returns=1)
            done(ray.get(ready[0]))
    finally:
        if started:
            ray.shutdown()
