"""The jax.export artifact from the command line, bad input, and what the plugin imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export, lax


def _network(x: jax.Array) -> jax.Array:
    w = jnp.asarray(np.random.default_rng(0).standard_normal((3, 3, 2, 4)), jnp.float32)
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.softmax(jax.nn.relu(y).mean(axis=(1, 2)))


def _artifact(tmp_path: Path, shape: str) -> Path:
    spec = jax.ShapeDtypeStruct(export.symbolic_shape(shape), jnp.float32)
    path = tmp_path / "net.jaxexport"
    path.write_bytes(export.export(jax.jit(_network))(spec).serialize())
    return path


def _convert(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "irconv", "convert", *arguments], capture_output=True, text=True,
                          timeout=600)


def test_an_artifact_converts_from_the_command_line_with_its_dynamic_batch(tmp_path: Path) -> None:
    import openvino as ov
    from irconv.runtime import compile_for_comparison

    out = tmp_path / "net.xml"
    done = _convert(str(_artifact(tmp_path, "b, 6, 6, 2")), "-o", str(out), "--no-compress-to-fp16")
    assert done.returncode == 0, done.stderr
    model = ov.Core().read_model(out)
    assert model.inputs[0].get_partial_shape().to_string() == "[?,6,6,2]"
    compiled = compile_for_comparison(model, core=ov.Core())
    for batch in (1, 4):
        x = np.random.default_rng(batch).standard_normal((batch, 6, 6, 2)).astype(np.float32)
        np.testing.assert_allclose(compiled([x])[0], np.asarray(_network(x)), rtol=1e-4, atol=1e-6)


def test_a_truncated_artifact_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    artifact = _artifact(tmp_path, "1, 6, 6, 2")
    artifact.write_bytes(artifact.read_bytes()[: artifact.stat().st_size // 2])
    out = tmp_path / "out" / "net.xml"
    done = _convert(str(artifact), "-o", str(out))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "net.jaxexport" in lines[0] and "jax.export" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists() and not out.with_suffix(".bin").exists()


def test_unsupported_ops_are_listed_at_once_and_nothing_is_written(tmp_path: Path) -> None:
    def unsupported(x: jax.Array) -> jax.Array:
        # an op inside a loop body is listed with the others
        counted = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, lax.cbrt(c[1])), (0, x))[1]
        return counted + jnp.fft.fft(x, axis=0).real

    path = tmp_path / "bad.jaxexport"
    path.write_bytes(export.export(jax.jit(unsupported))(jnp.ones((4, 3), jnp.float32)).serialize())
    out = tmp_path / "bad.xml"
    done = _convert(str(path), "-o", str(out))
    assert done.returncode != 0
    assert all(f"stablehlo.{op}" in done.stderr for op in ("cbrt", "fft", "real")), done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_a_custom_call_is_reported_with_its_target(tmp_path: Path) -> None:
    """A custom call (here LAPACK's, from jnp.linalg) is named by its target, the domain a
    plugin would register an extractor under."""
    path = tmp_path / "solve.jaxexport"
    path.write_bytes(export.export(jax.jit(jnp.linalg.inv))(jnp.eye(3, dtype=jnp.float32)).serialize())
    done = _convert(str(path), "-o", str(tmp_path / "solve.xml"))
    assert done.returncode != 0
    assert "::stablehlo.custom_call" in done.stderr and "lapack" in done.stderr.lower(), done.stderr


def test_a_function_without_example_input_is_told_what_to_give() -> None:
    import irconv
    from irconv.errors import UserError

    with pytest.raises(UserError, match="example_input"):
        irconv.convert_model(jax.jit(_network))


def test_the_plugin_and_its_extractors_import_without_jax() -> None:
    probe = ("import sys, irconv_jax.plugin, irconv_jax.extractors, irconv_jax.sniff\n"
             "from irconv_jax.extractors import all_extractors\n"
             "assert all_extractors()\n"
             "assert not [m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib', 'flax')]\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_verify_runs_the_artifact_in_jax(tmp_path: Path) -> None:
    def two_outputs(x: jax.Array, w: jax.Array) -> tuple[jax.Array, jax.Array]:
        return jnp.tanh(x) @ w, x.sum()

    path = tmp_path / "two.jaxexport"
    spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, 3"), jnp.float32)
    path.write_bytes(export.export(jax.jit(two_outputs))(spec, jnp.ones((3, 2), jnp.float32)).serialize())
    done = _convert(str(path), "-o", str(tmp_path / "two.xml"), "--verify", "--input", "input0[2,3]")
    assert done.returncode == 0, done.stderr
    assert "verified 2 output(s) against jax" in done.stdout + done.stderr
