"""The plugin contract's failure paths: a plugin's bug, invalid hooks, clashes, tracing."""

from __future__ import annotations

import pytest
from core_toy_ops import Add, Relu
from irconv.cli.main import main
from irconv.contract.records import Phase
from irconv.errors import ConversionError, PluginClash, PluginError, PluginFault
from irconv.frontend import extractor
from irconv.graph import Graph
from irconv.ops import Op, Parameter, Result
from irconv.pipeline import ConversionOptions
from irconv.pipeline.phases import run_phase
from irconv.plugins import PluginHost, Transform, hookimpl
from toy_cli import use_toy_host

MODEL = "input x 1,4\nop r {op} x\noutput y r\n"


class Crashing:
    """Extractors that raise: a bug (KeyError) and a deliberate user error."""

    @hookimpl
    def extract_op(self):
        def buggy(node, ctx):
            return {}["missing"]

        def refusing(node, ctx):
            raise ConversionError(f"{ctx.where()}: this value is not supported")

        return [extractor("toy", "Buggy", buggy, produces=[Relu]), extractor("toy", "Refusing", refusing)]


def _convert(tmp_path, op: str, capsys) -> tuple[int, str]:
    model = tmp_path / "m.toy"
    model.write_text(MODEL.format(op=op))
    code = main(["convert", str(model), "-o", str(tmp_path / "out.xml")])
    return code, capsys.readouterr().err


def test_an_extractor_bug_is_a_fault_of_its_plugin(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (Crashing(), "crashing"))
    code, err = _convert(tmp_path, "Buggy", capsys)
    assert code == PluginFault.exit_code == 6
    assert "irconv-crashing 1 failed extracting node 'r' (toy Buggy" in err
    assert "KeyError" in err and "please report it to its authors" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.xml").exists()


class Overbuilding:
    """An extractor that builds an Add its ``produces`` does not list."""

    @hookimpl
    def extract_op(self):
        def relu_plus_zero(node, ctx):
            relu = ctx.op(Relu(), ctx.input(0))
            return [ctx.op(Add(), relu, ctx.const(0.0))]

        return [extractor("toy", "Overbuilding", relu_plus_zero, produces=[Relu])]


def test_an_extractor_building_an_op_outside_its_produces_is_its_plugins_fault(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (Overbuilding(), "overbuilding"))
    monkeypatch.setenv("IRCONV_CHECK_PRODUCES", "1")
    code, err = _convert(tmp_path, "Overbuilding", capsys)
    assert code == PluginFault.exit_code
    assert "the toy::Overbuilding extractor built Add, which its produces (ReLU) does not list" in err
    assert not (tmp_path / "out.xml").exists()


def test_the_produces_check_is_off_outside_test_runs(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (Overbuilding(), "overbuilding"))
    monkeypatch.delenv("IRCONV_CHECK_PRODUCES", raising=False)
    code, _ = _convert(tmp_path, "Overbuilding", capsys)
    assert code == 0


def test_run_extractor_fails_on_an_op_outside_produces():
    from irconv.testing import GraphBuilder, run_extractor

    record = Overbuilding().extract_op()[0]
    builder = GraphBuilder()
    with pytest.raises(PluginError, match="built Add, which its produces"):
        run_extractor(builder, record, builder.parameter("x", [1, 4]))


class LoweringRefusal:
    """An extractor whose shared lowering refuses the model's attributes."""

    @hookimpl
    def extract_op(self):
        from irconv.errors import LoweringError

        def refused(node, ctx):
            raise LoweringError("strides and pads differ in length")

        return [extractor("toy", "Lowered", refused, produces=[Relu])]


def test_a_lowerings_refusal_is_a_user_error_naming_the_node(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (LoweringRefusal(), "lowering"))
    code, err = _convert(tmp_path, "Lowered", capsys)
    assert code == 1
    assert "node 'r' (toy Lowered): strides and pads differ in length" in err and "report it" not in err
    assert not (tmp_path / "out.xml").exists()


def test_an_error_an_extractor_raises_on_purpose_stays_a_user_error(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (Crashing(), "crashing"))
    code, err = _convert(tmp_path, "Refusing", capsys)
    assert code == 1
    assert "this value is not supported" in err and "report it" not in err


class BrokenInfer(Relu):
    """An op whose infer has a bug."""

    type = "BrokenInfer"

    def infer(self, node):
        raise IndexError("list index out of range")


