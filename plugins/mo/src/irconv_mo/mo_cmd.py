"""``irconv mo``: the legacy Model Optimizer's command line, as MO spelled it.

Pipelines written for ``mo --input_model m.onnx --mean_values data[123,117,104] --output_dir
out`` keep working: each MO flag is translated into irconv's own (``--mean-values``, ``-o
out/m.xml``, ...) and the conversion runs as ``irconv convert`` would, so both write the
same bytes. A flag irconv cannot honour is refused with one line saying what to use instead
(or why there is nothing to use), a usage error as an unknown flag is; flags that only tuned MO
itself are accepted and ignored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irconv.cli.parsing import OneLineErrorParser
from irconv.errors import UsageError

#: MO flags that irconv accepts and that change nothing (MO's own front-end choice, logging).
IGNORED = ("--use_legacy_frontend", "--use_new_frontend", "--progress", "--stream_output", "--keep_shape_ops")

#: MO flags irconv cannot honour, and the one line saying what to do instead.
REFUSED: dict[str, str] = {
    "--transformations_config": (
        "MO's JSON sub-graph replacement configs are not read; irconv replaces sub-graphs by plugins "
        "(a SubgraphReplacement transform, docs/plugin-guide.md), and converts the TensorFlow Object "
        "Detection API's post-processing ops natively"
    ),
    "--extensions": (
        "MO's Python extension folders are not loaded; irconv's extensions are installed plugins "
        "(`irconv new-plugin NAME`, docs/plugin-guide.md); for a Caffe CustomLayersMapping.xml use "
        "--caffe-custom-layers"
    ),
    "--tensorflow_use_custom_operations_config": "use a plugin instead (see --transformations_config)",
    "--tensorflow_object_detection_api_pipeline_config": (
        "not needed: irconv reads the exported SavedModel's post-processing ops as they are"
    ),
    "--tensorboard_logdir": "irconv writes no TensorBoard logs; `irconv show MODEL` draws the graph",
    "--input_checkpoint": "convert the checkpoint's SavedModel or frozen graph instead",
    "--counts": "Caffe mean-file counts are not supported; use --mean_values",
    "--mean_file": "Caffe mean files are not supported; use --mean_values with the per-channel means",
    "--mean_file_offsets": "Caffe mean files are not supported; use --mean_values",
    "--move_to_preprocess": "irconv puts means and scales into the IR itself (as MO's default did)",
}

_DATA_TYPES = {"FP16": True, "half": True, "FP32": False, "float": False}
_LOG_LEVELS = ("CRITICAL", "ERROR", "WARN", "WARNING", "INFO", "DEBUG", "NOTSET")


@dataclass(frozen=True)
class Translation:
    """What an MO command line means in irconv: the ``irconv convert`` arguments."""

    argv: list[str]
    notes: list[str]


def build_parser() -> argparse.ArgumentParser:
    """MO's flags, spelled as MO spelled them."""
    p = OneLineErrorParser(prog="irconv mo", description="The Model Optimizer's command line: MO's flags as MO "
                           "spelled them, translated into irconv convert's.", allow_abbrev=False)
    for flag in ("--input_model", "-m", "--input_proto", "-d", "--saved_model_dir", "--input_meta_graph",
                 "--output_dir", "-o", "--model_name", "-n", "--input", "--input_shape", "--output", "--batch",
                 "-b", "--mean_values", "--scale_values", "--scale", "-s", "--layout", "--source_layout",
                 "--target_layout", "--freeze_placeholder_with_value", "--finegrain_fusing", "--data_type",
                 "--log_level", "--framework"):
        p.add_argument(flag, dest=_dest(flag))
    p.add_argument("--compress_to_fp16", nargs="?", const="True", default=None)
    p.add_argument("--version", action="store_true", help="print irconv's and every plugin's version, as "
                   "`irconv --version` does")
    for flag in ("--reverse_input_channels", "--static_shape", "--disable_fusing", "--disable_resnet_optimization",
                 "--disable_nhwc_to_nchw", "--silent"):
        p.add_argument(flag, action="store_true")
    for flag in IGNORED:
        p.add_argument(flag, action="store_true")
    for flag in REFUSED:
        p.add_argument(flag, dest=_dest(flag), nargs="?", const="")
    return p


_SHORT = {"-m": "input_model", "-d": "input_proto", "-o": "output_dir", "-n": "model_name", "-b": "batch",
          "-s": "scale"}


def _dest(flag: str) -> str:
    return _SHORT.get(flag, flag.lstrip("-"))


