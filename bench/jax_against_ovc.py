"""irconv-jax against OpenVINO's converter (``openvino.convert_model``) on the JAX models the
tests build: whether each converts and matches jax, conversion time and peak memory.

The models are those of ``tests/jax/test_models.py`` (Flax CNN, MLP, convolutional
autoencoder, MLP-Mixer block, transformer encoder block, a text classifier, an LSTM/GRU
tagger) with their random initial weights, two jitted functions (``tanh(x) * 2`` and a program
of fori_loop, while_loop, scan, cond and switch), and two ``jax.export`` artifacts (the CNN
with a symbolic batch and the control-flow program).

Each conversion runs in its own process; the tools alternate per round (the order flips
every round). A child builds the model, then times only the conversion and the IR's
writing (``convert_model`` + ``save_model``: irconv's includes ``jax.export``'s tracing
and lowering to StableHLO, OpenVINO's its ``jax.make_jaxpr`` tracing, the only JAX input
it takes), and reports its peak RSS before and after. A third child kind, ``jax-export``,
times ``jax.export`` and the StableHLO text alone: JAX's own share of irconv's time.
Afterwards each IR is compiled (f32) and run against jax on the example input.

OpenVINO is given what it accepts, the jaxpr of the plain (not jitted) apply function, and
an artifact's file for the ``artifact-*`` rows; a jitted function and a bound Flax module
are also tried once each and their first error line reported.

    python bench/jax_against_ovc.py                      # every model, 3 rounds
    python bench/jax_against_ovc.py --models cnn,mlp --rounds 5
    python bench/jax_against_ovc.py --profile cnn        # cProfile of irconv's conversion of one model
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import MIB, ProcessFailed, alternating, markdown_table, run_process, self_peak_rss, use_test_helpers

#: model name -> the test network it is (``tests/jax/test_models.py``), or a function below
NETWORKS = ("cnn", "mlp", "autoencoder", "mixer_block", "encoder_block")
MODELS = (*NETWORKS, "text_classifier", "sequence_tagger", "jit-tanh", "jit-control-flow", "artifact-cnn",
          "artifact-control-flow")
TOOLS = ("irconv", "ovc", "jax-export")


# ------------------------------------------------------------------- the models
def _tests() -> None:
    """The tests' model builders importable: tests/jax, and the plugin's tests (jax_support)."""
    use_test_helpers("jax")
    plugin_tests = str(Path(__file__).resolve().parents[1] / "plugins" / "jax" / "tests")
    if plugin_tests not in sys.path:
        sys.path.insert(1, plugin_tests)


def _control_flow(x: Any, w: Any) -> Any:
    """fori_loop, a data-dependent while_loop, an RNN-style scan, cond and switch."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    y = lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c @ w) + i.astype(jnp.float32), x)
    z = lax.while_loop(lambda c: jnp.sum(jnp.abs(c)) < 50.0, lambda c: c * 2 + 0.5, y)
    h, ys = lax.scan(lambda s, t: (jnp.tanh(s @ w + t), jax.nn.sigmoid(s)), x, jnp.stack([x, z, y]))
    c = lax.cond(jnp.sum(h) > 0, lambda a: a * 2, lambda a: a - w[0], h)
    return lax.switch(jnp.argmax(x[0]) % 3, [lambda a: a, lambda a: a * 3, lambda a: a + w[1]], c) + ys.sum(0)


