"""The one-op compile sweep (``irconv_opset.sweep``): every op version and declared attribute
variant, static and dynamic, that irconv emits must compile and run on OpenVINO's CPU plugin.

The README's test run takes a fixed sample (one form in ``SAMPLE_EVERY``); ``-m slow`` runs
every form, as does ``python tests/opset/compile_sweep.py``, which prints a table. The forms
irconv refuses to convert are listed in ``NOT_COVERED`` with the reason, and the list is kept
exact: a form that starts compiling (or a new refusal) fails the test until the list says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openvino")

from irconv.plugins.manager import PluginHost  # noqa: E402
from irconv.runtime import openvino_core  # noqa: E402
from irconv_opset.sweep import COMPILED, REFUSED_BY_IRCONV, SweepItem, run_item, sweep_items  # noqa: E402
from irconv_opset.testing import load_case_files  # noqa: E402

CASES = Path(__file__).resolve().parents[2] / "plugins-builtin" / "opset" / "tests"
#: the README's test run compiles every SAMPLE_EVERY-th form (271 of 1625)
SAMPLE_EVERY = 6

_STATIC_ONLY = "the CPU plugin runs it on static shapes only; irconv refuses a dynamic shape with a message"
_DYNAMIC_RANK = "its output rank would depend on run-time sizes, which the CPU plugin cannot compile; irconv refuses"
_NO_RECIPE = "no input recipe in plugins-builtin/opset/tests/cases_*.py fits this attribute value"

#: form id -> why irconv does not emit it (the forms the sweep cannot compile, by design or
#: for want of a recipe)
NOT_COVERED: dict[str, str] = {
    **dict.fromkeys(
        [
            "Convolution-1-conv2d_filters_as_input-dynamic",  # filters as a run-time input
            "EmbeddingBagOffsets-15-sum-dynamic",  # with per-sample weights
            "EmbeddingBagOffsetsSum-3-default_weights-dynamic",
            "EmbeddingBagPackedSum-3-weights-dynamic",
            "EmbeddingSegmentsSum-3-default_weights-dynamic",
            "PSROIPooling-1-ps_roi_pooling-dynamic",
            "PSROIPooling-1-mode=bilinear-dynamic",
        ],
        _STATIC_ONLY,
    ),
    **dict.fromkeys(
        [
            "Squeeze-1-all-dynamic",  # no axes: every dim of size 1, known only at run time
            "Squeeze-15-skip-dynamic",  # allow_axis_skip on axes of run-time size
            "Squeeze-15-allow_axis_skip=true-dynamic",
        ],
        _DYNAMIC_RANK,
    ),
    **dict.fromkeys(
        [
            *(f"FakeQuantize-1-auto_broadcast=none-{shapes}" for shapes in ("static", "dynamic")),  # scalar ranges
            "RandomUniform-8-output_type=bf16-static",  # min and max of bf16 (see cases_generation.py)
            *(
                f"DetectionOutput-{v}-{attribute}-{shapes}"  # the inputs' layout follows these
                for v, attribute in [
                    ("1", "normalized=false"),
                    ("1", "share_location=false"),
                    ("1", "variance_encoded_in_target=true"),
                    ("8", "share_location=false"),
                    ("8", "variance_encoded_in_target=true"),
                ]
                for shapes in ("static", "dynamic")
            ),
            "DeformableConvolution-1-auto_pad=valid-static",  # the offsets have the output's size
            "DeformableConvolution-1-auto_pad=valid-dynamic",
            "RNNSequence-5-direction=bidirectional-static",  # the states and weights hold 2 directions
            "RNNSequence-5-direction=bidirectional-dynamic",
            "PSROIPooling-1-mode=bilinear-static",  # the channels follow the mode
        ],
        _NO_RECIPE,
    ),
}


def _items() -> list[SweepItem]:
    files = load_case_files(CASES)
    assert not [f.error for f in files if f.error]
    return sweep_items(files)


ITEMS = _items()


@pytest.fixture(scope="module")
def runtime() -> tuple[Any, Any]:
    host = PluginHost(strict=True)
    return host, openvino_core(host.registry())


def _check(item: SweepItem, tmp_path: Path, runtime: tuple[Any, Any]) -> None:
    outcome = run_item(item, tmp_path, *runtime)
    if item.id in NOT_COVERED:
        assert outcome.status == REFUSED_BY_IRCONV, (
            f"{item.id} now {outcome.status}: take it out of NOT_COVERED ({NOT_COVERED[item.id]})"
        )
    else:
        assert outcome.status == COMPILED, f"{item.id} [{outcome.recipe}] {outcome.status}: {outcome.detail}"


@pytest.mark.parametrize("item", ITEMS[::SAMPLE_EVERY], ids=lambda i: i.id)
def test_sampled_form_compiles_on_cpu(item: SweepItem, tmp_path: Path, runtime: tuple[Any, Any]) -> None:
    _check(item, tmp_path, runtime)


@pytest.mark.slow
@pytest.mark.parametrize("item", [i for n, i in enumerate(ITEMS) if n % SAMPLE_EVERY], ids=lambda i: i.id)
def test_every_form_compiles_on_cpu(item: SweepItem, tmp_path: Path, runtime: tuple[Any, Any]) -> None:
    _check(item, tmp_path, runtime)


def test_not_covered_names_only_forms_the_sweep_has() -> None:
    known = {i.id for i in ITEMS}
    assert sorted(set(NOT_COVERED) - known) == []


def test_every_op_class_and_declared_value_is_in_the_sweep() -> None:
    import dataclasses

    from irconv_opset.catalog import all_ops
    from irconv_opset.sweep import declared_choices

    swept = {i.op_class for i in ITEMS}
    structural = ("Parameter", "Const", "Result")  # the graph's own ops: every form builds them
    # a variable's two halves, valid only as a pair: plugins-builtin/opset/tests/test_state.py
    structural += ("ReadValue", "Assign")
    assert sorted(c.__name__ for c in all_ops() if c not in swept and c.type not in structural) == []
    forms = {(i.op_class, i.field, repr(i.value)) for i in ITEMS}
    first: dict[type, Any] = {}
    for item in ITEMS:
        first.setdefault(item.op_class, item.recipes[0].op)  # the class's first recipe: its variants' base
    for op_class, op in first.items():
        written = op.ir_attributes()
        for field in dataclasses.fields(op):  # type: ignore[arg-type]
            if (field.metadata.get("ir") or field.name) not in written:
                continue
            for value in declared_choices(op_class, field):
                assert value == getattr(op, field.name) or (op_class, field.name, repr(value)) in forms
