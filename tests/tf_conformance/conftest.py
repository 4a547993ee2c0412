"""The full TensorFlow conformance run (``-m slow``) takes tens of minutes: plain ``pytest`` skips it."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: the full run; use -m slow or python tests/tf_conformance/harness.py")
    for item in items:
        if "slow" in item.keywords and Path(str(item.fspath)).resolve().parent == HERE:
            item.add_marker(skip)
