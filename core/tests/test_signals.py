"""SIGTERM during a conversion ends it like Ctrl-C: one line, exit 143, no output files."""

import signal
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = """
import sys, threading
from pathlib import Path
sys.path.insert(0, {tests!r})
import core_toy_plugin
from core_toy_plugin import ToyPlugin, load_toy
from irconv.cli import convert_cmd
from irconv.cli.main import main
from irconv.plugins import PluginHost

def slow_load(path, ctx):
    Path({ready!r}).write_text("loading")
    threading.Event().wait()  # until the signal
    return load_toy(path, ctx)

core_toy_plugin.load_toy = slow_load
class Host(PluginHost):
    def __init__(self, **kwargs):
        super().__init__(autoload=False, **kwargs)
        self.register(ToyPlugin(), "toy")
convert_cmd.PluginHost = Host
sys.exit(main(["convert", {model!r}, "-o", {out!r}]))
"""


def test_sigterm_is_a_clean_stop(tmp_path: Path) -> None:
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop r MyRelu x\noutput y r\n")
    ready = tmp_path / "ready"
    script = SCRIPT.format(
        tests=str(Path(__file__).parent), ready=str(ready), model=str(model), out=str(tmp_path / "out.xml")
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600  # bounds a hang only: the signal waits for the state below
    while not ready.exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "the conversion never started loading"
        time.sleep(0.05)
    assert ready.exists(), proc.communicate()  # the conversion is loading (and stays there)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "interrupted; no output was written" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.toy", "ready"]
