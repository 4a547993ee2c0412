"""Save test models in one of Paddle's program forms and record Paddle's own results.

    python save_models.py OUT_DIR MODULE:MAPPING NAME...

For each named case: build the layer (``paddle.seed(0)`` first), save it with
``paddle.jit.save`` to ``OUT_DIR/NAME`` (the form is the process's: run with
``FLAGS_enable_pir_api=0`` for the legacy ``.pdmodel``), load it back with
``paddle.jit.load`` and run it on seeded random inputs; the inputs and the loaded
program's outputs go to ``OUT_DIR/NAME.npz`` (``in:<name>``, ``out:<i>``).
"""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path
from typing import Any

import numpy as np


def main(out: Path, mapping: str, names: list[str]) -> None:
    import paddle

    module, _, attribute = mapping.partition(":")
    cases = getattr(importlib.import_module(module), attribute)
    paddle.set_device("cpu")
    for name in names:
        try:
            save_case(out, name, cases[name])
        except Exception:  # one case Paddle cannot save must not hide the others
            (out / f"{name}.error").write_text(traceback.format_exc())


def save_case(out: Path, name: str, case: Any) -> None:
    import paddle

    if case.legacy is not None and not paddle.framework.use_pir_api():
        save_legacy_op(out, name, case)
        return
    paddle.seed(0)
    model = case.build()
    model.eval()
    specs = [paddle.static.InputSpec(list(shape), dtype, n) for n, shape, dtype, _ in case.inputs]
    paddle.jit.save(model, str(out / name), input_spec=specs)
    feeds = _feeds(case)
    loaded = paddle.jit.load(str(out / name))
    loaded.eval()
    results = loaded(*[paddle.to_tensor(v) for v in feeds.values()])
    results = results if isinstance(results, (list, tuple)) else [results]
    arrays = {f"in:{k}": v for k, v in feeds.items()}
    arrays.update({f"out:{i}": np.asarray(r.numpy()) for i, r in enumerate(results)})
    np.savez(out / f"{name}.npz", **arrays)

def _feeds(case: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    feeds = {}
    for n, _, dtype, concrete in case.inputs:
        if dtype.startswith("int"):
            feeds[n] = rng.integers(0, 10, concrete).astype(dtype)
        else:
            values = rng.standard_normal(concrete).astype(dtype)
            feeds[n] = np.abs(values) + 0.1 if case.positive else values
    return feeds


def save_legacy_op(out: Path, name: str, case: Any) -> None:
    """A legacy program written through Paddle's static-graph API: for ops whose Python
    functions Paddle 3 only traces into PIR programs. ``case.legacy`` is a function of the
    input variables returning the results, or describes one operator: Inputs go to slots X (and Y), or
    to the slots a third item of ``case.legacy`` maps to input names (a fourth names the result's slot),
    the result comes from slot Out; the reference is Paddle's executor running the program
    loaded back from the saved files."""
    import paddle
    from paddle.base.layer_helper import LayerHelper

    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            inputs = [paddle.static.data(n, list(shape), dtype) for n, shape, dtype, _ in case.inputs]
            results = case.legacy(*inputs) if callable(case.legacy) else [_one_op(LayerHelper, inputs, *case.legacy)]
        executor = paddle.static.Executor(paddle.CPUPlace())
        executor.run(startup)
        paddle.static.save_inference_model(str(out / name), inputs, results, executor, program=main)
        program, feed_names, fetches = paddle.static.load_inference_model(str(out / name), executor)
        feeds = _feeds(case)
        results = executor.run(program, feed={n: feeds[n] for n in feed_names}, fetch_list=fetches)
    finally:
        paddle.disable_static()
    arrays = {f"in:{k}": v for k, v in feeds.items()}
    arrays.update({f"out:{i}": np.asarray(r) for i, r in enumerate(results)})
    np.savez(out / f"{name}.npz", **arrays)


def _one_op(helper_class: Any, inputs: list[Any], op_type: str, attrs: dict[str, Any], *given: Any) -> Any:
    """The result of one ``op_type`` operator appended to the program being built."""
    helper = helper_class(op_type)
    result = helper.create_variable_for_type_inference(dtype=inputs[0].dtype)
    by_name = {v.name: v for v in inputs}
    slots = {slot: [by_name[n] for n in names] for slot, names in given[0].items()} if given else \
        {"X": [inputs[0]], **({"Y": [inputs[1]]} if len(inputs) > 1 else {})}
    out_slot = given[1] if len(given) > 1 else "Out"
    helper.append_op(type=op_type, inputs=slots, outputs={out_slot: [result]}, attrs=attrs)
    return result


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])