def model(name: str) -> tuple[Callable[..., Any], tuple[Any, ...], Any]:
    """The model's plain apply function, its example arguments, and what irconv is given:
    a bound Flax module, a jitted function, or an artifact's bytes (``artifact-*``)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    _tests()
    import test_models as networks

    rng = np.random.default_rng(0)
    if name in NETWORKS or name in ("text_classifier", "sequence_tagger"):
        if name in NETWORKS:
            module, shape = networks.NETWORKS[name]
            x = rng.standard_normal(shape).astype(np.float32)
        elif name == "text_classifier":
            module, x = networks.TextClassifier(), rng.integers(0, 50, (2, 7)).astype(np.int32)
        else:
            module, x = networks.SequenceTagger(), rng.standard_normal((2, 6, 12)).astype(np.float32)
        variables = module.init(jax.random.PRNGKey(0), x)
        return (lambda v: module.apply(variables, v)), (x,), module.bind(variables)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    w = (rng.standard_normal((4, 4)) * 0.5).astype(np.float32)
    if name == "jit-tanh":
        function: Callable[..., Any] = lambda v: jnp.tanh(v) * 2  # noqa: E731
        return function, (x,), jax.jit(function)
    if name == "jit-control-flow":
        return _control_flow, (x, w), jax.jit(_control_flow)
    from jax import export

    if name == "artifact-cnn":
        function, (image,), bound = model("cnn")
        spec = jax.ShapeDtypeStruct(export.symbolic_shape(", ".join(["b", *map(str, image.shape[1:])])), jnp.float32)
        return function, (image,), export.export(jax.jit(lambda v: bound(v)))(spec).serialize()
    if name == "artifact-control-flow":
        return _control_flow, (x, w), export.export(jax.jit(_control_flow))(x, w).serialize()
    raise KeyError(name)


# ------------------------------------------------------------ one child's conversion
def convert(tool: str, name: str, out: Path) -> dict[str, Any]:
    """Build ``name``, then convert it with ``tool`` and write ``out`` (timed)."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    function, arguments, given = model(name)
    artifact = out.with_suffix(".jaxexport")
    if isinstance(given, (bytes, bytearray)):
        artifact.write_bytes(given)
    before = self_peak_rss()
    start = time.perf_counter()
    if tool == "irconv":
        import irconv

        graph = irconv.convert_model(artifact) if artifact.exists() else irconv.convert_model(
            given, example_input=arguments if len(arguments) > 1 else arguments[0])
        irconv.save_model(graph, out, compress_to_fp16=False)
    elif tool == "ovc":
        import jax
        import openvino as ov

        # an artifact is given as itself (OpenVINO has no reader for it), the rest as a jaxpr
        converted = ov.convert_model(str(artifact) if artifact.exists() else jax.make_jaxpr(function)(*arguments))
        ov.save_model(converted, out, compress_to_fp16=False)
    else:  # jax-export: what irconv asks of jax before reading the program
        import jax
        from jax import export

        if artifact.exists():
            export.deserialize(bytearray(artifact.read_bytes())).mlir_module()
        else:
            jitted = given if hasattr(given, "lower") else jax.jit(lambda *v: given(*v))
            export.export(jitted)(*arguments).mlir_module()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "before_mib": before / MIB, "peak_mib": self_peak_rss() / MIB}


def matches(name: str, xml: Path) -> str:
    """'yes', or why the IR at ``xml`` does not match jax on the example input."""
    import numpy as np
    from irconv.runtime import compile_for_comparison

    function, arguments, _ = model(name)
    try:
        compiled = compile_for_comparison(xml)
        result = compiled([np.asarray(a) for a in arguments])
    except Exception as error:  # the runtime refusing the IR is the finding
        return f"OpenVINO refuses the IR: {str(error).splitlines()[0][:120]}"
    expected = [np.asarray(e) for e in jax_leaves(function(*arguments))]
    for index, want in enumerate(expected):
        got = result[compiled.output(index)]
        if got.shape != want.shape or not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3,
                                                      atol=1e-4):
            return f"output {index} differs"
    return "yes"


def jax_leaves(value: Any) -> list[Any]:
    import jax

    return list(jax.tree_util.tree_leaves(value))


def other_inputs(name: str) -> dict[str, str]:
    """What OpenVINO makes of the inputs it does not take: a jitted function, a bound Flax
    module or a ``jax.export`` artifact (the first line of its error, or 'converts')."""
    import openvino as ov

    function, arguments, given = model(name)
    tries: dict[str, Any] = {"jit": None, "given": given}
    found = {}
    for kind, value in tries.items():
        try:
            if kind == "jit":
                import jax

                ov.convert_model(jax.jit(function), example_input=arguments)
            elif isinstance(value, (bytes, bytearray)):
                with tempfile.TemporaryDirectory() as folder:
                    path = Path(folder) / f"{name}.jaxexport"
                    path.write_bytes(value)
                    ov.convert_model(str(path))
            else:
                ov.convert_model(value, example_input=arguments)
            found[kind] = "converts"
        except Exception as error:  # what it says is the finding
            found[kind] = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:90]}"
    return found


# ------------------------------------------------------------------------ measuring
def child(*arguments: str) -> list[str]:
    return [sys.executable, __file__, *arguments]


def measure(name: str, rounds: int, work: Path) -> dict[str, Any]:
    row: dict[str, Any] = {"model": name}
    seconds: dict[str, list[float]] = {tool: [] for tool in TOOLS}
    peaks: dict[str, list[float]] = {tool: [] for tool in TOOLS}
    added: dict[str, list[float]] = {tool: [] for tool in TOOLS}
    failed: dict[str, str] = {}
    for _, tool in alternating(TOOLS, rounds):
        if tool in failed:
            continue
        out = work / f"{name}-{tool}.xml"
        try:
            done = run_process(child("--convert", tool, name, str(out)))
        except ProcessFailed as error:
            failed[tool] = first_error(error.stderr) or f"exit {error.returncode}"
            continue
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        seconds[tool].append(figures["seconds"])
        peaks[tool].append(done.peak_rss / MIB)
        added[tool].append(figures["peak_mib"] - figures["before_mib"])
    for tool in TOOLS:
        if tool in failed:
            row[tool] = {"error": failed[tool]}
            continue
        row[tool] = {"seconds": statistics.median(seconds[tool]), "peak": max(peaks[tool]),
                     "added": max(added[tool])}
        if tool != "jax-export":
            verdict = run_process(child("--match", name, str(work / f"{name}-{tool}.xml")), check=False)
            row[tool]["match"] = (verdict.stdout.strip().splitlines() or [verdict.stderr.strip()[-120:]])[-1]
    done = run_process(child("--other-inputs", name), check=False)
    row["other"] = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
    return row


