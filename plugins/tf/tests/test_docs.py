"""docs/tensorflow.md lists exactly the TF ops the plugin registers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "ops_table.py"


def test_supported_op_table_is_current() -> None:
    result = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