class DeclaresBrokenInfer:
    @hookimpl
    def declare_ops(self):
        return [BrokenInfer]

    @hookimpl
    def extract_op(self):
        return [extractor("toy", "UsesBroken", lambda node, ctx: BrokenInfer(), produces=[BrokenInfer])]


def test_an_op_infer_bug_names_the_plugin_that_declared_the_op(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (DeclaresBrokenInfer(), "brokenop"))
    code, err = _convert(tmp_path, "UsesBroken", capsys)
    assert code == 6
    assert "irconv-brokenop 1 failed inferring node 'r' (BrokenInfer-1)" in err
    assert "IndexError" in err


def test_try_infer_lets_an_op_bug_through():
    from irconv.graph.infer import try_infer

    graph = Graph("g", "toy")
    x = graph.add_node(Parameter((1, 4)), "x")
    node = graph.add_node(BrokenInfer(), "bad", [x.out_port(0)])
    with pytest.raises(PluginFault):
        try_infer(node)


class RefusesItsInput(Relu):
    """An op whose inference refuses what it is given, as a MatMul refuses a scalar."""

    type = "RefusesItsInput"

    def infer(self, node):
        raise ValueError("operand a is a scalar")


class RefusalThenRank:
    """``Refuse`` builds the refusing op; ``Softmaxish`` needs its input's rank to extract."""

    @hookimpl
    def declare_ops(self):
        return [RefusesItsInput]

    @hookimpl
    def extract_op(self):
        from irconv.frontend.helpers import require_rank

        def needs_rank(node, ctx):
            require_rank(ctx, 0)
            return Relu()

        def refuses_then_needs_rank(node, ctx):
            built = ctx.op(RefusesItsInput(), ctx.input(0))
            if built.data.get_shape() is None:
                raise ConversionError(f"{ctx.where()}: the rank of what it built is unknown")
            return [built]

        return [
            extractor(
                "toy", "Refuse", lambda node, ctx: [ctx.op(RefusesItsInput(), ctx.input(0))], produces=[RefusesItsInput]
            ),
            extractor("toy", "NeedsRank", needs_rank, produces=[Relu]),
            extractor("toy", "RefuseThenRank", refuses_then_needs_rank, produces=[RefusesItsInput]),
        ]


