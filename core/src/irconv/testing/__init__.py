"""The irconv test kit, registered as a pytest plugin (``pytest11``).

Fixtures:
  plugin_host: a fresh PluginHost with entry-point autoload off.
  register_plugin: ``register_plugin(obj, name="...", distribution=...)`` into it.
  installed_host: a PluginHost with every installed plugin (what the CLI sees).
Helpers: ``GraphBuilder``, ``graph_signature``, ``assert_graphs_equal``, ``run_transform``,
``infer_graph`` (partial inference of a whole graph, as the pipeline runs it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from irconv.graph import Graph
from irconv.pipeline.context import TransformContext
from irconv.graph.infer import infer_graph, reinfer
from irconv.pipeline.options import ConversionOptions
from irconv.plugins.manager import PluginHost
from irconv.plugins.records import Transform
from irconv.plugins.registry import Registry
from irconv.testing.builder import GraphBuilder
from irconv.testing.compare import assert_graphs_equal, graph_signature

__all__ = ["GraphBuilder", "assert_graphs_equal", "graph_signature", "infer_graph", "run_transform"]


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
    ctx = TransformContext(opts, Registry())
    if not transform.condition(graph, ctx):
        return False
    changed = transform.apply(graph, ctx)
    reinfer(graph)
    return bool(changed)


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
