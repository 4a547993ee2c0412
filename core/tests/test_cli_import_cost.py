"""``irconv --help`` and every command's ``--help`` parse without NumPy, networkx or a pool."""

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "networkx", "concurrent.futures", "multiprocessing", "rich")


@pytest.mark.parametrize(
    "argv", [["--version"], ["--help"], ["show", "--help"], ["convert-many", "--help"], ["docs", "--help"]]
)
def test_help_is_cheap(argv):
    code = (
        "import contextlib, io, json, sys\n"
        "from irconv.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