def first_error(stderr: str) -> str:
    """The line of a child's stderr saying why it failed: a front end's list of ops it has
    no rule for, else the last exception line (a traceback ends in frames of the wrapper)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for wanted in ("No conversion rule found", "Error:"):
        found = [line for line in lines if wanted in line]
        if found:
            return found[0 if wanted.startswith("No") else -1][:160]
    return lines[-1][:160] if lines else ""


def table(rows: list[dict[str, Any]]) -> str:
    headers = ["model", "OpenVINO converts (jaxpr)", "irconv converts", "irconv s", "OpenVINO s", "time ratio",
               "of which jax.export s", "irconv's own s", "irconv peak MiB (+conversion)",
               "OpenVINO peak MiB (+conversion)"]
    lines = []
    ratios = []
    for row in rows:
        mine, theirs, jax_part = row["irconv"], row["ovc"], row["jax-export"]
        ovc_cell = theirs.get("match", "") if "error" not in theirs else f"no: {theirs['error']}"
        ovc_cell = "yes, matches" if ovc_cell == "yes" else ovc_cell
        irconv_cell = f"no: {mine['error']}" if "error" in mine else (
            "yes, matches" if mine.get("match") == "yes" else f"yes, {mine.get('match')}")
        both = "error" not in mine and "error" not in theirs and theirs.get("match") == "yes"
        ratio = mine["seconds"] / theirs["seconds"] if both else None
        if ratio is not None:
            ratios.append(ratio)
        own = mine["seconds"] - jax_part["seconds"] if "error" not in mine and "error" not in jax_part else None
        lines.append([
            row["model"], ovc_cell, irconv_cell,
            f"{mine['seconds']:.2f}" if "seconds" in mine else "-",
            f"{theirs['seconds']:.2f}" if "seconds" in theirs else "-",
            f"{ratio:.2f}" if ratio is not None else "-",
            f"{jax_part['seconds']:.2f}" if "seconds" in jax_part else "-",
            f"{own:.2f}" if own is not None else "-",
            f"{mine['peak']:.0f} (+{mine['added']:.0f})" if "peak" in mine else "-",
            f"{theirs['peak']:.0f} (+{theirs['added']:.0f})" if "peak" in theirs else "-",
        ])
    text = markdown_table(headers, lines)
    if ratios:
        text += f"\n\nirconv / OpenVINO conversion time where both convert and match: median {statistics.median(ratios):.2f}, " \
                f"largest {max(ratios):.2f} ({len(ratios)} models)"
    return text


def other_table(rows: list[dict[str, Any]]) -> str:
    lines = [[row["model"], row["other"].get("jit", "-"), row["other"].get("given", "-")] for row in rows]
    return markdown_table(["model", "openvino.convert_model(jax.jit(f), example_input=...)",
                           "openvino.convert_model(bound module / jitted function / artifact path)"], lines)


def profile(name: str) -> None:
    """cProfile of irconv's conversion of ``name`` (the model built first, untimed)."""
    import cProfile
    import pstats

    import irconv

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    _, arguments, given = model(name)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "model.xml"
        profiler = cProfile.Profile()
        profiler.enable()
        if isinstance(given, (bytes, bytearray)):
            path = Path(folder) / "model.jaxexport"
            path.write_bytes(given)
            graph = irconv.convert_model(path)
        else:
            graph = irconv.convert_model(given, example_input=arguments if len(arguments) > 1 else arguments[0])
        irconv.save_model(graph, out, compress_to_fp16=False)
        profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated names (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", metavar="MODEL", help="print a cProfile of irconv converting MODEL")
    parser.add_argument("--convert", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--match", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--other-inputs", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    # measure what a user runs: bytecode cached (written by a first import), caches warm
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    if args.convert:
        print(json.dumps(convert(args.convert[0], args.convert[1], Path(args.convert[2]))))
        return 0
    if args.match:
        print(matches(args.match[0], Path(args.match[1])))
        return 0
    if args.other_inputs:
        print(json.dumps(other_inputs(args.other_inputs)))
        return 0
    if args.profile:
        profile(args.profile)
        return 0
    run_process([sys.executable, "-m", "irconv", "plugins"])
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for tool in TOOLS:  # every module of each path imported once
            run_process(child("--convert", tool, "jit-tanh", str(Path(folder) / f"warm-{tool}.xml")))
        for name in args.models.split(","):
            rows.append(measure(name, args.rounds, Path(folder)))
            print(f"{name}: measured", file=sys.stderr, flush=True)
    import jax
    import openvino

    print(f"{args.rounds} alternating rounds per model, jax {jax.__version__}, OpenVINO {openvino.__version__}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
    print(table(rows))
    print("\nOpenVINO's converter on the other JAX inputs:\n")
    print(other_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
