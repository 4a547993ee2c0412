import pytest
from irconv.errors import UserError
from irconv.pipeline import ConversionOptions, InputSpec
from irconv.types import ElementType


@pytest.mark.parametrize(
    ("text", "name", "shape", "element_type"),
    [
        ("data[1,3,224,224]{f32}", "data", (1, 3, 224, 224), ElementType.f32),
        ("data[1,3,?,-1]", "data", (1, 3, None, None), None),
        ("ids{i64}", "ids", None, ElementType.i64),
        ("[1,8]", "", (1, 8), None),
        ("input:0[2]{FP16}", "input:0", (2,), ElementType.f16),
        ("scalar[]", "scalar", (), None),
    ],
)
def test_input_specs_parse(text, name, shape, element_type):
    spec = InputSpec.parse(text)
    assert (spec.name, spec.shape, spec.element_type) == (name, shape, element_type)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("data[1,x]", "dimension 'x' is not an integer"),
        ("data{f99}", "unknown element type 'f99'"),
        ("data[1,-3]", "negative dimension"),
        ("data[1,2", "expected name"),
        ("", "expected name"),
    ],
)
def test_bad_input_specs_say_what_is_wrong(text, message):
    with pytest.raises(UserError, match=message):
        InputSpec.parse(text)


def test_unknown_keyword_options_are_rejected():
    with pytest.raises(UserError, match="unknown conversion option.*static_shapes"):
        ConversionOptions.from_kwargs(static_shapes=True)
