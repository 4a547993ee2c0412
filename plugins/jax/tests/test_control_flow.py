"""jax.lax control flow (fori_loop, while_loop, scan, cond, switch) converted to OpenVINO's
Loop and If and run against jax on CPU: inside jit, with a symbolic batch, and from a
jax.export artifact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import openvino as ov
import pytest
from jax import export, lax
from jax_support import check_compiled, check_function, convert_and_compile

RNG = np.random.default_rng(0)
W = (RNG.standard_normal((4, 4)) * 0.5).astype(np.float32)


def _f(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _fori_static(x: jax.Array) -> jax.Array:
    return lax.fori_loop(0, 5, lambda i, c: jnp.tanh(c @ W) + i.astype(jnp.float32), x)


def _fori_counted_by_input(x: jax.Array, n: jax.Array) -> jax.Array:
    return lax.fori_loop(0, n, lambda i, c: c * 1.5 + i.astype(jnp.float32), x)


def _doubling_until_large(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Iterations decided by the data: a different count for each input."""
    return lax.while_loop(lambda c: jnp.sum(jnp.abs(c[0])) < 100.0, lambda c: (c[0] * 2 + 0.5, c[1] + 1), (x, 0))


def _rnn(xs: jax.Array, h: jax.Array) -> tuple[jax.Array, jax.Array]:
    """An RNN cell over a sequence [time, batch, features]: the last state and every output."""

    def cell(state: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        state = jnp.tanh(state @ W + x)
        return state, jax.nn.sigmoid(state) * 2

    return lax.scan(cell, h, xs)


def _rnn_reversed(xs: jax.Array, h: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.scan(lambda s, x: (s * 0.5 + x, s - x), h, xs, reverse=True)


def _cumulative_max(xs: jax.Array) -> jax.Array:
    """A scan over the time axis of [batch, time]: its slices have the symbolic batch."""
    return lax.scan(lambda m, x: (jnp.maximum(m, x), jnp.maximum(m, x)), jnp.min(xs, axis=1), xs.T)[1].T


def _cond(x: jax.Array) -> jax.Array:
    return lax.cond(jnp.sum(x) > 0, lambda a: jnp.tanh(a @ W), lambda a: a - W[0], x)


def _cond_two_outputs(x: jax.Array, flag: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.cond(flag, lambda a: (a * 2, jnp.sum(a, dtype=jnp.int32)), lambda a: (a + 1, jnp.int32(-1)), x)


def _switch(x: jax.Array, i: jax.Array) -> jax.Array:
    return lax.switch(i, [lambda a: a, lambda a: a * 3, lambda a: a + W[1], lambda a: jnp.exp(a)], x)


def _loop_of_conds(x: jax.Array) -> jax.Array:
    """A cond inside a loop body, reading a value from outside the loop."""
    limit = jnp.max(x)
    return lax.fori_loop(0, 4, lambda i, c: lax.cond(i % 2 == 0, lambda a: a * 2 - limit, lambda a: a + limit, c), x)


def _cond_of_loops(x: jax.Array) -> jax.Array:
    return lax.cond(x[0, 0] > 0, lambda a: lax.fori_loop(0, 3, lambda i, c: c * c, a),
                    lambda a: lax.while_loop(lambda c: jnp.max(c) < 4.0, lambda c: c + 1, a), x)


def test_a_fori_loop_with_a_static_trip_count(tmp_path: Path) -> None:
    check_function(jax.jit(_fori_static), _f(3, 4), tmp_path)


def test_a_fori_loop_counted_by_an_input(tmp_path: Path) -> None:
    runs = [(_f(2, 3), np.int32(n)) for n in (0, 1, 4)]
    check_function(jax.jit(_fori_counted_by_input), runs[0], tmp_path, runs=runs)


def test_a_while_loop_with_a_data_dependent_condition(tmp_path: Path) -> None:
    runs = [_f(2, 3) * scale for scale in (0.01, 1.0, 100.0)]  # several iterations, some, none
    compiled = convert_and_compile(_doubling_until_large, tmp_path, example_input=runs[0])
    counts = {int(compiled([x])[compiled.output(1)]) for x in runs}
    assert len(counts) == 3, counts
    check_function(_doubling_until_large, runs[0], tmp_path, runs=runs)


@pytest.mark.parametrize("function", [_rnn, _rnn_reversed], ids=["forward", "reverse"])
def test_a_scan_over_a_sequence(function: Any, tmp_path: Path) -> None:
    check_function(jax.jit(function), (_f(6, 2, 4), _f(2, 4)), tmp_path)


def test_a_scan_with_a_symbolic_batch(tmp_path: Path) -> None:
    xs = jax.ShapeDtypeStruct(export.symbolic_shape("t, b, 4"), jnp.float32)
    h = jax.ShapeDtypeStruct(export.symbolic_shape("b, 4", scope=xs.shape[0].scope), jnp.float32)
    runs = [(_f(t, b, 4), _f(b, 4)) for t, b in ((5, 1), (2, 3), (7, 2))]
    check_function(_rnn, (xs, h), tmp_path, runs=runs)


def test_a_scan_over_the_time_axis_of_a_symbolic_batch(tmp_path: Path) -> None:
    spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, 6"), jnp.float32)
    check_function(_cumulative_max, spec, tmp_path, runs=[_f(1, 6), _f(4, 6)])


def test_cond_takes_either_branch(tmp_path: Path) -> None:
    x = _f(2, 4)
    check_function(jax.jit(_cond), x, tmp_path, runs=[np.abs(x), -np.abs(x)])


def test_cond_with_outputs_of_two_types(tmp_path: Path) -> None:
    x = RNG.integers(0, 5, (3,)).astype(np.float32)
    runs = [(x, np.bool_(True)), (x, np.bool_(False))]
    check_function(_cond_two_outputs, runs[0], tmp_path, runs=runs)


def test_switch_runs_each_branch_and_clamps_its_index(tmp_path: Path) -> None:
    x = _f(3, 4)
    runs = [(x, np.int32(i)) for i in (0, 1, 2, 3, -2, 7)]
    check_function(jax.jit(_switch), runs[0], tmp_path, runs=runs)


@pytest.mark.parametrize("function", [_loop_of_conds, _cond_of_loops], ids=["cond_in_loop", "loop_in_cond"])
def test_nested_control_flow(function: Any, tmp_path: Path) -> None:
    x = _f(2, 3)
    check_function(jax.jit(function), x, tmp_path, runs=[np.abs(x) + 0.1, -np.abs(x) - 0.1])


def test_control_flow_from_an_artifact_with_a_symbolic_batch(tmp_path: Path) -> None:
    def program(xs: jax.Array, h: jax.Array) -> tuple[jax.Array, jax.Array]:
        last, outputs = _rnn(xs, h)
        return _cond(last), _doubling_until_large(outputs)[0]

    xs = jax.ShapeDtypeStruct(export.symbolic_shape("t, b, 4"), jnp.float32)
    h = jax.ShapeDtypeStruct(export.symbolic_shape("b, 4", scope=xs.shape[0].scope), jnp.float32)
    path = tmp_path / "program.jaxexport"
    path.write_bytes(export.export(jax.jit(program))(xs, h).serialize())
    compiled = convert_and_compile(path, tmp_path)
    written = ov.Core().read_model(tmp_path / "model.xml")  # where convert_and_compile saves it
    assert {op.get_type_name() for op in written.get_ops()} >= {"Loop", "If"}
    check_compiled(compiled, program, [(_f(3, 2, 4), _f(2, 4)), (_f(5, 1, 4), -_f(1, 4))])
