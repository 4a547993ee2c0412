"""Run one conversion the way a user would, fenced in, and classify what happened.

Every conversion runs in a forked child of the driver (the driver imported irconv, the
plugins and, when needed, TensorFlow once, so a case costs milliseconds of start-up, not
seconds) under ``RLIMIT_AS`` (4 GiB by default beyond what the driver had mapped when it
forked) and a wall-clock limit (60 s). The child
runs ``irconv convert`` exactly as the command line does (``irconv.cli.main.main``), with its
stdout/stderr in files. A successful conversion is then read and compiled on CPU by
OpenVINO in a second forked child, so a crash of the runtime is told apart from one of
irconv.

Outcome classes (``OUTCOMES``):

- ``accepted``: converted, and OpenVINO's ``read_model`` + ``compile_model(CPU)`` took it;
- ``clean-error``: exit code 1, 2 or 5 and exactly one ``irconv: error:`` line, no traceback,
  no ``internal error``;
- ``ir-rejected``: converted, but OpenVINO refused the IR, or the IR has no outputs (a finding:
  irconv wrote an IR the runtime rejects, or one that computes nothing);
- ``internal-error``, ``traceback``, ``oom`` (MemoryError / over the memory limit), ``hang``
  (killed after the time limit), ``crash`` (killed by a signal), ``leftover`` (a file left
  behind beside the output), ``unclear-error`` (failed without one clear error line),
  ``long-message`` (one clear error line, but over ``LONGEST_MESSAGE`` characters): all findings.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30

OUTCOMES = (
    "accepted",
    "clean-error",
    "ir-rejected",
    "internal-error",
    "traceback",
    "oom",
    "hang",
    "crash",
    "leftover",
    "unclear-error",
    "long-message",
)
GOOD = frozenset({"accepted", "clean-error"})
#: The longest error line a clean error may print (issue 42: messages stay short).
LONGEST_MESSAGE = 2000


@dataclass(frozen=True)
class Limits:
    """The fence around each case."""

    memory_bytes: int = 4 * GIB  # address space a case may add to what the driver had mapped
    seconds: float = 60.0
    check_openvino: bool = True


@dataclass(frozen=True)
class Outcome:
    outcome: str
    exit_code: int | None
    message: str
    seconds: float

    @property
    def good(self) -> bool:
        return self.outcome in GOOD


def preload(formats: Sequence[str]) -> None:
    """Import what every child needs once, in the driver (children inherit it by fork)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import irconv.cli.main  # noqa: F401
    from irconv.plugins.manager import PluginHost

    PluginHost().registry()  # imports every installed plugin's module
    import openvino  # noqa: F401  (no Core yet: it starts threads; each child makes its own)

    if any(f in ("tf", "savedmodel", "keras") for f in formats):
        import tensorflow  # noqa: F401
    if "pt2" in formats:  # reading a .pt2 needs torch (the seeds are made with it too)
        import torch  # noqa: F401


def convert_case(model: Path, out: Path, extra: Sequence[str], limits: Limits) -> Outcome:
    """Convert ``model`` to ``out`` in a fenced child; check the IR with OpenVINO if it succeeded."""
    out.parent.mkdir(parents=True, exist_ok=True)
    before = _listing(model.parent) | _listing(out.parent)
    log = out.parent.parent / "log"
    log.mkdir(exist_ok=True)
    stdout, stderr = log / "stdout", log / "stderr"
    argv = ["convert", str(model), "-o", str(out), *extra]
    start = time.perf_counter()
    status = _fenced(lambda: _run_cli(argv), stdout, stderr, limits)
    seconds = time.perf_counter() - start
    err = stderr.read_text(errors="replace") if stderr.exists() else ""
    outcome = classify(status, err)
    expected = {out.name, out.with_suffix(".bin").name} if outcome.outcome == "accepted" else set()
    left = sorted((_listing(model.parent) | _listing(out.parent)) - before - {str(out.parent / n) for n in expected})
    if outcome.outcome in ("hang", "crash", "oom"):
        left = []  # a killed process may leave temps; the next run cleans them
    if left:
        return Outcome("leftover", outcome.exit_code, f"left behind: {left}", seconds)
    if outcome.outcome == "accepted" and limits.check_openvino:
        ov_err = log / "openvino"
        ov_status = _fenced(lambda: _openvino_check(out, ov_err), stdout, ov_err, limits)
        if ov_status != ("exit", 0):
            text = ov_err.read_text(errors="replace").strip() if ov_err.exists() else ""
            return Outcome("ir-rejected", 0, f"{ov_status}: {text[-600:]}", seconds)
    return Outcome(outcome.outcome, outcome.exit_code, outcome.message, seconds)