def translate(args: argparse.Namespace) -> Translation:
    """The ``irconv convert`` arguments for a parsed MO command line."""
    for flag, why in REFUSED.items():
        if getattr(args, _dest(flag)) is not None:
            raise UsageError(f"{flag}: {why}")
    model = _model(args)
    argv = [str(model)]
    notes: list[str] = []
    name = args.model_name or (model.stem if model.suffix else model.name)
    argv += ["-o", str(Path(args.output_dir or ".") / f"{name}.xml")]
    if args.input_proto and args.input_model:
        argv += ["--proto", args.input_proto]
    if args.framework:
        argv += ["--framework", args.framework]
    argv += _inputs(args.input, args.input_shape)
    if args.output:
        argv += ["--output", args.output]
    value_flags: list[tuple[str, Any]] = [
        ("--batch", args.batch), ("--mean-values", args.mean_values), ("--scale-values", args.scale_values),
        ("--scale", args.scale), ("--layout", args.layout), ("--source-layout", args.source_layout),
        ("--target-layout", args.target_layout), ("--finegrain-fusing", args.finegrain_fusing),
    ]
    argv += [part for flag, value in value_flags if value is not None for part in (flag, str(value))]
    for frozen in _split_top(args.freeze_placeholder_with_value or ""):
        argv += ["--freeze-placeholder-with-value", frozen]
    switches = [("--reverse-input-channels", args.reverse_input_channels), ("--static-shape", args.static_shape),
                ("--disable-fusing", args.disable_fusing),
                ("--disable-resnet-optimization", args.disable_resnet_optimization),
                ("--disable-nhwc-to-nchw", args.disable_nhwc_to_nchw), ("-q", args.silent)]
    argv += [flag for flag, on in switches if on]
    argv += _compression(args)
    argv += _log_level(args.log_level)
    notes += [f"{flag}: accepted, has no effect in irconv" for flag in IGNORED if getattr(args, _dest(flag))]
    return Translation(argv, notes)


def _model(args: argparse.Namespace) -> Path:
    given = [v for v in (args.input_model, args.saved_model_dir, args.input_meta_graph) if v]
    if len(given) > 1:
        raise UsageError("give one of --input_model, --saved_model_dir and --input_meta_graph")
    if given:
        return Path(given[0])
    if args.input_proto:  # a Caffe network without weights
        return Path(args.input_proto)
    raise UsageError("no model given: --input_model FILE (or --saved_model_dir DIR)")


def _inputs(inputs: str | None, shapes: str | None) -> list[str]:
    """MO's ``--input a,b[1 3]`` and ``--input_shape [1,3,224,224],[1,10]`` as ``--input`` specs."""
    names = _split_top(inputs or "")
    shape_list = [s.strip() for s in _split_top(shapes or "")]
    if shape_list and not names:
        if len(shape_list) > 1:
            raise UsageError("--input_shape gives several shapes: name the inputs with --input in the same order")
        names = [""]
    if shape_list and len(shape_list) != len(names):
        raise UsageError(
            f"--input_shape gives {len(shape_list)} shape(s) for {len(names)} --input name(s): give one shape per "
            "input, in the order of --input"
        )
    specs = []
    for i, name in enumerate(names):
        spec = _spaces_to_commas(name)
        if shape_list:
            spec, arrow, value = spec.partition("->")  # the shape goes after the name, before {type}->value
            if "[" in spec:
                raise UsageError(f"--input {name!r} has a shape already; give shapes in --input or --input_shape")
            bare = shape_list[i].strip()
            shape = bare if bare.startswith("[") else f"[{bare.strip('()')}]"
            head, sep, tail = spec.partition("{")
            spec = head + _spaces_to_commas(shape.replace("(", "[").replace(")", "]")) + sep + tail + arrow + value
        specs += ["--input", spec]
    return specs


def _spaces_to_commas(spec: str) -> str:
    """MO wrote shapes as ``[1 3 224 224]`` as well as ``[1,3,224,224]``."""
    out, depth = [], 0
    for ch in spec:
        depth += ch == "["
        depth -= ch == "]"
        out.append("," if ch == " " and depth else ch)
    text = "".join(out)
    while ",," in text:
        text = text.replace(",,", ",")
    return text.replace("[,", "[").replace(",]", "]")


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets, braces and parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "[({"
        depth -= ch in "])}"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _compression(args: argparse.Namespace) -> list[str]:
    compress: bool | None = None
    if args.data_type is not None:
        if args.data_type not in _DATA_TYPES:
            raise UsageError(f"--data_type {args.data_type}: expected one of {', '.join(_DATA_TYPES)}")
        compress = _DATA_TYPES[args.data_type]
    if args.compress_to_fp16 is not None:
        text = args.compress_to_fp16.strip().lower()
        if text not in ("true", "false"):
            raise UsageError(f"--compress_to_fp16={args.compress_to_fp16}: expected True or False")
        compress = text == "true"
    if compress is None:
        return []
    return ["--compress-to-fp16" if compress else "--no-compress-to-fp16"]


def _log_level(level: str | None) -> list[str]:
    if level is None:
        return []
    if level.upper() not in _LOG_LEVELS:
        raise UsageError(f"--log_level {level}: expected one of {', '.join(_LOG_LEVELS)}")
    return ["-v"] if level.upper() in ("INFO", "DEBUG") else []


def run(argv: Sequence[str], convert: Callable[[list[str]], int]) -> int:
    """Parse MO's command line, print the notes, and run the translated conversion."""
    args = build_parser().parse_args(list(argv))
    if args.version:
        from irconv.cli.listing import version_text

        print(version_text())
        return 0
    translation = translate(args)
    for note in translation.notes:
        print(f"irconv mo: {note}", file=sys.stderr)
    return convert(["convert", *translation.argv])
