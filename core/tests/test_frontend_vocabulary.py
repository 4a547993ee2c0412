"""The front-end vocabulary: registration, typed attributes, helpers, the constant accessor."""

from __future__ import annotations

import types

import numpy as np
import pytest
from core_toy_ops import Add, Multiply, Relu, ShapeOf, Sigmoid
from irconv.contract.context import ExtractContext
from irconv.contract.records import NEWEST
from irconv.errors import ConversionError
from irconv.frontend import (
    AttributeReader,
    AttributeValueError,
    aliases,
    collect,
    const_like,
    extractor,
    i64,
    normalize_axes,
    normalize_axis,
    per_axis,
    require_rank,
)
from irconv.graph import Graph, Node, any_, find_matches, op
from irconv.graph.infer import infer_node
from irconv.ops import Const, MappingAttributes, Parameter, SourceOp
from irconv.pipeline import ConversionOptions
from irconv.types import ElementType

WHERE = "node 'n' (mx Pooling)"


def reader(**values) -> AttributeReader:
    return AttributeReader(MappingAttributes(values), WHERE)


def test_typed_reads_accept_each_front_ends_spellings():
    attrs = reader(axis=np.int64(2), kernel="(3, 3)", stride=2, flag="True", eps="1e-05", mode=b"max",
                   pads=np.array([1, 2]), ratio=0.5, gone=None)
    assert attrs.int("axis") == 2 and isinstance(attrs.int("axis"), int)
    assert attrs.ints("stride", length=2) == [2, 2]
    assert attrs.ints("pads") == [1, 2]
    assert attrs.bool("flag") is True
    assert attrs.float("eps") == pytest.approx(1e-5)
    assert attrs.str("mode") == "max"
    assert attrs.choice("mode", ["max", "avg"]) == "max"
    assert attrs.float("ratio") == 0.5
    assert attrs.int("gone", 7) == 7 and "gone" not in attrs  # a stored None counts as absent
    assert attrs.ints("missing", [1]) == [1]


@pytest.mark.parametrize(
    ("read", "expected", "found"),
    [
        (lambda a: a.int("mode"), "an integer", "'max' (str)"),
        (lambda a: a.ints("mode"), "a list of integers", "'max' (str)"),
        (lambda a: a.bool("axis"), "a boolean", "5 (int)"),
        (lambda a: a.float("absent"), "a number", "nothing (the attribute is required)"),
        (lambda a: a.choice("mode", ["avg"]), "one of 'avg'", "'max'"),
        (lambda a: a.ints("pads", length=3), "3 values", "[1, 2] (list)"),
    ],
)
def test_a_missing_or_mistyped_attribute_is_one_error_shape(read, expected, found):
    attrs = reader(mode="max", axis=5, pads=[1, 2])
    with pytest.raises(AttributeValueError) as info:
        read(attrs)
    message = str(info.value)
    assert message.startswith(f"{WHERE}: attribute ")
    assert f"expected {expected}, found {found}" in message
    assert isinstance(info.value, ConversionError)  # a user error: exit code 1


def relu_like(node, ctx):
    return Relu()


@extractor("toy", "Decorated", versions=(3, 9), produces=[Relu])
def decorated(node, ctx):
    return Relu()


def test_extractor_as_factory_and_as_decorator():
    made = extractor("toy", "Relu", relu_like, versions=(6, None), domain="d", produces=[Relu])
    assert made.key == ("toy", "d", "Relu") and made.opsets == range(6, NEWEST + 1)
    assert made.produces == (Relu,) and made.produces_text() == "ReLU"
    assert decorated.opsets == range(3, 10)
    assert isinstance(decorated(None, None), Relu)  # the record stays callable as its function
    assert extractor("toy", "One", relu_like, versions=7).opsets == range(7, 8)


def test_aliases_and_collect():
    module = types.ModuleType("fake_extractors")
    module.single = extractor("toy", "A", relu_like)
    module.group = aliases("toy", ["B", "C"], relu_like, produces=[Relu])
    module.same_again = module.single
    module.unrelated = [1, 2]
    assert [e.op for e in collect(module)] == ["A", "B", "C"]


