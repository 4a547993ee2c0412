"""The pipeline: load -> extract -> front -> partial inference -> middle -> back -> emit."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from irconv.errors import ModelFileError, UserError
from irconv.graph import Graph
from irconv.pipeline.context import EmitContext, LoadContext, TransformContext
from irconv.pipeline.extract import check_supported, extract_graph
from irconv.pipeline.fold import fold_constants
from irconv.pipeline.infer import infer_graph
from irconv.pipeline.io import apply_input_overrides, cut_outputs
from irconv.pipeline.options import ConversionOptions
from irconv.pipeline.output import AtomicFiles
from irconv.pipeline.phases import TransformRun, run_phase, validate_graph
from irconv.plugins.manager import PluginHost
from irconv.plugins.records import Loader, Phase
from irconv.plugins.registry import Provided, Registry

#: Where the well-known front ends live, for "what to install" messages.
KNOWN_FRONT_ENDS = {"onnx": "irconv-onnx", "tf": "irconv-tf", "caffe": "irconv-caffe", "ir": "irconv-ir"}
_SUFFIX_HINTS = {
    ".onnx": "onnx",
    ".pb": "tf",
    ".pbtxt": "tf",
    ".keras": "tf",
    ".h5": "tf",
    ".meta": "tf",
    ".prototxt": "caffe",
    ".caffemodel": "caffe",
    ".xml": "ir",
}


@dataclass
class ConversionReport:
    """What happened: the framework read, per-stage seconds, notes for the user."""

    framework: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    transforms: list[TransformRun] = field(default_factory=list)


def pick_loader(path: Path, options: ConversionOptions, registry: Registry) -> Provided[Loader]:
    """The loader for ``path``: the one named by ``--framework``, or the first that accepts it."""
    if not path.exists():
        raise ModelFileError(f"model file {path} does not exist")
    if options.framework:
        for provided in registry.loaders:
            if provided.item.framework == options.framework:
                return provided
        dist = KNOWN_FRONT_ENDS.get(options.framework, f"a plugin providing a {options.framework!r} loader")
        installed = ", ".join(registry.frameworks()) or "none"
        raise ModelFileError(
            f"no loader for framework {options.framework!r} is installed (installed: {installed}); install {dist}"
        )
    for provided in registry.loaders:
        if provided.item.accepts(path):
            return provided
    tried = ", ".join(f"{p.item.framework} ({p.plugin.label()})" for p in registry.loaders) or "none installed"
    guess = _guess_framework(path)
    if guess and guess not in registry.frameworks():
        hint = (
            f"it looks like {guess} format: install {KNOWN_FRONT_ENDS[guess]} (pip install {KNOWN_FRONT_ENDS[guess]})"
        )
    else:
        hint = "name the framework with --framework, or install the plugin for this format"
    raise ModelFileError(f"no installed loader recognises {path} (loaders tried: {tried}); {hint}")


def _guess_framework(path: Path) -> str | None:
    if path.is_dir():
        return "tf" if (path / "saved_model.pb").exists() or (path / "saved_model.pbtxt").exists() else None
    return _SUFFIX_HINTS.get(path.suffix.lower())


def convert(path: Path, options: ConversionOptions, host: PluginHost, report: ConversionReport | None = None) -> Graph:
    """Run every phase up to (not including) emit and return the finished graph."""
    report = report if report is not None else ConversionReport()
    registry = host.registry()
    options = options.resolved(registry.options)
    clock = _Clock(report)

    provided = pick_loader(path, options, registry)
    report.framework = provided.item.framework
    load_ctx = LoadContext(options, registry)
    try:
        graph = provided.item.load(path, load_ctx)
    except UserError:
        raise
    except Exception as exc:  # a loader's parse failure is about the user's file
        raise ModelFileError(
            f"cannot read {path} as a {provided.item.framework} model: {type(exc).__name__}: {exc}"
        ) from exc
    report.notes += load_ctx.notes
    clock.lap("load")

    apply_input_overrides(graph, options)
    cut_outputs(graph, options)
    check_supported(graph, registry)
    extract_graph(graph, registry, options)
    if options.validate:
        validate_graph(graph, extracted=True)
    clock.lap("extract")

    ctx = TransformContext(options, registry)
    report.transforms += run_phase(graph, Phase.FRONT, ctx)
    clock.lap("front")

    infer_graph(graph)
    fold_constants(graph, static_shape=options.static_shape)
    clock.lap("infer")

    report.transforms += run_phase(graph, Phase.MIDDLE, ctx)
    clock.lap("middle")
    report.transforms += run_phase(graph, Phase.BACK, ctx)
    graph.clean_up()
    clock.lap("back")
    report.notes += ctx.notes
    return graph


def save(
    graph: Graph,
    output: Path,
    options: ConversionOptions,
    host: PluginHost,
    *,
    protected: tuple[Path, ...] = (),
    report: ConversionReport | None = None,
) -> list[Path]:
    """Emit ``graph`` in ``options.output_format``: every file appears, or none does."""
    registry = host.registry()
    options = options.resolved(registry.options)
    provided = registry.emitters.get(options.output_format)
    if provided is None:
        formats = ", ".join(sorted(registry.emitters)) or "none"
        raise UserError(
            f"no emitter for output format {options.output_format!r} is installed (available: {formats}); "
            "install irconv (it brings the IR emitter)"
        )
    start = time.perf_counter()
    with AtomicFiles(protected) as files:
        ctx = EmitContext(options, files)
        provided.item.emit(graph, output, ctx)
        written = list(files.pending_paths())
    if report is not None:
        report.seconds["emit"] = time.perf_counter() - start
        report.notes += ctx.notes
    return written


class _Clock:
    def __init__(self, report: ConversionReport) -> None:
        self._report = report
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self._report.seconds[stage] = now - self._last
        self._last = now