def test_an_inference_refusal_during_extraction_is_the_error_a_later_extractor_reports(tmp_path, monkeypatch, capsys):
    """The consumer fails for want of a rank the refusal left unknown: the refusal is reported."""
    use_toy_host(monkeypatch, (RefusalThenRank(), "refusal"))
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop a Refuse x\nop b MyRelu a\nop r NeedsRank b\noutput y r\n")
    code = main(["convert", str(model), "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 1
    assert "(RefusesItsInput-1) with inputs ([1,4]:f32): operand a is a scalar" in err
    assert "rank of input 0 is unknown" not in err
    assert not (tmp_path / "out.xml").exists()


def test_a_refusal_of_a_node_the_failing_extractor_built_is_reported(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (RefusalThenRank(), "refusal"))
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop r RefuseThenRank x\noutput y r\n")
    code = main(["convert", str(model), "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 1
    assert "(RefusesItsInput-1) with inputs ([1,4]:f32): operand a is a scalar" in err and "is unknown" not in err


def test_an_extractor_error_beside_a_refusal_stays_its_own(tmp_path, monkeypatch, capsys):
    """Only a refusal upstream of the failing node replaces its error."""
    use_toy_host(monkeypatch, (RefusalThenRank(), "refusal"), (Crashing(), "crashing"))
    model = tmp_path / "m.toy"
    model.write_text("input x 1,4\nop a Refuse x\nop r Refusing x\noutput y a\noutput z r\n")
    code = main(["convert", str(model), "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 1
    assert "node 'r' (toy Refusing): this value is not supported" in err and "scalar" not in err


class UnknownHook:
    @hookimpl
    def extract_opp(self):  # a typo of extract_op
        return []


class WrongArgument:
    @hookimpl
    def extract_op(self, frameworks):  # the hookspec's argument is ``framework``
        return []


def test_invalid_hook_implementations_mark_the_plugin_failed_and_nothing_else():
    host = PluginHost(autoload=False)
    host.register(UnknownHook(), "typo", distribution="irconv-typo", version="1")
    host.register(WrongArgument(), "wrongarg", distribution="irconv-wrongarg", version="2")
    host.register(DeclaresBrokenInfer(), "fine", distribution="irconv-fine", version="3")
    by_name = {p.name: p for p in host.plugins()}
    assert by_name["typo"].status == "failed" and "extract_opp" in by_name["typo"].error
    assert by_name["wrongarg"].status == "failed" and "frameworks" in by_name["wrongarg"].error
    assert "\n" not in by_name["wrongarg"].error
    assert by_name["fine"].status == "active"


def test_invalid_hook_implementations_are_fatal_under_strict():
    host = PluginHost(autoload=False, strict=True)
    with pytest.raises(PluginError, match="irconv-typo 1.*invalid hook implementation"):
        host.register(UnknownHook(), "typo", distribution="irconv-typo", version="1")


class SecondRelu:
    """Provides toy::MyRelu again: a clash with the toy plugin."""

    @hookimpl
    def extract_op(self):
        return [extractor("toy", "MyRelu", lambda node, ctx: Relu(), produces=[Relu])]


def test_irconv_plugins_shows_its_table_and_the_clash(monkeypatch, capsys):
    use_toy_host(monkeypatch, (SecondRelu(), "again"))
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "irconv-toy" in out and "irconv-again" in out
    assert "(clash, see below)" in out
    assert "toy::MyRelu opsets 1+ provided by irconv-again 1 and irconv-toy 9.9" in out
    assert "--disable-plugin irconv-again or --disable-plugin irconv-toy" in out


def test_a_conversion_reports_a_clash_as_a_clash(tmp_path, monkeypatch, capsys):
    use_toy_host(monkeypatch, (SecondRelu(), "again"))
    code, err = _convert(tmp_path, "MyRelu", capsys)
    assert code == PluginClash.exit_code
    assert "provided by irconv-again 1 and irconv-toy 9.9" in err
    assert "cannot read" not in err


def test_debug_traces_every_hook_call_and_its_result(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("IRCONV_DEBUG", "1")
    use_toy_host(monkeypatch)
    model = tmp_path / "m.toy"
    model.write_text(MODEL.format(op="MyRelu"))
    assert main(["convert", str(model), "-o", str(tmp_path / "out.xml")]) == 0
    err = capsys.readouterr().err
    assert "irconv-debug: call extract_op(" in err and "of plugin 'toy' (irconv-toy 9.9)" in err
    assert "extract_op of 'toy' returned 4 record(s)" in err
    assert "load_model of 'toy' returned 1 record(s)" in err


class RenamesQuietly(Transform):
    """Renames a tensor and says it changed nothing."""

    id = "test.renames_quietly"

    def apply(self, graph, ctx):
        for node in graph.nodes():
            if node.type == "Parameter":
                node.out_port(0).data.add_name("renamed")
        return False


def test_renaming_a_tensor_counts_as_an_edit_for_the_runner(plugin_host_with):
    from irconv.contract.context import TransformContext
    from irconv.errors import GraphError

    host = plugin_host_with(RenamesQuietly())
    graph = Graph("g", "toy")
    x = graph.add_node(Parameter((1, 4)), "x")
    graph.add_node(Result(), "out", [graph.add_node(Add(), "a", [x.out_port(0), x.out_port(0)]).out_port(0)])
    registry = host.registry()
    ctx = TransformContext(ConversionOptions(validate=True), registry.ops, registry.plan)
    with pytest.raises(GraphError, match="returned False but renamed tensors"):
        run_phase(graph, Phase.MIDDLE, ctx)


@pytest.fixture
def plugin_host_with():
    def make(*transforms: Transform) -> PluginHost:
        class Middle:
            @hookimpl
            def middle_transform(self):
                return list(transforms)

        host = PluginHost(autoload=False)
        host.register(Middle(), "middle", distribution="irconv-middle", version="1")
        return host

    return make


def test_an_undeclared_produced_op_fails_the_plugin():
    class Undeclared:
        @hookimpl
        def extract_op(self):
            return [extractor("toy", "Thing", lambda node, ctx: Relu(), produces=[Relu])]

    host = PluginHost(autoload=False)
    host.register(Undeclared(), "undeclared", distribution="irconv-undeclared", version="1")
    (info,) = host.plugins()
    assert info.status == "failed"
    assert "produces Relu (ReLU), which no installed plugin declares" in info.error


def test_an_extraction_only_op_needs_no_declaration():
    """An op without an opset (a value a front end carries during extraction only, which the
    emitter refuses if it is left) may stand in produces undeclared."""

    class Carrier(Op):
        type = "Carrier"
        version = 0

    class Carries:
        @hookimpl
        def extract_op(self):
            return [extractor("toy", "Thing", lambda node, ctx: Carrier(), produces=[Carrier])]

    host = PluginHost(autoload=False)
    host.register(Carries(), "carries", distribution="irconv-carries", version="1")
    host.registry().all_extractors("toy")
    (info,) = host.plugins()
    assert info.status != "failed", info.error


def test_produces_takes_op_classes():
    with pytest.raises(PluginError, match="produces= takes Op classes"):
        extractor("toy", "Thing", lambda node, ctx: Relu(), produces=[int])


class OnlyWhenAsked(Transform):
    """Removes nothing, but says it changed the graph, when ``test.enabled`` is on."""

    id = "test.only_when_asked"

    def condition(self, graph, ctx):
        return bool(ctx.options.plugin_values.get("test.enabled", False))

    def apply(self, graph, ctx):
        return True


def test_the_test_kit_asks_a_transforms_condition_first():
    from irconv.testing import run_transform

    def graph():
        g = Graph("g", "toy")
        x = g.add_node(Parameter((1, 4)), "x")
        g.add_node(Result(), "out", [x.out_port(0)])
        return g

    assert run_transform(graph(), OnlyWhenAsked()) is False
    assert run_transform(graph(), OnlyWhenAsked(), **{"test.enabled": True}) is True


def test_contexts_expose_the_declared_ops_not_the_registry():
    from irconv.contract.context import LoadContext, TransformContext
    from irconv.plugins import OpTable

    host = PluginHost(autoload=False)
    host.register(DeclaresBrokenInfer(), "declares", distribution="irconv-declares", version="1")
    registry = host.registry()
    for ctx in (LoadContext(ConversionOptions(), registry), TransformContext(ConversionOptions(), registry)):
        assert not hasattr(ctx, "registry")
        assert isinstance(ctx.ops, OpTable) and ctx.ops.info(BrokenInfer) is not None


def test_ops_of_a_plugin_that_failed_are_reported_with_the_failure(tmp_path, monkeypatch, capsys):
    class BrokenExtractors:
        @hookimpl
        def extract_op(self):
            raise NameError("name 'aliases' is not defined")

    use_toy_host(monkeypatch, (BrokenExtractors(), "broken"))
    code, err = _convert(tmp_path, "Unknown", capsys)
    assert code == 5
    assert "Plugins that failed and were left out" in err
    assert "irconv-broken 1: hook extract_op failed: NameError" in err


def test_contexts_are_built_from_the_op_table_and_lookups():
    from irconv.contract.context import LoadContext, TransformContext
    from irconv.contract.optable import OpTable
    from irconv.contract.records import Phase

    asked: list[tuple[str, str, str, int]] = []

    def find_extractor(framework: str, domain: str, op: str, opset: int) -> None:
        asked.append((framework, domain, op, opset))
        return None

    table = OpTable()
    load = LoadContext(ConversionOptions(), table, find_extractor)
    assert load.ops is table
    assert load.has_extractor("onnx", "", "Relu", 13) is False
    assert asked == [("onnx", "", "Relu", 13)]
    transform = TransformContext(ConversionOptions(), table, lambda phase: [phase])  # type: ignore[list-item]
    assert transform.plan(Phase.MIDDLE) == [Phase.MIDDLE]
    assert TransformContext(ConversionOptions()).plan(Phase.FRONT) == []


def test_a_context_made_with_the_registry_still_works_with_a_deprecation_warning():
    from irconv.contract.context import LoadContext

    host = PluginHost(autoload=False)
    host.register(DeclaresBrokenInfer(), "declares", distribution="irconv-declares", version="1")
    registry = host.registry()
    with pytest.warns(DeprecationWarning, match=r"LoadContext\(options, registry\) is deprecated"):
        ctx = LoadContext(ConversionOptions(), registry)
    assert ctx.ops is registry.ops and ctx.has_extractor("onnx", "", "Nothing", 1) is False
