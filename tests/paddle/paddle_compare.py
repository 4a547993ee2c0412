"""Saving Paddle models (in a subprocess, per program form) and comparing irconv's conversion
run in OpenVINO with Paddle's own results."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
PADDLE_VERSION = "3.3"
FORMS = {"pir": ".json", "legacy": ".pdmodel"}
#: Largest accepted |irconv on OpenVINO - Paddle| relative to the largest |Paddle output|.
RTOL = 1e-4


def save_models(out: Path, form: str, mapping: str, names: Iterable[str]) -> None:
    """Run save_models.py for ``names`` of ``module:MAPPING`` (a module beside this file)."""
    env = {**os.environ, "FLAGS_enable_pir_api": "1" if form == "pir" else "0", "GLOG_minloglevel": "2"}
    out.mkdir(parents=True, exist_ok=True)
    names = list(names)
    for attempt in range(2):
        result = subprocess.run([sys.executable, str(HERE / "save_models.py"), str(out), mapping, *names],
                                cwd=HERE, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"saving the Paddle models failed:\n{result.stderr[-4000:]}")
        # paddle.jit.save now and then fails inside Paddle (an UnboundLocalError in its own
        # code) on a case it saves on the next try: the cases that failed get one more, in a
        # fresh process; what still fails stays recorded in NAME.error for the test to report.
        names = [n for n in names if (out / f"{n}.error").exists()]
        if not names or attempt:
            return
        for n in names:
            (out / f"{n}.error").unlink()


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if want.size else 0.0
    return diff / max(scale, 1e-6)


def convert_and_run(program: Path, feeds: dict[str, np.ndarray], xml: Path, host: Any = None) -> list[np.ndarray]:
    """Convert ``program`` with irconv, emit f32 IR, run it in OpenVINO: outputs in IR order."""
    import irconv
    from irconv.testing.runtime import compile_ir

    graph = irconv.convert_model(program, host=host)
    irconv.save_model(graph, xml, host=host, compress_to_fp16=False)
    compiled = compile_ir(xml)
    request = compiled.create_infer_request()
    feed = {}
    for port in compiled.inputs:
        feed[port] = feeds[next(n for n in feeds if n in port.get_names())]
    request.infer(feed)
    return [np.array(request.get_tensor(port).data) for port in compiled.outputs]


def check_saved(folder: Path, name: str, form: str, xml_dir: Path, rtol: float = RTOL) -> float:
    """Convert the saved case ``name`` and compare every output with Paddle's; the worst error."""
    error = folder / f"{name}.error"
    if error.exists():
        text = error.read_text()
        if form == "legacy" and "must be Value, but got" in text:
            import pytest

            pytest.skip(f"Paddle {PADDLE_VERSION} writes no legacy program for this op (its Python API is PIR-only)")
        if form == "legacy" and "Unknown place type" in text:
            import pytest

            pytest.skip(f"Paddle {PADDLE_VERSION} fails writing this legacy program (Unknown place type)")
        raise RuntimeError(f"Paddle could not save case {name!r}:\n{error.read_text()[-3000:]}")
    data = np.load(folder / f"{name}.npz")
    feeds = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
    want = [data[f"out:{i}"] for i in range(sum(k.startswith("out:") for k in data.files))]
    got = convert_and_run(folder / f"{name}{FORMS[form]}", feeds, xml_dir / f"{name}-{form}.xml")
    assert len(got) == len(want), f"{len(got)} outputs, Paddle has {len(want)}"
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape, f"shape {g.shape} != Paddle's {w.shape}"
        if w.dtype == np.bool_ or np.issubdtype(w.dtype, np.integer):
            assert np.array_equal(g, w)
            continue
        error = relative_error(g, w)
        assert error <= rtol, f"relative error {error:.2e} > {rtol:.0e}"
        worst = max(worst, error)
    return worst


