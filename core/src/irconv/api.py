"""The Python API: ``convert_model`` and ``save_model``."""

from __future__ import annotations

import dataclasses
from os import PathLike
from pathlib import Path
from typing import Any

from irconv.contract.context import SOURCE_PATH
from irconv.contract.option import OptionTable
from irconv.contract.options import ConversionOptions
from irconv.graph import Graph, MetaKey
from irconv.pipeline.folder import MODEL_FOLDER, folder_output
from irconv.pipeline.run import convert, emit_in_memory, save
from irconv.plugins.manager import PluginHost

#: The options ``convert_model`` used, so ``save_model`` emits with the same settings.
USED_OPTIONS: MetaKey[ConversionOptions] = MetaKey("core.options", ConversionOptions)


def _host(host: PluginHost | None, disabled_plugins: Any) -> PluginHost:
    if host is not None:
        return host
    return PluginHost(disabled=disabled_plugins or ())


def convert_model(
    model: str | PathLike[str] | object,
    *,
    host: PluginHost | None = None,
    disabled_plugins: list[str] | None = None,
    **options: Any,
) -> Graph:
    """Convert a model into a graph of opset ops, ready for ``save_model``.

    ``model`` is a model file's path, or a model held in memory that an installed loader
    reads (``irconv-torch``: a ``torch.nn.Module`` or an ``ExportedProgram``).
    ``options`` are the fields of ``ConversionOptions`` (``inputs=["data[1,3,224,224]"]``,
    ``outputs``, ``static_shape``, ``disabled_transforms``, ``weights``, ...), the
    keywords of the options installed plugins declare (``irconv convert --help`` lists
    them; ``signature="serving_default"`` for TensorFlow, for example) and, for a model in
    memory, the keywords its loader takes (``example_input=`` for a ``torch.nn.Module``).
    """
    plugin_host = _host(host, disabled_plugins)
    registry = plugin_host.registry()
    source = Path(model) if isinstance(model, (str, PathLike)) else model
    loader_keywords = {} if isinstance(source, Path) else _loader_keywords(options, registry.options)
    opts = ConversionOptions.from_kwargs(registry.options, **options)
    graph = convert(source, opts, plugin_host, loader_keywords=loader_keywords)
    graph.meta[USED_OPTIONS] = opts
    if isinstance(source, Path):
        graph.meta[SOURCE_PATH] = source
    return graph


def _loader_keywords(options: dict[str, Any], table: OptionTable) -> dict[str, Any]:
    """Takes out of ``options`` the keywords that are no conversion option: they go to the
    loader of an in-memory model, which says which it takes."""
    core = ConversionOptions.core_fields()
    found = [key for key in options if key not in core and key != "plugin_values" and table.by_keyword(key) is None]
    return {key: options.pop(key) for key in found}


def save_model(
    graph: Graph,
    path: str | PathLike[str],
    *,
    host: PluginHost | None = None,
    **options: Any,
) -> list[Path]:
    """Write ``graph`` (IR v11 by default: ``path`` is the ``.xml``, the ``.bin`` sits beside it;
    a model that converts to a folder, such as a Hugging Face checkpoint, takes the folder).

    Returns the files written. ``compress_to_fp16``, ``output_format`` and other options
    may be given; the rest default to those ``convert_model`` used.
    """
    plugin_host = _host(host, None)
    opts = _save_options(graph, plugin_host, options)
    source = graph.meta.get(SOURCE_PATH)
    folder = graph.meta.get(MODEL_FOLDER)
    target = Path(path) if folder is None else folder_output(str(path), folder, Path(path))
    return save(graph, target, opts, plugin_host, protected=(source,) if source else ())


def to_openvino(graph: Graph, *, host: PluginHost | None = None, **options: Any) -> Any:
    """The converted ``graph`` as an ``openvino.Model``, without writing files (notebooks,
    pipelines that compile at once). Options as for ``save_model``; the IR is emitted into
    memory and read by OpenVINO with the installed plugins' runtime extensions added.
    ``openvino`` is imported here only."""
    import numpy as np
    import openvino as ov

    from irconv.runtime import openvino_core

    plugin_host = _host(host, None)
    opts = dataclasses.replace(_save_options(graph, plugin_host, options), output_format="ir11")
    files = emit_in_memory(graph, Path("model.xml"), opts, plugin_host)
    xml, weights = files[Path("model.xml")], files.get(Path("model.bin"), b"")
    core = openvino_core(plugin_host.registry())
    return core.read_model(xml.decode("utf-8"), ov.Tensor(np.frombuffer(weights, dtype=np.uint8).copy()))


def _save_options(graph: Graph, host: PluginHost, options: dict[str, Any]) -> ConversionOptions:
    """The options ``convert_model`` used, with ``options`` given here on top."""
    opts = graph.meta.get(USED_OPTIONS) or ConversionOptions()
    if options:
        given = ConversionOptions.from_kwargs(host.registry().options, **options)
        core = {name: getattr(given, name) for name in options if name in ConversionOptions.core_fields()}
        opts = dataclasses.replace(opts, **core, plugin_values={**opts.plugin_values, **given.plugin_values})
    return opts
