"""``irconv convert``."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irconv.cli.parsing import non_negative_float
from irconv.contract.option import OptionTable
from irconv.errors import PluginError, UsageError, UserError
from irconv.plugins.manager import PluginHost

if TYPE_CHECKING:
    from irconv.contract.options import ConversionOptions


def add_parser(commands: Any, plugin_options: OptionTable | None = None) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "convert", help="convert a model into OpenVINO IR", allow_abbrev=False
    )
    p.add_argument("model", type=Path, help="model file (or SavedModel directory)")
    p.add_argument("-o", dest="out", help="output .xml path, or a directory to write <model name>.xml in "
                   "(default: ./<model name>.xml)")
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
        "--threads",
        default=None,
        metavar="N",
        help="threads that encode and write the weights (default: one per available core); "
        "the output is the same for any N",
    )
    p.add_argument(
        "--disable-transform",
        action="append",
        default=[],
        metavar="ID",
        help="skip a transform by id (see `irconv transforms`); repeatable",
    )
    p.add_argument(
        "--finegrain-fusing",
        action="append",
        default=[],
        metavar="REGEX[,REGEX]",
        help="nodes whose name (or source-framework name) fully matches one of these regular expressions "
        "are never touched by any optimisation; repeatable",
    )
    p.add_argument(
        "--disable-plugin",
        action="append",
        default=[],
        metavar="NAME",
        help="do not load a plugin (entry-point or distribution name); repeatable",
    )
    p.add_argument("--strict-plugins", action="store_true", help="a plugin that fails to import is fatal")
    p.add_argument("--weights", type=Path, help="weights file, for formats that keep it apart from the topology")
    p.add_argument("--format", dest="output_format", default="ir11", help="output format (default: ir11)")
    p.add_argument(
        "--sync",
        dest="sync_output",
        action="store_true",
        help="wait until the output is on the disk before renaming it into place (survives a power cut)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a plugin's option by its name, e.g. caffe.custom_layers=map.xml; repeatable",
    )
    p.add_argument("--debug", action="store_true", help="tracebacks and graph checks after every transform")
    add_report_flags(p)
    verify_group = p.add_argument_group("verification (needs the source framework's runtime and openvino)")
    verify_group.add_argument(
        "--verify",
        action="store_true",
        help="run the IR (OpenVINO) and the source model (its own runtime) on the same inputs and compare",
    )
    verify_group.add_argument(
        "--verify-inputs",
        type=Path,
        metavar="FILE.npz",
        help="inputs for --verify by tensor name (default: seeded random)",
    )
    verify_group.add_argument(
        "--verify-tolerance",
        type=non_negative_float,
        default=None,
        metavar="TOL",
        help="largest error allowed, relative to the largest reference magnitude (default: 1e-2)",
    )
    verify_group.add_argument("--verify-seed", type=int, default=0, metavar="N", help="seed of the random inputs")
    if plugin_options is not None:
        add_plugin_options(p, plugin_options)
    p.set_defaults(run=run)


_PLUGIN_DEST = "plugin_option:"


def add_report_flags(p: argparse.ArgumentParser) -> None:
    noise = p.add_mutually_exclusive_group()
    noise.add_argument("-q", "--quiet", action="store_true", help="no progress display, header or summary")
    noise.add_argument(
        "-v", "--verbose", action="store_true", help="print per-stage and per-transform times and node deltas"
    )


def plugin_host_for(argv: Sequence[str]) -> PluginHost | None:
    """The plugins, loaded before parsing when the command is ``convert``: its flags include
    the options the plugins declare."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command != "convert":
        return None
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--disable-plugin", action="append", default=[])
    pre.add_argument("--strict-plugins", action="store_true")
    known, _ = pre.parse_known_args(argv)
    return PluginHost(strict=known.strict_plugins, disabled=known.disable_plugin)


