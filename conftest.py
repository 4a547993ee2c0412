"""Session-wide settings that must be in place before any test module imports TensorFlow,
and the re-run of a test whose xdist worker crashed.

TensorFlow reads these environment variables once, at import; whichever test module imports
it first (collection order varies with the paths given) fixes them for the whole session.
oneDNN is off because its Conv2D/Conv3D/DepthwiseConv2dNative kernels return the input's
shape for an empty batch (TF 2.21), which would make TensorFlow a wrong reference.
"""

import contextlib
import os

import pytest

# tests/test_parallel_runs.py runs pytest inside pytest.
pytest_plugins = ["pytester"]

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

# The plugin-summary cache (irconv.plugins.summary) of a test session stays in the session.
if "IRCONV_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["IRCONV_CACHE_DIR"] = tempfile.mkdtemp(prefix="irconv-test-cache-")


class CrashedTestRerun:
    """Runs a test whose worker process died (a segfault in a native library, an abort) once
    more, in the fresh worker xdist starts in its place; the run goes on either way, and a
    second crash of the same test is its failure. Failures that are not crashes are never
    re-run. Registered in the controlling process of an ``-n`` run only."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.crashed: set[str] = set()

    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: object) -> None:
        if crashitem in self.crashed:
            report.longrepr = f"{report.longrepr}, the second time (the first crash was re-run)"
            return
        self.crashed.add(crashitem)
        try:
            sched.mark_test_pending(crashitem)  # type: ignore[attr-defined]
        except NotImplementedError:  # --dist loadfile/loadscope/loadgroup cannot hand a test out again
            self.announce(f"{crashitem}: its worker crashed; `--dist {self.config.option.dist}` cannot re-run it"
                          " (`--dist load` or `worksteal` can)")
            return
        report.outcome = "rerun"  # type: ignore[assignment]
        self.announce(f"{crashitem}: its worker crashed; re-running it in a fresh worker")

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        if report.outcome == "rerun":
            return "rerun", "R", "RERUN"
        return None

    def announce(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line, yellow=True, bold=True)


def _commands_to_a_dead_worker_are_dropped() -> None:
    """A command the controller sends to a worker that has just died (xdist's work stealing
    asks the busiest worker for tests, which may be the one crashing) raised OSError out of
    the run loop, an INTERNALERROR that ended the whole run. xdist handles the worker's death
    when it sees it go down: its tests go back to the queue and an unanswered steal request
    is forgotten (``remove_node``), so the lost command needs nothing else."""
    from xdist.workermanage import WorkerController

    send = WorkerController.sendcommand

    def sendcommand(self: WorkerController, name: str, **kwargs: object) -> None:
        with contextlib.suppress(OSError):  # the pipe to the worker is gone (xdist's own shutdown does so)
            send(self, name, **kwargs)

    WorkerController.sendcommand = sendcommand  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(CrashedTestRerun(config), "irconv-crashed-test-rerun")
        _commands_to_a_dead_worker_are_dropped()
