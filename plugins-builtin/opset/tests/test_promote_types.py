"""ConvertPromoteTypes' promotion table against the one OpenVINO's own op validation applies."""

from __future__ import annotations

import pytest
from irconv.errors import ConversionError
from irconv.types import ElementType
from irconv_opset.ops.promote import promote

TYPES = ["boolean", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "bf16", "f32", "f64"]


def runtime_promotion(a: str, b: str, unsafe: bool) -> str:
    import openvino as ov
    import openvino.opset1 as opset1
    import openvino.opset14 as opset14

    left, right = opset1.parameter([2], getattr(ov.Type, a)), opset1.parameter([2], getattr(ov.Type, b))
    try:
        node = opset14.convert_promote_types(left, right, promote_unsafe=unsafe)
    except RuntimeError:
        return "error"
    return node.output(0).get_element_type().get_type_name()


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_promotion_table_matches_the_runtime(unsafe):
    wrong = []
    for a in TYPES:
        for b in TYPES:
            try:
                ours = promote(ElementType(a), ElementType(b), unsafe, ElementType.f32).value
            except ConversionError:
                ours = "error"
            expected = runtime_promotion(a, b, unsafe)
            if ours != expected:
                wrong.append(f"{a}+{b}: {ours}, runtime {expected}")
    assert not wrong, wrong
