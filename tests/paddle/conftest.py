"""Fixtures for the Paddle end-to-end tests: Paddle itself is the reference.

Models are saved by ``save_models.py`` in a subprocess per program form (Paddle picks the
form once, at start, from ``FLAGS_enable_pir_api``), one subprocess for every case of a
module, so Paddle is never imported by the test process.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# Found, not imported: importing Paddle into a process that has loaded torch or TensorFlow
# (as the whole test run has) crashes it.
if importlib.util.find_spec("paddle") is None:
    pytest.skip("paddlepaddle (the reference runtime) is not installed", allow_module_level=True)
sys.path.insert(0, str(Path(__file__).parent))  # paddle_cases.py, paddle_compare.py

from paddle_compare import save_models  # noqa: E402


@pytest.fixture(scope="session")
def saved_cases(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``saved_cases(form)``: the folder holding every case of cases.py saved in ``form``."""
    from paddle_cases import CASES

    folders: dict[str, Path] = {}

    def get(form: str) -> Path:
        if form not in folders:
            folder = tmp_path_factory.mktemp(f"paddle-{form}")
            save_models(folder, form, "paddle_cases:CASES", [n for n, case in CASES.items() if form in case.forms])
            folders[form] = folder
        return folders[form]

    return get
