"""The pipeline: load -> extract -> front -> partial inference -> middle -> back -> emit."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irconv.contract.context import SOURCE_PATH, EmitContext, LoadContext, TransformContext
from irconv.contract.options import ConversionOptions
from irconv.contract.progress import NoProgress, Progress, Tally
from irconv.contract.records import Emitter, Loader, Phase
from irconv.errors import (
    ConversionError,
    IrconvError,
    ModelFileError,
    PluginFault,
    UnsupportedOpsError,
    UsageError,
    UserError,
    quoted,
)
from irconv.graph import Graph
from irconv.graph.infer import infer_graph
from irconv.ops import Const
from irconv.pipeline.collector import collect_less_often
from irconv.pipeline.extract import check_supported, extract_graph, source_nodes
from irconv.pipeline.fold import fold_constants
from irconv.pipeline.folder import MODEL_FOLDER
from irconv.pipeline.io import apply_input_overrides, cut_outputs
from irconv.pipeline.memory_check import large_tensor_notes, refuse_oversized_tensors
from irconv.pipeline.output import AtomicFiles, MemoryFiles
from irconv.pipeline.phases import TransformRun, run_phase, validate_graph
from irconv.plugins.manager import PluginHost
from irconv.plugins.registry import Provided, Registry


@dataclass
class ConversionReport:
    """What happened: the framework read, per-stage seconds, notes for the user, what each
    transform did. ``progress``, when given, is told each stage as it runs (see ``Progress``)."""

    framework: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    transforms: list[TransformRun] = field(default_factory=list)
    progress: Progress = field(default_factory=NoProgress, repr=False, compare=False)


def pick_loader(path: Path, options: ConversionOptions, registry: Registry) -> Provided[Loader]:
    """The loader for ``path``: the one named by ``--framework``, or the first that accepts it."""
    if not path.exists():
        raise ModelFileError(f"model file {path} does not exist")
    if options.framework:
        for provided in registry.loaders:
            if options.framework.lower() in (provided.item.framework.lower(), *map(str.lower, provided.item.aliases)):
                return provided
        known = registry.distribution_for_framework(options.framework)
        installed = ", ".join(registry.frameworks()) or "none"
        # A known plugin missing is this machine's problem; a name no plugin provides, the command line's.
        error = ModelFileError if known else UsageError
        raise error(
            f"no loader for framework {options.framework!r} is installed (installed: {installed}); "
            f"install {known or f'a plugin providing a {options.framework!r} loader'}"
        )
    for provided in registry.loaders:
        if provided.item.accepts(path):
            return provided
    tried = ", ".join(f"{p.item.framework} ({p.plugin.label()})" for p in registry.loaders) or "none installed"
    guess = _guess_framework(path, registry)
    if guess and guess[0] not in registry.frameworks():
        framework, dist = guess
        hint = f"it looks like {framework or path.suffix} format: install {dist} (pip install {dist})"
    else:
        hint = "name the framework with --framework, or install the plugin for this format"
    raise ModelFileError(f"no installed loader recognises {path} (loaders tried: {tried}); {hint}")


def pick_object_loader(model: object, registry: Registry) -> Provided[Loader]:
    """The first loader whose ``accepts_object`` takes the in-memory ``model``."""
    for provided in registry.loaders:
        if provided.item.takes_object(model):
            return provided
    readers = ", ".join(p.item.framework for p in registry.loaders if p.item.accepts_object is not None)
    raise UserError(
        f"no installed loader reads a {_model_text(model)} held in memory (loaders of in-memory models: "
        f"{readers or 'none installed'}); pass a model file's path, or install the front end for this "
        "framework (irconv-torch for torch.nn.Module and ExportedProgram)"
    )


def _load(loader: Loader, model: Path | object, ctx: LoadContext, keywords: Mapping[str, Any]) -> Graph:
    """``loader.load`` on a file, or on an object with the keywords it declares; a keyword
    it does not take is an error naming the ones it does."""
    allowed = () if isinstance(model, Path) else loader.object_keywords
    unknown = sorted(set(keywords) - set(allowed))
    if unknown:
        taken = ", ".join(allowed) or "none"
        what = "a model file" if isinstance(model, Path) else f"a {_model_text(model)}"
        raise UserError(f"convert_model: {', '.join(unknown)} is not an option, nor a keyword the {loader.framework} "
                        f"loader takes for {what} (it takes: {taken})")
    if isinstance(model, Path) or not loader.object_keywords:
        return loader.load(model, ctx)
    return loader.load(model, ctx, **keywords)


def _model_text(model: Path | object) -> str:
    if isinstance(model, Path):
        return str(model)
    kind = type(model)
    return f"{kind.__module__}.{kind.__qualname__} object"


def _guess_framework(path: Path, registry: Registry) -> tuple[str, str] | None:
    """``(framework, distribution)`` from the install hints (the core's and the plugins')."""
    if path.is_dir():
        if (path / "saved_model.pb").exists() or (path / "saved_model.pbtxt").exists():
            return ("tf", registry.distribution_for_framework("tf") or "irconv-tf")
        return None
    return registry.framework_for_suffix(path.suffix)


def check_supported_with_hints(graph: Graph, registry: Registry) -> None:
    """``check_supported``, its report extended with the distributions that provide missing ops."""
    try:
        check_supported(graph, registry)
    except UnsupportedOpsError as exc:
        hints: dict[str, list[str]] = {}
        for _, _, op in source_nodes(graph):
            if registry.find_extractor(op.framework, op.domain, op.op_type, op.opset_version) is not None:
                continue
            dist = registry.distribution_for_op(op.framework, op.domain, op.op_type)
            if dist is not None and op.op_type not in hints.setdefault(dist, []):
                hints[dist].append(op.op_type)
        failed = [f"  {p.label()}: {p.error}" for p in registry.failed_plugins()]
        if not hints and not failed:
            raise
        text = str(exc)
        if hints:
            lines = [f"  {', '.join(sorted(ops))}: provided by {d} (pip install {d})" for d, ops in hints.items()]
            text += "\nKnown plugins for some of them:\n" + "\n".join(lines)
        if failed:  # their extractors are missing because the plugin broke, not because none exist
            text += "\nPlugins that failed and were left out (their ops may be among these):\n" + "\n".join(failed)
        raise UnsupportedOpsError(text) from None


def check_runtime_rules(graph: Graph) -> None:
    """Every op's ``check`` on the finished graph: the rules OpenVINO enforces that the
    pipeline may only meet once its transforms have run; and every attribute among the
    values its declaration allows (those OpenVINO's CPU plugin implements)."""
    for node in graph.nodes():
        undeclared = node.op.undeclared_choice()
        if undeclared is not None:
            name, value, allowed = undeclared
            raise ConversionError(
                f"node {quoted(node.name)} ({node.op.describe()}): {name}={value!r} is not a value OpenVINO's CPU "
                f"plugin runs for this op version (it runs: {', '.join(repr(a) for a in allowed)})"
            )
        node.op.check(node)


def check_disabled_transforms(options: ConversionOptions, registry: Registry) -> ConversionOptions:
    """Every ``--disable-transform`` id names an installed transform: a typo would otherwise
    leave the transform running, silently. A renamed transform's former id is taken for its
    current one (with a warning); returns the options with current ids."""
    known = registry.transform_ids()
    renamed = registry.renamed_transforms()
    for given in options.disabled_transforms:
        if given in renamed and given not in known:
            warnings.warn(f"--disable-transform {given}: this transform is now {renamed[given]}; use that id",
                          FutureWarning, stacklevel=2)
        elif given not in known:
            near = difflib.get_close_matches(given, sorted(known), n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(near)}?" if near else ""
            raise UsageError(f"--disable-transform {given}: no installed transform has this id{hint} "
                            "(`irconv transforms` lists them)")
    current = {renamed.get(given, given) if given not in known else given for given in options.disabled_transforms}
    return dataclasses.replace(options, disabled_transforms=current)


def _blaming_op_owners(convert_fn: Callable[..., Graph]) -> Callable[..., Graph]:
    """An op's bug found while inferring or evaluating it names the plugin that declared the op
    (inference itself knows only the op class)."""

    @functools.wraps(convert_fn)
    def wrapper(path: Any, options: ConversionOptions, host: PluginHost, *args: Any, **kwargs: Any) -> Graph:
        try:
            return convert_fn(path, options, host, *args, **kwargs)
        except PluginFault as fault:
            if not fault.plugin and fault.op is not None:
                owner = host.registry().owner_of_op(fault.op)
                fault.blame(owner or f"the plugin that declares {fault.op.__name__}")
            raise

    return wrapper


@_blaming_op_owners
@collect_less_often
def convert(path: Path | object, options: ConversionOptions, host: PluginHost, report: ConversionReport | None = None,
            *, loader_keywords: Mapping[str, Any] | None = None) -> Graph:
    """Run every phase up to (not including) emit and return the finished graph.

    ``path`` is a model file, or a model held in memory (a Python object some loader's
    ``accepts_object`` takes), which that loader reads with ``loader_keywords``.
    ``report.progress``, when set, is told each stage and how far it got.
    """
    report = report if report is not None else ConversionReport()
    registry = host.registry()
    registry.raise_declaration_clashes()
    options = options.resolved(registry.options)
    options = check_disabled_transforms(options, registry)
    clock = _Clock(report)
    progress = report.progress

    file = path if isinstance(path, Path) else None
    provided = pick_object_loader(path, registry) if file is None else pick_loader(file, options, registry)
    report.framework = provided.item.framework
    loading = Tally(progress)
    load_ctx = LoadContext(options, registry.ops, registry.find_extractor, progress=loading)
    size = (0 if file is None else _size_of(file)) + (_size_of(options.weights) if options.weights else 0)
    loading.stage("load", size, "B")
    try:
        graph = _load(provided.item, path, load_ctx, loader_keywords or {})
    except IrconvError:  # the loader's own errors, and a plugin clash found while it ran
        raise
    except Exception as exc:  # a loader's parse failure is about the user's file
        raise ModelFileError(
            f"cannot read {_model_text(path)} as a {provided.item.framework} model: {type(exc).__name__}: {exc}"
        ) from exc
    if file is not None:
        graph.meta[SOURCE_PATH] = file
    if loading.done < size:
        progress.advance(size - loading.done)  # what the loader did not report itself
    report.notes += load_ctx.notes
    clock.lap("load")

    report.notes += apply_input_overrides(graph, options)
    cut_outputs(graph, options)
    check_supported_with_hints(graph, registry)
    progress.stage("extract", sum(1 for _ in source_nodes(graph)), "nodes")
    extract_graph(graph, registry, options, progress, report.notes)
    _require_outputs(graph, path)
    if options.validate:
        validate_graph(graph, extracted=True)
    clock.lap("extract")

    ctx = TransformContext(options, registry.ops, registry.plan)
    report.transforms += run_phase(graph, Phase.FRONT, ctx, progress)
    clock.lap("front")

    progress.stage("infer", len(graph), "nodes")
    infer_graph(graph)
    fold_constants(graph, static_shape=options.static_shape)
    progress.advance(len(graph))
    clock.lap("infer")

    report.transforms += run_phase(graph, Phase.MIDDLE, ctx, progress)
    clock.lap("middle")
    report.transforms += run_phase(graph, Phase.BACK, ctx, progress)
    graph.clean_up()
    check_runtime_rules(graph)
    clock.lap("back")
    report.notes += ctx.notes
    refuse_oversized_tensors(graph)
    report.notes += large_tensor_notes(graph)
    return graph


def _require_outputs(graph: Graph, model: Path | object) -> None:
    """Refuse a model without outputs: every operation in it would be dead code, and the IR
    would be one OpenVINO reads but nothing can be run or compared with."""
    if not graph.results():
        raise ModelFileError(
            f"{_model_text(model)} declares no outputs: there is nothing to convert (name the tensors to "
            "compute with --output)"
        )


def _size_of(path: Path) -> int:
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        return path.stat().st_size
    except OSError:
        return 0


def expected_emit_bytes(graph: Graph, compress_to_fp16: bool) -> int:
    """About how many bytes of weights an emitter writes: the constants' sizes (halved
    floats when they are compressed to f16)."""
    total = 0
    for node in graph.nodes():
        op = node.op
        if isinstance(op, Const):
            value = op.stored
            half = compress_to_fp16 and value.dtype.kind == "f" and value.dtype.itemsize > 2
            total += value.nbytes // 2 if half else value.nbytes
    return total


@collect_less_often
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
    provided = _emitter(registry, options)
    start = time.perf_counter()
    progress = report.progress if report is not None else NoProgress()
    progress.stage("emit", expected_emit_bytes(graph, options.compress_to_fp16), "B")
    with AtomicFiles(protected, sync=options.sync_output) as files:
        ctx = EmitContext(options, files, progress=progress)
        provided.item.emit(graph, output, ctx)
        folder = graph.meta.get(MODEL_FOLDER)
        if folder is not None:
            folder.write(output.parent, ctx)
        written = list(files.pending_paths())
    progress.finish()
    if report is not None:
        report.seconds["emit"] = time.perf_counter() - start
        report.notes += ctx.notes
    return written


def emit_in_memory(graph: Graph, output: Path, options: ConversionOptions, host: PluginHost) -> dict[Path, bytes]:
    """Emit ``graph`` as ``save`` does, into memory: the bytes of each file by its path."""
    registry = host.registry()
    options = options.resolved(registry.options)
    files = MemoryFiles()
    _emitter(registry, options).item.emit(graph, output, EmitContext(options, files))
    return files.contents()


def _emitter(registry: Registry, options: ConversionOptions) -> Provided[Emitter]:
    provided = registry.emitters.get(options.output_format)
    if provided is None:
        formats = ", ".join(sorted(registry.emitters)) or "none"
        # The default format missing is an installation problem; another one, the command line's.
        error = UserError if options.output_format == ConversionOptions.output_format else UsageError
        raise error(
            f"no emitter for output format {options.output_format!r} is installed (available: {formats}); "
            "install irconv (it brings the IR emitter)"
        )
    return provided


class _Clock:
    def __init__(self, report: ConversionReport) -> None:
        self._report = report
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self._report.seconds[stage] = now - self._last
        self._last = now
