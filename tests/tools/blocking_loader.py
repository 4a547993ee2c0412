"""A test plugin whose models never finish loading, so a test can interrupt ``irconv
convert-many`` while a worker is provably converting (a state it waits for), not after some
time that a faster machine outruns.

A ``.block`` file holds the path of a marker file. Loading it writes the converting process's
id to that marker (atomically: a reader never sees it half written) and then waits until a
signal stops the process. ``plugin_site`` makes the plugin discoverable by entry point.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from irconv import Loader, hookimpl

SUFFIX = ".block"


def _load(path: Path, ctx: Any) -> Any:
    marker = Path(path.read_text(encoding="utf-8").strip())
    partial = marker.with_name(marker.name + ".part")
    partial.write_text(str(os.getpid()), encoding="utf-8")
    partial.replace(marker)
    threading.Event().wait()  # until SIGINT/SIGTERM ends the process
    raise AssertionError("a blocking model finished loading")


@hookimpl
def load_model() -> list[Loader]:
    return [Loader(framework="blocking", load=_load, suffixes=(SUFFIX,), description="test fixture: never loads")]


def plugin_site(folder: Path) -> Path:
    """A folder that, on ``PYTHONPATH`` beside this module's, installs the plugin: the
    distribution's metadata with its ``irconv`` entry point."""
    info = folder / "irconv_blocking_fixture-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: irconv-blocking-fixture\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[irconv]\nblocking = {__name__}\n")
    return folder


def block(path: Path, marker: Path) -> Path:
    """Write a model at ``path`` (a ``.block`` file) whose loading announces itself in ``marker``."""
    path.write_text(str(marker), encoding="utf-8")
    return path
