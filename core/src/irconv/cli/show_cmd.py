"""``irconv show``: a picture of a model's graph, drawn by a renderer plugin (``render_graph``).

An IR (``.xml``) is shown as it is (read and extracted, no transforms); any other model is
converted first, so the picture is the IR irconv would write. ``--source`` shows the model
as loaded (framework ops); ``--diff`` puts the source graph beside the IR and marks what
the transforms added and removed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irconv.errors import UsageError, UserError
from irconv.plugins.manager import PluginHost

if TYPE_CHECKING:
    from irconv.contract.options import ConversionOptions
    from irconv.graph import Graph


def add_parser(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "show", help="draw a model's graph (interactive HTML, or SVG through Graphviz)", allow_abbrev=False
    )
    p.add_argument("model", type=Path, help="model file: an IR .xml, or any model irconv can convert")
    p.add_argument("-o", dest="out", type=Path, help="output file (default: ./<model name>.<format>)")
    p.add_argument("--format", default="html", help="picture format: html (default), svg, json (the raw document)")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--source", action="store_true", help="show the model as loaded (framework ops), unconverted")
    view.add_argument("--diff", action="store_true", help="show the source graph beside the IR, with what changed")
    p.add_argument("--framework", help="framework of the model, when it cannot be recognised")
    p.add_argument("--weights", type=Path, help="weights file, for formats that keep it apart")
    p.add_argument(
        "--input", dest="inputs", action="append", default=[], metavar="NAME[SHAPE]{TYPE}", help="override an input"
    )
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="set a plugin's option")
    p.add_argument("--disable-plugin", action="append", default=[], metavar="NAME")
    p.add_argument("--strict-plugins", action="store_true")
    p.add_argument("--debug", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    host = PluginHost(strict=args.strict_plugins, disabled=args.disable_plugin)
    registry = host.registry()
    render = _renderer(registry, args.format)
    options = _options(args, host)
    doc = build_document(args.model, options, host, source=args.source, diff=args.diff)
    out = args.out or Path.cwd() / f"{args.model.stem or 'model'}.{args.format}"
    out.parent.mkdir(parents=True, exist_ok=True)
    render(doc, out)
    nodes = sum(len(g["nodes"]) for g in doc["graphs"])
    print(f"wrote {out} ({args.format}, {nodes} nodes)")
    return 0


def _renderer(registry: Any, fmt: str) -> Any:
    if fmt == "json":
        return lambda doc, path: Path(path).write_text(json.dumps(doc, indent=1))
    provided = registry.renderers.get(fmt)
    if provided is None:
        available = ", ".join(["json", *sorted(registry.renderers)])
        hint = next((h.distribution for h in registry.hints if "show" in h.description), "irconv-viz")
        if any(p.plugin.distribution == hint for p in registry.renderers.values()):
            raise UsageError(f"no installed renderer draws {fmt!r} (available: {available}); {hint} is installed "
                            "and draws these; convert an svg with another tool if you need another format")
        raise UserError(f"no renderer for format {fmt!r} is installed (available: {available}); pip install {hint}")
    reason = provided.item.unavailable_reason()
    if reason:
        raise UserError(f"the {fmt} renderer of {provided.plugin.label()} cannot run here: {reason}")
    return provided.item.render


def _options(args: argparse.Namespace, host: PluginHost) -> ConversionOptions:
    from irconv.contract.options import ConversionOptions, InputSpec

    values: dict[str, Any] = {}
    table = host.registry().options
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or table.by_name(key.strip()) is None:
            raise table.unknown(key.strip(), "--option")
        values[key.strip()] = value
    options = ConversionOptions(
        framework=args.framework,
        inputs=[InputSpec.parse(text) for text in args.inputs],
        weights=args.weights,
        plugin_values=values,
    )
    return options.resolved(table)


def build_document(
    model: Path, options: ConversionOptions, host: PluginHost, *, source: bool = False, diff: bool = False
) -> dict[str, Any]:
    """The graph document (``irconv.cli.graphdoc``) for ``model``."""
    from irconv.cli.graphdoc import document, graph_entry
    from irconv.pipeline.run import ConversionReport, convert, pick_loader

    registry = host.registry()
    framework = pick_loader(model, options, registry).item.framework
    if source or (diff and framework != "ir"):
        loaded = load_only(model, options, host)
        source_entry = graph_entry(loaded, "source", framework)
        if source:
            return document(model.name, [source_entry])
    if framework == "ir":
        graph = load_and_extract(model, options, host)
        if diff:
            raise UserError("--diff compares a source model with its IR; an IR has no source graph here")
        return document(model.name, [graph_entry(graph, "IR", framework)])
    report = ConversionReport()
    graph = convert(model, options, host, report)
    ir_entry = graph_entry(graph, "IR", framework)
    if not diff:
        return document(model.name, [ir_entry])
    phases = {p.item.id: phase.value for phase in _phases() for p in registry.plan(phase)}
    transforms = [
        {
            "id": run.id,
            "phase": phases.get(run.id, ""),
            "changed": run.changed,
            "ms": round(run.seconds * 1000, 2),
            "nodes_before": run.nodes_before,
            "nodes_after": run.nodes_after,
        }
        for run in report.transforms
    ]
    return document(model.name, [ir_entry, source_entry], transforms)


def _phases() -> list[Any]:
    from irconv.contract.records import Phase

    return list(Phase)


def load_only(model: Path, options: ConversionOptions, host: PluginHost) -> Graph:
    """The model as its loader reads it (framework ops, before extraction)."""
    from irconv.contract.context import LoadContext
    from irconv.errors import ModelFileError
    from irconv.pipeline.io import apply_input_overrides
    from irconv.pipeline.run import pick_loader

    registry = host.registry()
    provided = pick_loader(model, options, registry)
    try:
        graph = provided.item.load(model, LoadContext(options, registry.ops, registry.find_extractor, as_written=True))
    except UserError:
        raise
    except Exception as exc:
        raise ModelFileError(f"cannot read {model} as a {provided.item.framework} model: {exc}") from exc
    apply_input_overrides(graph, options)
    return graph


def load_and_extract(model: Path, options: ConversionOptions, host: PluginHost) -> Graph:
    """Read and extract without transforms: an IR is shown as written."""
    from irconv.graph.infer import infer_graph
    from irconv.pipeline.extract import check_supported, extract_graph

    graph = load_only(model, options, host)
    check_supported(graph, host.registry())
    extract_graph(graph, host.registry(), options)
    infer_graph(graph)
    return graph
