"""prep.change_layout, prep.set_batch and prep.freeze_inputs on small graphs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from irconv import UserError
from irconv.testing import GraphBuilder, run_transform
from irconv_opset import Add, ReLU
from irconv_prep.change_layout import ChangeLayout
from irconv_prep.freeze_inputs import FreezeInputs
from irconv_prep.set_batch import SetBatch


def relu_graph(shape: tuple[int | None, ...] = (1, 3, 4, 5)) -> Any:
    b = GraphBuilder()
    b.result(b.op(ReLU(), b.parameter("x", shape), name="relu"), "y")
    return b.graph


def test_layout_change_inserts_a_transpose_and_records_the_target(make_options: Callable[..., Any]) -> None:
    graph = relu_graph()
    assert run_transform(graph, ChangeLayout(), make_options(layout="x(nchw->nhwc)"))
    (parameter,) = graph.parameters()
    assert parameter.op.shape == (1, 4, 5, 3)
    assert parameter.out_port(0).data.names == ["x"]
    (transpose,) = graph.by_type("Transpose")
    perm = transpose.in_port(1).constant(shape_derived=False)
    assert perm is not None and perm.tolist() == [0, 3, 1, 2]
    assert graph.node("relu").out_port(0).data.shape == (1, 3, 4, 5)
    assert parameter.op.layout == "[N,H,W,C]"


def test_same_layout_only_records_it(make_options: Callable[..., Any]) -> None:
    graph = relu_graph()
    run_transform(graph, ChangeLayout(), make_options(layout="nchw"))
    assert not graph.by_type("Transpose")
    assert graph.parameters()[0].op.layout == "[N,C,H,W]"


def test_no_layout_option_changes_nothing(make_options: Callable[..., Any]) -> None:
    graph = relu_graph()
    assert not run_transform(graph, ChangeLayout(), make_options())
    assert graph.parameters()[0].op.layout is None


def test_batch_through_the_layout(make_options: Callable[..., Any]) -> None:
    graph = relu_graph((None, 4, 5, 3))
    assert run_transform(graph, SetBatch(), make_options(batch=8, layout="x(nhwc)"))
    assert graph.node("relu").out_port(0).data.shape == (8, 4, 5, 3)
    graph = relu_graph((4, 5, 1))
    assert run_transform(graph, SetBatch(), make_options(batch=2, layout="x(hwn)"))
    assert graph.parameters()[0].op.shape == (4, 5, 2)


def test_batch_already_right_is_no_change(make_options: Callable[..., Any]) -> None:
    assert not run_transform(relu_graph(), SetBatch(), make_options(batch=1))


def test_batch_without_a_batch_dim(make_options: Callable[..., Any]) -> None:
    with pytest.raises(UserError, match="cannot tell the batch dim of input 'x'"):
        run_transform(relu_graph((7,)), SetBatch(), make_options(batch=2))


def test_freeze_replaces_the_input_by_a_constant(make_options: Callable[..., Any]) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (2,))
    k = b.parameter("k", (2,))
    b.result(b.op(Add(), x, k, name="add"), "y")
    assert run_transform(b.graph, FreezeInputs(), make_options(freeze_placeholder_with_value="k[1.5,-2]"))
    assert [p.name for p in b.graph.parameters()] == ["x"]
    frozen = b.graph.node("add").in_port(1).constant(shape_derived=False)
    assert frozen is not None and np.array_equal(frozen, np.array([1.5, -2], np.float32))


def test_freeze_a_boolean_scalar(make_options: Callable[..., Any]) -> None:
    b = GraphBuilder()
    flag = b.parameter("flag", (), "boolean")
    b.result(flag, "y")
    run_transform(b.graph, FreezeInputs(), make_options(freeze_placeholder_with_value="flag->False"))
    assert not b.graph.parameters()
