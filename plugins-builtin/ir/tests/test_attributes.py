"""Every attribute type is written as the IR spells it and parsed back to the same value."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np
import pytest
from irconv.ops import Op, attr
from irconv.types import ElementType, MaybeShape
from irconv_ir.attributes import build_op, parse_shape
from irconv_opset import catalog

NOT_GENERIC = {"Parameter", "Const", "Result", "If", "Loop", "TensorIterator"}


class Mode(enum.Enum):
    nearest = "nearest"
    linear = "linear_onnx"


@dataclass(eq=False)
class EveryType(Op):
    type = "EveryType"
    version = 1

    count: int = attr(-3)
    scale: float = attr(1e-05)
    flag: bool = attr(True)
    text: str = attr("same_upper")
    mode: Mode = attr(Mode.linear)
    axes: list[int] = attr(factory=lambda: [0, -1, 2])
    factors: tuple[float, ...] = attr((0.5, 2.0, 1e-07))
    empty: list[int] = attr(factory=list)
    destination: ElementType = attr(ElementType.boolean)
    shape: MaybeShape = attr((1, 2, 3))
    kind: str = attr("x", ir="type")


def test_every_attribute_type_round_trips():
    op = EveryType(count=7, scale=-2.5e-3, flag=False, mode=Mode.nearest, axes=[5], shape=(4, 5))
    written = op.ir_attributes()
    assert written["mode"] == "nearest" and written["flag"] == "false" and written["type"] == "x"
    back = build_op(EveryType, written)
    assert back.ir_attributes() == written
    assert (back.count, back.scale, back.flag, back.mode, back.axes, back.shape) == (
        7,
        -2.5e-3,
        False,
        Mode.nearest,
        [5],
        (4, 5),
    )
    assert back.factors == (0.5, 2.0, 1e-07) and back.destination is ElementType.boolean and back.empty == []


def test_enum_spelling_is_matched_case_insensitively_and_checked():
    assert build_op(EveryType, {"mode": "LINEAR_ONNX"}).mode is Mode.linear
    with pytest.raises(ValueError, match="mode"):
        build_op(EveryType, {"mode": "cubic"})


@pytest.mark.parametrize(
    "text, shape",
    [("1,3,?,-1", (1, 3, None, None)), ("...", None), ("", ()), ("2..8,4", (None, 4)), ("[1,2]", (1, 2))],
)
def test_shapes(text, shape):
    assert parse_shape(text) == shape


def _catalog_ops():  # type: ignore[no-untyped-def]
    for cls in catalog.all_ops():
        if cls.type in NOT_GENERIC:
            continue
        try:
            yield pytest.param(cls(), id=cls.__name__)
        except TypeError:
            continue


@pytest.mark.parametrize("op", list(_catalog_ops()))
def test_catalog_op_attributes_round_trip(op):
    written = op.ir_attributes()
    assert build_op(type(op), written).ir_attributes() == written


def test_missing_attributes_take_the_declared_default():
    assert build_op(EveryType, {}).ir_attributes() == EveryType().ir_attributes()


def test_float_text_reads_back_exactly():
    values = np.random.default_rng(0).standard_normal(50).astype(np.float64)
    for value in values:
        back = build_op(EveryType, EveryType(scale=float(value)).ir_attributes())
        assert back.scale == float(value)


def _opset_case_ops():  # type: ignore[no-untyped-def]
    """The configured op instances of the opset plugin's runtime cases (non-default attributes)."""
    from pathlib import Path

    from irconv_opset.testing import load_case_files

    cases_dir = Path(__file__).resolve().parents[2] / "opset" / "tests"
    seen = set()
    for case_file in load_case_files(cases_dir):
        for case in case_file.cases:
            if case.op.type in NOT_GENERIC or case.base_id() in seen:
                continue
            seen.add(case.base_id())
            yield pytest.param(case.op, id=case.base_id())


@pytest.mark.parametrize("op", list(_opset_case_ops()))
def test_opset_case_attributes_round_trip(op):
    written = op.ir_attributes()
    assert build_op(type(op), written).ir_attributes() == written