def classify(status: tuple[str, int], err: str) -> Outcome:
    kind, code = status
    lines = [line for line in err.splitlines() if line.strip()]
    error_lines = [line for line in lines if line.startswith("irconv: error:")]
    first = (error_lines or lines or [""])[0][:400]
    if kind == "timeout":
        return Outcome("hang", None, "killed after the time limit", 0)
    if kind == "signal":
        name = signal.Signals(code).name if code in signal.Signals._value2member_map_ else str(code)
        return Outcome("crash", None, f"killed by {name}: {first}", 0)
    if "MemoryError" in err or "bad_alloc" in err:
        return Outcome("oom", code, first, 0)
    if "Traceback (most recent call last)" in err:
        return Outcome("traceback", code, _last_line(err), 0)
    if "internal error" in err:
        return Outcome("internal-error", code, _line_with(err, "internal error"), 0)
    if code == 0:
        return Outcome("accepted", 0, "", 0)
    if code in (1, 2, 5) and len(error_lines) == 1:
        if len(error_lines[0]) > LONGEST_MESSAGE:
            return Outcome("long-message", code, first, 0)
        return Outcome("clean-error", code, first, 0)
    return Outcome("unclear-error", code, first, 0)


def _run_cli(argv: list[str]) -> int:
    from irconv.cli.main import main

    return main(argv)


def _openvino_check(xml: Path, err: Path) -> int:
    import openvino as ov
    from irconv.runtime import compile_for_comparison

    try:
        compiled = compile_for_comparison(xml, core=ov.Core())
    except Exception as exc:  # the runtime's refusal is what we record
        err.write_text(f"{type(exc).__name__}: {exc}")
        return 1
    if not compiled.outputs:  # the runtime takes it, but it computes nothing
        err.write_text("the IR has no outputs")
        return 1
    return 0


def _fenced(body: Callable[[], int], stdout: Path, stderr: Path, limits: Limits) -> tuple[str, int]:
    """Run ``body`` in a forked child under the limits; ("exit", code) | ("signal", n) | ("timeout", 0)."""
    pid = os.fork()
    if pid == 0:  # child
        code = 70
        try:
            os.setsid()
            # The child inherits the driver's mappings (a test session that imported TensorFlow
            # and OpenVINO maps several GiB), so the budget counts from there.
            ceiling = _mapped_bytes() + limits.memory_bytes
            resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            out_fd = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            err_fd = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out_fd, 1)
            os.dup2(err_fd, 2)
            import sys

            # a test runner may have replaced the streams: write where the files are
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            signal.signal(signal.SIGINT, signal.default_int_handler)
            code = body()
        except BaseException as exc:  # noqa: BLE001 - report anything escaping the CLI itself
            import traceback

            traceback.print_exc()
            code = 71 if isinstance(exc, MemoryError) else 70
        finally:
            import sys

            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(code if isinstance(code, int) else 70)
    deadline = time.monotonic() + limits.seconds
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            _kill_group(pid)
            os.waitpid(pid, 0)
            return ("timeout", 0)
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    _kill_group(pid)  # anything the child started
    if os.WIFSIGNALED(status):
        return ("signal", os.WTERMSIG(status))
    return ("exit", os.WEXITSTATUS(status))


def _mapped_bytes() -> int:
    """This process's virtual size (``VmSize``), 0 where /proc does not tell."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _listing(folder: Path) -> set[str]:
    if not folder.is_dir():
        return set()
    return {str(p) for p in folder.rglob("*")}


def _last_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    return lines[-1][:400] if lines else ""


def _line_with(err: str, text: str) -> str:
    for line in err.splitlines():
        if text in line:
            return line[:400]
    return ""
