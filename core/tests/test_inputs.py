"""``--input`` beyond overrides: cutting at internal tensors, fixed values, dimension ranges."""

import numpy as np
import pytest
from core_toy_plugin import ToyPlugin
from irconv.contract.input_spec import InputSpec
from irconv.errors import UserError
from irconv.pipeline import ConversionOptions, convert
from irconv.plugins import PluginHost


@pytest.fixture
def host():
    h = PluginHost(autoload=False)
    h.register(ToyPlugin(), "toy")
    return h


def model(tmp_path, text):
    path = tmp_path / "m.toy"
    path.write_text(text)
    return path


UPSTREAM_UNSUPPORTED = "input x 1,4\nop a Unsupported x\nop r MyRelu a\noutput y r\n"


@pytest.mark.parametrize("name", ["a:0", "a", "0:r"])
def test_cutting_at_an_internal_tensor_drops_what_fed_it(tmp_path, host, name):
    path = model(tmp_path, UPSTREAM_UNSUPPORTED)
    graph = convert(path, ConversionOptions.from_kwargs(inputs=[f"{name}[1,4]"]), host)
    (parameter,) = graph.parameters()  # x fed only the cut-off part: gone with it
    assert sorted(n.type for n in graph.nodes()) == ["Parameter", "ReLU", "Result"]
    assert name in parameter.out_port(0).data.names
    assert graph.by_type("ReLU")[0].out_port(0).data.get_shape() == (1, 4)


def test_a_fixed_value_turns_the_input_into_a_folded_constant(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop r MyRelu x\noutput y r\n")
    graph = convert(path, ConversionOptions.from_kwargs(inputs=["x[1,4]->[-1,2,-3,4]"]), host)
    assert graph.parameters() == []
    (const,) = graph.by_type("Const")
    np.testing.assert_array_equal(const.op.value, np.array([[0, 2, 0, 4]], np.float32))


def test_a_fixed_value_must_fill_the_shape(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop r MyRelu x\noutput y r\n")
    with pytest.raises(UserError, match=r"3 values for input 'x' of shape \[1, 4\], which holds 4; give one value"):
        convert(path, ConversionOptions.from_kwargs(inputs=["x[1,4]->[1,2,3]"]), host)


def test_dimension_ranges_are_kept_for_the_ir(tmp_path, host):
    path = model(tmp_path, "input x 1,4\nop r MyRelu x\noutput y r\n")
    graph = convert(path, ConversionOptions.from_kwargs(inputs=["x[1,2..8]"]), host)
    (parameter,) = graph.parameters()
    assert parameter.op.ir_attributes()["shape"] == "1,2..8"
    assert graph.by_type("ReLU")[0].out_port(0).data.get_shape() == (1, None)


@pytest.mark.parametrize(
    ("text", "shape", "bounds", "value"),
    [
        ("x[1,3..,..8,?]", (1, None, None, None), (None, (3, None), (0, 8), None), None),
        ("x[2]{i32}->[1, 2]", (2,), None, (1.0, 2.0)),
        ("x->true", None, None, (1.0,)),
    ],
)
def test_input_spec_parsing(text, shape, bounds, value):
    spec = InputSpec.parse(text)
    assert (spec.name, spec.shape, spec.bounds, spec.value) == ("x", shape, bounds, value)


@pytest.mark.parametrize("text", ["x[1,8..2]", "x[1,a]", "x->[1,b]", "x[1]->"])
def test_bad_input_specs_are_one_clear_error(text):
    with pytest.raises(UserError, match="bad --input"):
        InputSpec.parse(text)


def test_unknown_internal_tensor_lists_the_inputs(tmp_path, host):
    path = model(tmp_path, UPSTREAM_UNSUPPORTED)
    with pytest.raises(UserError, match="no such model input or tensor .*inputs: x.*node:port"):
        convert(path, ConversionOptions.from_kwargs(inputs=["nothing:0[1]"]), host)


def test_finegrain_fusing_freezes_nodes_for_every_transform(tmp_path, host):
    from irconv.contract.context import TransformContext

    graph = convert(model(tmp_path, "input x 1,4\nop r MyRelu x\noutput y r\n"), ConversionOptions(), host)
    ctx = TransformContext(ConversionOptions.from_kwargs(finegrain_fusing="r.*,zzz"))
    (relu,) = graph.by_type("ReLU")
    assert ctx.is_frozen(relu) and not ctx.is_frozen(graph.parameters()[0])
    with pytest.raises(UserError, match="--finegrain-fusing: 'r\\(' is not a regular expression"):
        TransformContext(ConversionOptions(finegrain_fusing=("r(",)))


def test_a_fixed_bf16_value_is_rounded_to_bf16_codes():
    """bf16 inputs are held as codes: a fixed value rounds into them (not NumPy's cast of a
    float to the codes' void dtype), and one beyond bf16's range is refused."""
    from irconv import narrow_float
    from irconv.types import ElementType
    from irconv.values import fixed_value

    value = fixed_value([0.5, 1 / 3], ElementType.bf16.numpy, (2,), "--input", "x")
    assert narrow_float.bits(value).tolist() == [0x3F00, 0x3EAB]
    with pytest.raises(UserError, match="out of the range of input 'x', of type bf16"):
        fixed_value([1e39], ElementType.bf16.numpy, (1,), "--input", "x")
    assert np.asarray(fixed_value([2.0], np.float16, (2,), "--input", "x")).tolist() == [2.0, 2.0]
