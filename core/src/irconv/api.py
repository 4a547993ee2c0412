"""The Python API: ``convert_model`` and ``save_model``."""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any

from irconv.graph import Graph
from irconv.pipeline.options import ConversionOptions
from irconv.pipeline.run import convert, save
from irconv.plugins.manager import PluginHost


def _host(host: PluginHost | None, disabled_plugins: Any) -> PluginHost:
    if host is not None:
        return host
    return PluginHost(disabled=disabled_plugins or ())


def convert_model(
    path: str | PathLike[str],
    *,
    host: PluginHost | None = None,
    disabled_plugins: list[str] | None = None,
    **options: Any,
) -> Graph:
    """Convert a model file into a graph of opset ops, ready for ``save_model``.

    ``options`` are the fields of ``ConversionOptions`` (``inputs=["data[1,3,224,224]"]``,
    ``outputs``, ``static_shape``, ``disabled_transforms``, ``weights``, ...). The options
    used are kept on the graph so ``save_model`` emits with the same settings.
    """
    opts = ConversionOptions.from_kwargs(**options)
    graph = convert(Path(path), opts, _host(host, disabled_plugins))
    graph.meta["options"] = opts
    graph.meta["source_path"] = Path(path)
    return graph


def save_model(
    graph: Graph,
    path: str | PathLike[str],
    *,
    host: PluginHost | None = None,
    **options: Any,
) -> list[Path]:
    """Write ``graph`` (IR v11 by default: ``path`` is the ``.xml``, the ``.bin`` sits beside it).

    Returns the files written. ``compress_to_fp16`` and ``output_format`` may be given;
    other options default to those ``convert_model`` used.
    """
    opts = graph.meta.get("options") or ConversionOptions()
    if options:
        merged = {**vars(opts), **options}
        opts = ConversionOptions(**merged)
    protected = (graph.meta["source_path"],) if "source_path" in graph.meta else ()
    return save(graph, Path(path), opts, _host(host, None), protected=protected)
