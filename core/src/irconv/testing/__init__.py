"""The irconv test kit, registered as a pytest plugin (``pytest11``).

Fixtures:
  plugin_host: a fresh PluginHost with entry-point autoload off.
  register_plugin: ``register_plugin(obj, name="...", distribution=...)`` into it.
  installed_host: a PluginHost with every installed plugin (what the CLI sees).
Helpers: ``GraphBuilder``, ``graph_signature``, ``assert_graphs_equal``, ``run_extractor``
(one extractor on one framework node), ``run_transform``, ``infer_graph`` (partial inference
of a whole graph, as the pipeline runs it), ``finish_graph`` (the back phase and the runtime
rules, as a conversion ends).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from irconv.contract.context import ExtractContext, TransformContext
from irconv.contract.options import ConversionOptions
from irconv.contract.records import Extractor, Transform
from irconv.graph import Graph, OutPort
from irconv.graph.infer import infer_graph, reinfer, try_infer
from irconv.ops import MappingAttributes, Op, SourceOp
from irconv.pipeline.extract import CHECK_PRODUCES, apply_result, undeclared_products
from irconv.plugins.manager import PluginHost
from irconv.plugins.registry import Registry
from irconv.testing.builder import GraphBuilder
from irconv.testing.compare import assert_graphs_equal, graph_signature

__all__ = [
    "GraphBuilder",
    "assert_graphs_equal",
    "finish_graph",
    "graph_signature",
    "infer_graph",
    "run_extractor",
    "run_transform",
]


def pytest_configure(config: pytest.Config) -> None:
    """Every conversion in a test run checks that extractors build only what their
    ``produces`` lists (subprocesses inherit it)."""
    os.environ.setdefault(CHECK_PRODUCES, "1")


def run_extractor(
    builder: GraphBuilder,
    extractor: Extractor,
    *inputs: OutPort,
    attributes: Mapping[str, Any] | None = None,
    options: ConversionOptions | None = None,
) -> list[OutPort]:
    """Apply ``extractor`` to a framework node fed by ``inputs`` with ``attributes`` (plain
    Python values, as a loader's adapter gives them), as extraction does; returns the
    outputs that replace the node. Inputs made with ``builder.const`` give constant outputs
    that ``infer_graph`` computes through the ops' ``evaluate``. An op type built outside the
    extractor's ``produces`` (constants aside) fails with ``PluginError``."""
    source = SourceOp(framework=extractor.framework, op_type=extractor.op, domain=extractor.domain,
                      opset_version=extractor.opsets.start, attributes=MappingAttributes(attributes or {}))
    node = builder.graph.add_node(source, f"{extractor.op.lower()}_node", list(inputs))
    for port in inputs:
        try_infer(port.node)
    ctx = ExtractContext(builder.graph, node, options or ConversionOptions())
    mark = builder.graph.mark()
    result = extractor.extract(node, ctx)
    undeclared = undeclared_products(extractor, builder.graph, mark, result)
    if undeclared is not None:
        raise undeclared
    outputs = None if isinstance(result, Op) else list(result)
    apply_result(builder.graph, node, source, result if outputs is None else outputs)
    return [node.out_port(i) for i in range(node.num_outputs())] if outputs is None else outputs


def run_transform(
    graph: Graph, transform: Transform, options: ConversionOptions | None = None, **option_values: Any
) -> bool:
    """Infer the graph, apply one transform as the pipeline does (not at all when its
    ``condition`` says no), re-infer what it touched; returns "changed".

    Plugin option values are given by option name, as ``irconv convert --option`` takes
    them: ``run_transform(graph, LowerSwish(), **{"example.lower_swish": True})``, or in
    ``options`` (``ConversionOptions().with_values(...)``).
    """
    infer_graph(graph)
    opts = (options or ConversionOptions()).with_values(**option_values)
    ctx = TransformContext(opts)
    if not transform.condition(graph, ctx):
        return False
    changed = transform.apply(graph, ctx)
    reinfer(graph)
    return bool(changed)


def finish_graph(graph: Graph, registry: Registry, options: ConversionOptions | None = None) -> None:
    """End a conversion of ``graph`` as the pipeline does before emit: the installed back
    transforms (``registry``'s), clean-up, then every op's runtime rules (a broken one raises
    ``ConversionError``)."""
    from irconv.contract.records import Phase
    from irconv.pipeline.phases import run_phase
    from irconv.pipeline.run import check_runtime_rules

    run_phase(graph, Phase.BACK, TransformContext(options or ConversionOptions(), registry.ops, registry.plan))
    graph.clean_up()
    check_runtime_rules(graph)


@pytest.fixture
def plugin_host() -> PluginHost:
    """An isolated plugin host: no entry points loaded."""
    return PluginHost(autoload=False)


@pytest.fixture
def register_plugin(plugin_host: PluginHost) -> Callable[..., Any]:
    """Register a plugin object into ``plugin_host`` for this test."""

    def register(plugin: Any, name: str = "test-plugin", distribution: str | None = None, version: str = "0") -> Any:
        plugin_host.register(plugin, name, distribution=distribution, version=version)
        return plugin

    return register


@pytest.fixture(scope="session")
def installed_host() -> PluginHost:
    """Every installed plugin, loaded once per session (strict: a broken plugin fails)."""
    return PluginHost(strict=True)