def add_plugin_options(p: argparse.ArgumentParser, table: OptionTable) -> None:
    """One flag per declared option, grouped by the plugin that declares it."""
    groups: dict[str, Any] = {}
    for option in sorted(table, key=lambda o: (table.owner(o), o.name)):
        owner = table.owner(option)
        if owner not in groups:
            groups[owner] = p.add_argument_group(f"options of {owner}")
        kwargs: dict[str, Any] = {"dest": _PLUGIN_DEST + option.name, "default": argparse.SUPPRESS}
        help_text = f"{option.help} [{option.name}]".strip()
        if option.is_flag:
            kwargs["action"] = argparse.BooleanOptionalAction if option.default else "store_true"
        else:
            kwargs["action"] = "append" if option.multiple else "store"
            kwargs["metavar"] = option.metavar or (
                "{" + ",".join(str(c) for c in option.choices) + "}" if option.choices else "VALUE"
            )
            if option.default not in (None, (), ""):
                help_text += f" (default: {option.default})"
        try:
            groups[owner].add_argument(option.cli_flag, help=help_text, **kwargs)
        except argparse.ArgumentError as exc:
            raise PluginError(f"option {option.name} of {owner}: {exc}") from None


def options_from_args(args: argparse.Namespace, table: OptionTable | None) -> ConversionOptions:
    from irconv.contract.options import ConversionOptions, InputSpec, split_patterns, thread_count

    plugin_values: dict[str, Any] = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"bad --option {item!r}: expected NAME=VALUE")
        if table is None or table.by_name(key) is None:
            raise (table or OptionTable()).unknown(key, "--option")
        plugin_values[key] = value
    for dest, value in vars(args).items():
        if dest.startswith(_PLUGIN_DEST):
            plugin_values[dest[len(_PLUGIN_DEST) :]] = value
    return ConversionOptions(
        framework=args.framework,
        inputs=[InputSpec.parse(text) for text in args.inputs],
        outputs=[name.strip() for group in args.outputs for name in group.split(",") if name.strip()],
        static_shape=args.static_shape,
        compress_to_fp16=args.compress_to_fp16,
        disabled_transforms=set(args.disable_transform),
        finegrain_fusing=split_patterns(args.finegrain_fusing),
        weights=args.weights,
        output_format=args.output_format,
        sync_output=args.sync_output,
        threads=None if args.threads is None else thread_count(args.threads, "--threads"),
        plugin_values=plugin_values,
        validate=args.debug,
    )


def default_output(model: Path) -> Path:
    return Path.cwd() / _xml_name(model)


def output_path(given: str | None, model: Path) -> Path:
    """``-o``: a file path as given; an existing directory, or a path ending in a slash,
    holds ``<model name>.xml`` (as MO's --output_dir did)."""
    if given is None:
        return default_output(model)
    if given.endswith(("/", os.sep)) or Path(given).is_dir():
        return Path(given) / _xml_name(model)
    return Path(given)


def _xml_name(model: Path) -> str:
    stem = model.name if model.is_dir() else model.stem
    return f"{stem or 'model'}.xml"