def test_the_string_form_of_produces_still_works_with_a_warning():
    from irconv.plugins import Extractor

    with pytest.warns(DeprecationWarning, match="produces= as a string"):
        record = Extractor("toy", "Old", relu_like, produces="ReLU, Add")
    assert record.produces_text() == "ReLU, Add"


def _graph_with_shape_value() -> tuple[Graph, Node, Node, Node]:
    graph = Graph("g", "toy")
    x = graph.add_node(Parameter((2, 3)), "x")
    c = graph.add_node(Const(np.array([1.0], np.float32)), "c")
    shape = graph.add_node(ShapeOf(), "shape", [x.out_port(0)])
    shape.out_port(0).data.set_value(np.array([2, 3], np.int64), shape_derived=True)
    return graph, x, c, shape


def test_the_constant_accessor_makes_the_shape_derived_choice_explicit():
    graph, x, c, shape = _graph_with_shape_value()
    assert c.out_port(0).constant(shape_derived=False).tolist() == [1.0]
    assert shape.out_port(0).constant(shape_derived=True).tolist() == [2, 3]
    assert shape.out_port(0).constant(shape_derived=False) is None
    assert x.out_port(0).constant(shape_derived=True) is None
    user = graph.add_node(Add(), "add", [c.out_port(0), shape.out_port(0)])
    assert user.in_port(1).constant(shape_derived=True).tolist() == [2, 3]
    with pytest.raises(TypeError):
        c.out_port(0).constant()  # the choice cannot be left out


def test_patterns_take_op_classes_and_give_typed_matches():
    graph = Graph("g", "toy")
    x = graph.add_node(Parameter((1, 4)), "x")
    sig = graph.add_node(Sigmoid(), "sig", [x.out_port(0)])
    graph.add_node(Multiply(), "mul", [x.out_port(0), sig.out_port(0)])
    (match,) = list(find_matches(graph, op(Multiply, any_("x"), op(Sigmoid, any_("x")), bind="mul")))
    assert isinstance(match.op("mul", Multiply), Multiply)
    with pytest.raises(TypeError, match="bound to a Multiply, not a Sigmoid"):
        match.op("mul", Sigmoid)


def _ctx(shape=(1, 3, 4, 4), element_type=ElementType.f16) -> ExtractContext:
    graph = Graph("g", "toy")
    x = graph.add_node(Parameter(shape, element_type), "x")
    infer_node(x)
    node = graph.add_node(SourceOp(framework="toy", op_type="Thing"), "thing", [x.out_port(0)])
    return ExtractContext(graph, node, ConversionOptions())


def test_shared_constant_helpers_follow_the_tensor_they_are_used_with():
    ctx = _ctx()
    assert i64(ctx, [1, 2]).node.op.value.dtype == np.int64
    assert const_like(ctx, 0.5, ctx.input(0)).node.op.value.dtype == np.float16
    boolean = _ctx(element_type=ElementType.boolean)
    assert const_like(boolean, True, boolean.input(0)).node.op.value.dtype == np.bool_


def test_shared_axis_and_rank_helpers():
    ctx = _ctx()
    assert require_rank(ctx) == 4
    assert normalize_axis(ctx, -1, 4) == 3
    assert normalize_axes(ctx, [0, -1], 4) == [0, 3]
    with pytest.raises(ConversionError, match="axis 4 is out of range for rank 4"):
        normalize_axis(ctx, 4, 4)
    with pytest.raises(ConversionError, match="repeat an axis"):
        normalize_axes(ctx, [1, -3], 4)
    with pytest.raises(ConversionError, match="rank of input 0 is unknown"):
        require_rank(_ctx(shape=None))
    assert per_axis(np.arange(3), 1, 4).shape == (3, 1, 1)


def test_the_deprecated_attr_still_returns_its_default():
    ctx = _ctx()
    ctx.source_op.attributes = MappingAttributes({"axis": 2})
    with pytest.warns(DeprecationWarning):
        assert ctx.attr("axis", 0) == 2
    with pytest.warns(DeprecationWarning):
        assert ctx.attr("missing", 7) == 7
