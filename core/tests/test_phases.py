import pytest
from core_toy_ops import Relu
from irconv.contract.records import Phase
from irconv.errors import ConversionError, GraphError
from irconv.ops import Parameter
from irconv.pipeline import ConversionOptions, TransformContext, infer_graph
from irconv.pipeline.phases import run_phase
from irconv.plugins import Transform, hookimpl
from irconv.testing import GraphBuilder


class WidenInput(Transform):
    """Changes the Parameter shape: downstream nodes must be re-inferred."""

    id = "test.widen"

    def apply(self, graph, ctx):
        param = graph.parameters()[0]
        param.op = Parameter((5, 5))
        return True


class Dangle(Transform):
    """Leaves a Result without input: a broken graph."""

    id = "test.dangle"
    run_after = ("test.widen",)

    def apply(self, graph, ctx):
        graph.results()[0].in_port(0).disconnect()
        return True


class Crash(Transform):
    id = "test.crash"
    run_after = ("test.widen",)

    def apply(self, graph, ctx):
        raise KeyError("oops")


class Middle:
    def __init__(self, *transforms):
        self.transforms = transforms

    @hookimpl
    def middle_transform(self):
        return list(self.transforms)


def graph():
    b = GraphBuilder()
    b.result(b.op(Relu(), b.op(Relu(), b.parameter("x", (1, 2)), name="r1"), name="r2"), "y")
    infer_graph(b.graph)
    return b.graph


def ctx_for(host, **options):
    registry = host.registry()
    return TransformContext(ConversionOptions(**options), registry.ops, registry.plan)


def test_middle_transforms_trigger_reinference_downstream(plugin_host, register_plugin):
    register_plugin(Middle(WidenInput()))
    g = graph()
    runs = run_phase(g, Phase.MIDDLE, ctx_for(plugin_host))
    assert [(r.id, r.changed) for r in runs] == [("test.widen", True)]
    assert g.node("r2").out_port(0).data.get_shape() == (5, 5)


def test_transforms_can_be_disabled_by_id(plugin_host, register_plugin):
    register_plugin(Middle(WidenInput()))
    g = graph()
    assert run_phase(g, Phase.MIDDLE, ctx_for(plugin_host, disabled_transforms={"test.widen"})) == []
    assert g.node("r2").out_port(0).data.get_shape() == (1, 2)


def test_validation_blames_the_transform_and_those_before_it(plugin_host, register_plugin):
    register_plugin(Middle(WidenInput(), Dangle()))
    with pytest.raises(GraphError) as info:
        run_phase(graph(), Phase.MIDDLE, ctx_for(plugin_host, validate=True))
    assert "'test.dangle'" in str(info.value) and "ran before it: test.widen" in str(info.value)


def test_a_crashing_transform_is_a_fault_of_its_plugin(plugin_host, register_plugin):
    from irconv.errors import PluginFault

    register_plugin(Middle(WidenInput(), Crash()))
    with pytest.raises(PluginFault, match=r"test-plugin 0 failed in transform 'test.crash' \(ran before it: test.widen\): "
                                          r"KeyError.*please report it to its authors") as info:
        run_phase(graph(), Phase.MIDDLE, ctx_for(plugin_host))
    assert info.value.exit_code == 6


class Untouching(Transform):
    """A front transform that looks and changes nothing."""

    id = "test.untouching"

    def apply(self, graph, ctx):
        return False


def test_marks_left_by_extraction_are_not_blamed_on_a_front_transform(plugin_host, register_plugin):
    class Front:
        @hookimpl
        def front_transform(self):
            return [Untouching()]

    register_plugin(Front())
    g = graph()
    g.mark_dirty(g.node("r1"))  # as extraction leaves them
    runs = run_phase(g, Phase.FRONT, ctx_for(plugin_host, validate=True))
    assert [(r.id, r.changed) for r in runs] == [("test.untouching", False)]