def run(args: argparse.Namespace) -> int:
    import sys

    from irconv.cli.progress import make_progress, stage_line, transform_table
    from irconv.pipeline.folder import MODEL_FOLDER, folder_output
    from irconv.pipeline.run import ConversionReport, convert, save

    start = time.perf_counter()
    host = args.host or PluginHost(strict=args.strict_plugins, disabled=args.disable_plugin)
    options = options_from_args(args, host.registry().options).resolved(host.registry().options)
    if not args.quiet:
        print(header_line(host))
    failed_before = {p.name for p in host.plugins(complete=False) if p.status == "failed"}
    if args.verify_inputs is not None and not args.verify:
        raise UsageError("--verify-inputs gives the inputs of --verify: add --verify")
    if args.verify:
        _check_verify_possible(host, args, options)
    report = ConversionReport(progress=make_progress(sys.stderr, quiet=args.quiet))
    try:
        graph = convert(args.model, options, host, report)
        folder = graph.meta.get(MODEL_FOLDER)
        out = (output_path(args.out, args.model) if folder is None
               else folder_output(args.out, folder, Path.cwd() / f"{args.model.name}-openvino"))
        given_paths = [v for v in options.plugin_values.values() if isinstance(v, Path)]
        protected = tuple(p for p in (args.model, args.weights, *given_paths) if p is not None and p.is_file())
        written = save(graph, out, options, host, protected=protected, report=report)
    finally:
        report.progress.finish()
    if not args.quiet:
        for note in report.notes:
            print(f"note: {note}")
        for p in host.plugins(complete=False):  # hooks are called on first need: after the header
            if p.status == "failed" and p.name not in failed_before:
                print(f"note: plugin {p.name} ({p.label()}) failed and was left out: {p.error}")
    if args.verbose:
        print(stage_line(report.seconds))
        if report.transforms:
            print(transform_table(report.transforms))
    elapsed = time.perf_counter() - start
    if not args.quiet:
        print(
            f"converted {args.model} ({report.framework}) -> {', '.join(str(p) for p in written)}: "
            f"{len(graph)} layers in {elapsed:.2f} s"
        )
    if args.verify:
        return _verify(args, graph, report.framework, written[0], options, host)
    return 0


def _check_verify_possible(host: PluginHost, args: argparse.Namespace, options: ConversionOptions) -> None:
    """Fail before converting when --verify cannot run (framework known only from the file)."""
    from irconv.cli.verify import missing_requirements, read_inputs
    from irconv.pipeline.run import pick_loader

    if options.output_format != "ir11":
        raise UsageError(f"--verify runs the IR in OpenVINO: it needs --format ir11, not {options.output_format!r}")

    framework = pick_loader(args.model, options, host.registry()).item.framework
    problem = missing_requirements(host.registry(), framework)
    if problem:
        raise UserError(problem)
    if args.verify_inputs is not None:
        read_inputs(Path(args.verify_inputs))  # a bad file is reported before the conversion


def _verify(
    args: argparse.Namespace, graph: Any, framework: str, xml: Path, options: ConversionOptions, host: PluginHost
) -> int:
    from irconv.cli.verify import (
        DEFAULT_TOLERANCE,
        VerificationFailed,
        random_inputs,
        read_inputs,
        report_lines,
        verify,
    )

    tolerance = DEFAULT_TOLERANCE if args.verify_tolerance is None else args.verify_tolerance
    inputs = read_inputs(args.verify_inputs) if args.verify_inputs else random_inputs(graph, args.verify_seed)
    checks = verify(args.model, xml, framework, inputs, options, host.registry(), tolerance)
    for line in report_lines(checks, tolerance):
        print(line)
    failed = [c.name for c in checks if not c.ok]
    if failed:
        raise VerificationFailed(
            f"verification failed: {len(failed)} of {len(checks)} output(s) differ beyond {tolerance:g} "
            f"({', '.join(failed)}); the IR was written to {xml}"
        )
    print(f"verified {len(checks)} output(s) against {framework} within {tolerance:g}")
    return 0


def header_line(host: PluginHost) -> str:
    """One line naming the plugins in play, as pytest does (without calling hooks the
    conversion does not need: a hook failing later is reported by ``irconv plugins``)."""
    from irconv import __version__

    plugins = host.plugins(complete=False)
    active = ", ".join(f"{p.name}-{p.version}" for p in plugins if p.status == "active") or "none"
    line = f"irconv {__version__} -- plugins: {active}"
    failed = [p.name for p in plugins if p.status == "failed"]
    disabled = [p.name for p in plugins if p.status == "disabled"]
    if failed:
        line += f" -- failed to import: {', '.join(failed)} (see `irconv plugins`)"
    if disabled:
        line += f" -- disabled: {', '.join(disabled)}"
    return line
