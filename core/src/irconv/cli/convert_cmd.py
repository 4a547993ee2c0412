"""``irconv convert``."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from irconv.errors import UserError
from irconv.pipeline.options import ConversionOptions, InputSpec
from irconv.pipeline.run import ConversionReport, convert, save
from irconv.plugins.manager import PluginHost


def add_parser(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "convert", help="convert a model into OpenVINO IR", allow_abbrev=False
    )
    p.add_argument("model", type=Path, help="model file (or SavedModel directory)")
    p.add_argument("-o", dest="out", type=Path, help="output .xml path (default: ./<model name>.xml)")
    p.add_argument("--framework", help="framework of the model, when it cannot be recognised")
    p.add_argument(
        "--input",
        dest="inputs",
        action="append",
        default=[],
        metavar="NAME[SHAPE]{TYPE}",
        help="override an input's shape/type, e.g. data[1,3,224,224]{f32}; repeatable",
    )
    p.add_argument(
        "--output",
        dest="outputs",
        action="append",
        default=[],
        metavar="NAMES",
        help="comma-separated tensor names to make the model outputs (cuts the graph)",
    )
    p.add_argument(
        "--static-shape",
        action="store_true",
        help="fold shape sub-graphs into constants (the IR is no longer reshapeable)",
    )
    p.add_argument(
        "--compress-to-fp16",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="store float weights as f16 with a decompression Convert (default: on)",
    )
    p.add_argument(
        "--disable-transform",
        action="append",
        default=[],
        metavar="ID",
        help="skip a transform by id (see `irconv transforms`); repeatable",
    )
    p.add_argument(
        "--disable-plugin",
        action="append",
        default=[],
        metavar="NAME",
        help="do not load a plugin (entry-point or distribution name); repeatable",
    )
    p.add_argument("--strict-plugins", action="store_true", help="a plugin that fails to import is fatal")
    p.add_argument("--weights", type=Path, help="weights file (Caffe .caffemodel)")
    p.add_argument("--proto", type=Path, help="topology file when MODEL is the weights (Caffe .prototxt)")
    p.add_argument("--saved-model-tags", default="", help="comma-separated SavedModel tags (default: serve)")
    p.add_argument("--signature", help="SavedModel signature (default: serving_default)")
    p.add_argument("--layout-inputs", choices=["nchw"], help="give NHWC models NCHW inputs and outputs")
    p.add_argument("--disable-nhwc-to-nchw", action="store_true", help="keep NHWC ops (no layout change)")
    p.add_argument("--format", dest="output_format", default="ir11", help="output format (default: ir11)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a plugin-specific option, e.g. caffe.custom_layers=map.xml; repeatable",
    )
    p.add_argument("--debug", action="store_true", help="tracebacks and graph checks after every transform")
    p.set_defaults(run=run)


def options_from_args(args: argparse.Namespace) -> ConversionOptions:
    plugin_options = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"bad --option {item!r}: expected KEY=VALUE")
        plugin_options[key.strip()] = value
    return ConversionOptions(
        framework=args.framework,
        inputs=[InputSpec.parse(text) for text in args.inputs],
        outputs=[name.strip() for group in args.outputs for name in group.split(",") if name.strip()],
        static_shape=args.static_shape,
        compress_to_fp16=args.compress_to_fp16,
        disabled_transforms=set(args.disable_transform),
        weights=args.weights,
        proto=args.proto,
        saved_model_tags=[t for t in args.saved_model_tags.split(",") if t],
        signature=args.signature,
        layout_inputs=args.layout_inputs,
        nhwc_to_nchw=not args.disable_nhwc_to_nchw,
        output_format=args.output_format,
        plugin_options=plugin_options,
        validate=args.debug,
    )


def default_output(model: Path) -> Path:
    stem = model.name if model.is_dir() else model.stem
    return Path.cwd() / f"{stem or 'model'}.xml"


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    options = options_from_args(args)
    host = PluginHost(strict=args.strict_plugins, disabled=args.disable_plugin)
    print(header_line(host))
    report = ConversionReport()
    graph = convert(args.model, options, host, report)
    out = args.out or default_output(args.model)
    protected = tuple(p for p in (args.model, args.weights, args.proto) if p is not None and p.is_file())
    written = save(graph, out, options, host, protected=protected, report=report)
    for note in report.notes:
        print(f"note: {note}")
    elapsed = time.perf_counter() - start
    print(
        f"converted {args.model} ({report.framework}) -> {', '.join(str(p) for p in written)}: "
        f"{len(graph)} layers in {elapsed:.2f} s"
    )
    return 0


def header_line(host: PluginHost) -> str:
    """One line naming the plugins in play, as pytest does."""
    from irconv import __version__

    plugins = host.plugins()
    active = ", ".join(f"{p.name}-{p.version}" for p in plugins if p.status == "active") or "none"
    line = f"irconv {__version__} -- plugins: {active}"
    failed = [p.name for p in plugins if p.status == "failed"]
    disabled = [p.name for p in plugins if p.status == "disabled"]
    if failed:
        line += f" -- failed to import: {', '.join(failed)} (see `irconv plugins`)"
    if disabled:
        line += f" -- disabled: {', '.join(disabled)}"
    return line
