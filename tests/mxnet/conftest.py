"""Fixtures for the MXNet end-to-end tests: MXNet itself is the reference.

MXNet 1.9.1 needs numpy 1.23, so these tests run in the tox env ``mxnet`` (see tox.ini);
in an environment without MXNet every test module here skips at import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv_mxnet.testing import relative_error

#: Largest accepted |irconv on OpenVINO - MXNet| relative to the largest |MXNet output|.
RTOL = 1e-4


def save_checkpoint(prefix: Path, symbol: Any, args: Mapping[str, Any], aux: Mapping[str, Any]) -> Path:
    """``<prefix>-symbol.json`` and ``<prefix>-0000.params`` as ``Module.save_checkpoint`` writes them."""
    import mxnet as mx

    symbol.save(f"{prefix}-symbol.json")
    arrays = {f"arg:{k}": mx.nd.array(v, dtype=v.dtype) for k, v in args.items()}
    arrays.update({f"aux:{k}": mx.nd.array(v, dtype=v.dtype) for k, v in aux.items()})
    mx.nd.save(f"{prefix}-0000.params", arrays)
    return Path(f"{prefix}-symbol.json")


def run_mxnet(symbol: Any, feeds: Mapping[str, np.ndarray], args: Mapping[str, np.ndarray],
              aux: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Inference (is_train=False) of a symbol in MXNet."""
    import mxnet as mx

    arrays = {k: mx.nd.array(v, dtype=v.dtype) for k, v in {**feeds, **args}.items()}
    for name in symbol.list_arguments():
        if name not in arrays:  # training-only labels
            shapes, _, _ = symbol.infer_shape_partial(**{k: v.shape for k, v in feeds.items()})
            shape = dict(zip(symbol.list_arguments(), shapes, strict=True))[name]
            arrays[name] = mx.nd.zeros(shape)
    aux_arrays = {k: mx.nd.array(v, dtype=v.dtype) for k, v in aux.items()}
    executor = symbol.bind(mx.cpu(), arrays, aux_states=aux_arrays, grad_req="null")
    return [o.asnumpy() for o in executor.forward(is_train=False)]


@pytest.fixture
def mxnet_run() -> Callable[..., list[np.ndarray]]:
    """``mxnet_run(symbol, feeds, args, aux)``: MXNet's outputs (inference)."""
    return run_mxnet


@pytest.fixture
def checkpoint(tmp_path: Path) -> Callable[..., Path]:
    """``checkpoint(name, symbol, args, aux)``: save in tmp_path, return the symbol path."""

    def save(name: str, symbol: Any, args: Mapping[str, Any], aux: Mapping[str, Any] | None = None) -> Path:
        return save_checkpoint(tmp_path / name, symbol, args, aux or {})

    return save


@pytest.fixture(scope="session")
def mxnet_host() -> Any:
    from irconv import PluginHost

    return PluginHost(strict=True)


@pytest.fixture
def convert_run(tmp_path: Path, mxnet_host: Any) -> Callable[..., list[np.ndarray]]:
    """``convert_run(symbol_json, feeds, **options)``: convert, emit (f32), run in OpenVINO;
    outputs in the IR's output order."""
    import irconv
    from irconv.testing.runtime import compile_ir

    def run(path: Path, feeds: Mapping[str, np.ndarray], host: Any = None, **options: Any) -> list[np.ndarray]:
        inputs = options.pop("inputs", [f"{k}[{','.join(str(d) for d in v.shape)}]" for k, v in feeds.items()])
        graph = irconv.convert_model(path, host=host or mxnet_host, inputs=inputs, **options)
        xml = tmp_path / (Path(path).name.removesuffix("-symbol.json") + ".xml")
        irconv.save_model(graph, xml, host=host or mxnet_host, compress_to_fp16=False)
        compiled = compile_ir(xml)
        request = compiled.create_infer_request()
        feed = {}
        for port in compiled.inputs:
            name = next(n for n in feeds if n in port.get_names())
            feed[port] = feeds[name]
        request.infer(feed)
        return [np.array(request.get_tensor(port).data) for port in compiled.outputs]

    return run


@pytest.fixture
def check_symbol(tmp_path: Path, convert_run: Callable[..., list[np.ndarray]]) -> Callable[..., float]:
    """``check_symbol(symbol, feeds, args={}, aux={}, rtol=RTOL)``: save it as a checkpoint,
    convert it, and compare every output with MXNet's; returns the largest relative error."""

    def check(symbol: Any, feeds: Mapping[str, np.ndarray], args: Mapping[str, np.ndarray] | None = None,
              aux: Mapping[str, np.ndarray] | None = None, rtol: float = RTOL, name: str = "model",
              **options: Any) -> float:
        args, aux = dict(args or {}), dict(aux or {})
        path = save_checkpoint(tmp_path / name, symbol, args, aux)
        want = run_mxnet(symbol, feeds, args, aux)
        got = convert_run(path, feeds, **options)
        assert len(got) == len(want)
        worst = 0.0
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape, f"shape {g.shape} != MXNet's {w.shape}"
            error = relative_error(g, w)
            assert error <= rtol, f"relative error {error:.2e} > {rtol:.0e}"
            worst = max(worst, error)
        return worst

    return check
