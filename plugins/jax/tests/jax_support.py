"""Converting a JAX function or Flax module with irconv and comparing OpenVINO's results
with jax's own on CPU."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from irconv.runtime import compile_for_comparison


def as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def convert_and_compile(model: Any, tmp_path: Path, **keywords: Any) -> Any:
    """``model`` converted (``example_input=`` and the like in ``keywords``), saved and compiled at f32."""
    import irconv
    import openvino as ov

    graph = irconv.convert_model(model, **keywords)
    xml = tmp_path / "model.xml"
    irconv.save_model(graph, xml, compress_to_fp16=False)
    return compile_for_comparison(xml, core=ov.Core())


def check_function(function: Callable[..., Any], example_input: Any, tmp_path: Path, *, runs: Sequence[Any] = (),
                   rtol: float = 1e-4, atol: float = 1e-5, **keywords: Any) -> None:
    """Convert ``function`` on ``example_input`` (arrays, or ShapeDtypeStructs when ``runs``
    gives the concrete inputs); on each input, jax and the IR in OpenVINO agree in shape,
    dtype kind and values."""
    compiled = convert_and_compile(function, tmp_path, example_input=example_input, **keywords)
    check_compiled(compiled, function, [example_input] if not runs else list(runs), rtol=rtol, atol=atol)


def check_compiled(compiled: Any, function: Callable[..., Any], runs: Sequence[Any], *, rtol: float = 1e-4,
                   atol: float = 1e-5) -> None:
    """On each input of ``runs``, jax's ``function`` and the compiled IR agree in shape,
    dtype kind and values."""
    for inputs in runs:
        arguments = [np.asarray(a) for a in as_tuple(inputs)]
        expected = [np.asarray(e) for e in as_tuple(function(*arguments))]
        result = compiled(arguments)
        actual = [result[compiled.output(i)] for i in range(len(expected))]
        for want, got in zip(expected, actual, strict=True):
            assert got.shape == want.shape, (got.shape, want.shape)
            if want.dtype == np.bool_ or want.dtype.kind in "iu":
                np.testing.assert_array_equal(got.astype(want.dtype), want)
            else:
                np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=rtol, atol=atol)
