"""``convert_model`` on models held in memory: dispatch to the loader whose
``accepts_object`` takes the object, with the keywords that loader declares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from core_toy_ops import Add, Relu
from core_toy_plugin import ToyPlugin
from irconv import convert_model
from irconv.contract.context import LoadContext
from irconv.errors import UserError
from irconv.frontend import extractor
from irconv.graph import Graph
from irconv.ops import Parameter, Result, SourceOp
from irconv.plugins import Loader, PluginHost, hookimpl


@dataclass
class ChainModel:
    """An in-memory toy model: ``ops`` applied one after the other to one input."""

    ops: list[str]


def load_chain(model: ChainModel, ctx: LoadContext, *, width: int = 4) -> Graph:
    graph = Graph("chain", "chain")
    port = graph.add_node(Parameter((1, width)), "x").out_port(0)
    port.data.add_name("x")
    for index, op_type in enumerate(model.ops):
        port = graph.add_node(SourceOp(framework="chain", op_type=op_type), f"op{index}", [port]).out_port(0)
    port.data.add_name("y")
    graph.add_node(Result(), "y/sink", [port])
    return graph


class ChainPlugin:
    @hookimpl
    def load_model(self) -> list[Loader]:
        return [Loader("chain", load_chain, accepts_object=lambda m: isinstance(m, ChainModel),
                       object_keywords=("width",))]

    @hookimpl
    def extract_op(self) -> list[Any]:
        return [extractor("chain", "relu", lambda node, ctx: Relu(), produces=[Relu]),
                extractor("chain", "double", lambda node, ctx: [ctx.op(Add(), ctx.input(0), ctx.input(0))],
                          produces=[Add])]


@pytest.fixture
def host() -> PluginHost:
    made = PluginHost(autoload=False)
    made.register(ToyPlugin(), "toy")
    made.register(ChainPlugin(), "chain")
    return made


def test_an_object_goes_to_the_loader_that_accepts_it(host: PluginHost) -> None:
    graph = convert_model(ChainModel(["relu", "double"]), host=host)
    assert sorted(n.type for n in graph.nodes()) == ["Add", "Parameter", "ReLU", "Result"]
    assert graph.parameters()[0].out_port(0).data.get_shape() == (1, 4)


def test_the_loader_receives_its_keywords_and_options_still_apply(host: PluginHost) -> None:
    graph = convert_model(ChainModel(["relu"]), host=host, width=7, inputs=["x[2,7]"])
    assert graph.by_type("ReLU")[0].out_port(0).data.get_shape() == (2, 7)


def test_a_keyword_the_loader_does_not_take_is_one_error_naming_what_it_takes(host: PluginHost) -> None:
    with pytest.raises(UserError, match=r"height .*chain loader.*takes: width"):
        convert_model(ChainModel(["relu"]), host=host, height=3)


def test_loader_keywords_are_refused_for_a_model_file(host: PluginHost, tmp_path: Any) -> None:
    path = tmp_path / "m.toy"
    path.write_text("input x 1,4\nop r MyRelu x\noutput y r\n")
    with pytest.raises(UserError, match="unknown conversion option 'width'"):
        convert_model(path, host=host, width=3)
    assert convert_model(str(path), host=host).by_type("ReLU")


def test_an_object_no_loader_accepts_is_one_clear_error(host: PluginHost) -> None:
    with pytest.raises(UserError, match=r"no installed loader reads a builtins.dict object.*chain"):
        convert_model({"not": "a model"}, host=host)


def test_a_loader_without_accepts_object_takes_no_object() -> None:
    loader = Loader("files", load_chain, suffixes=(".x",))
    assert not loader.takes_object(ChainModel([]))
