"""What the core hands to extractors, transforms and emitters."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import numpy as np

from irconv import narrow_float
from irconv.contract.attributes import AttributeReader
from irconv.contract.optable import OpTable
from irconv.contract.options import ConversionOptions
from irconv.contract.progress import NoProgress, Progress
from irconv.errors import ConversionError, quoted
from irconv.graph import Graph, MetaKey, Node, OutPort
from irconv.graph.infer import try_infer
from irconv.narrow_float import as_array
from irconv.ops import Const, Op, SourceOp
from irconv.types import ElementType, MaybeShape

if TYPE_CHECKING:
    from irconv.contract.records import Extractor, Phase, Transform
    from irconv.pipeline.output import OutputFiles
    from irconv.plugins.registry import Provided

#: How a context finds an extractor: (framework, domain, op type, opset) -> the record or None.
#: The plugin host's registry answers (``Registry.find_extractor``).
ExtractorLookup = Callable[[str, str, str, int], "Extractor | None"]
#: How a transform context finds a phase's ordered transforms, with their plugins.
PlanLookup = Callable[["Phase"], "list[Provided[Transform]]"]


def _no_extractor(framework: str, domain: str, op: str, opset: int) -> Extractor | None:
    return None


def _no_plan(phase: Phase) -> list[Provided[Transform]]:
    return []


def _registry_parts(ops: Any, context: str, stacklevel: int = 4) -> tuple[OpTable, Any]:
    """A context made as in irconv 0.2, with the registry where the op table now goes: its op
    table and the registry itself (for its lookups); otherwise ``ops`` as given."""
    if ops is None:
        return OpTable(), None
    if isinstance(ops, OpTable):
        return ops, None
    warnings.warn(f"{context}(options, registry) is deprecated since irconv 0.3: pass the op table "
                  f"(registry.ops) and the lookups", DeprecationWarning, stacklevel=stacklevel)
    return ops.ops, ops


#: The converted model's path (set once it is loaded from a file): ``save_model`` refuses to
#: overwrite it, transforms may look beside it (``--dataset`` finds the model's tokenizer).
SOURCE_PATH: MetaKey[Path] = MetaKey("core.source_path", Path)


@dataclass
class LoadContext:
    """Handed to a loader: the options, the declared ops, a notes list.

    A loader asks whether an op has an extractor (``has_extractor``) before choosing a
    fallback such as expanding a function body; the context answers through
    ``find_extractor``, the lookup the core hands it. The registry itself stays the core's.
    """

    options: ConversionOptions
    #: The declared ops of every installed plugin (``declare_ops``).
    ops: OpTable = field(default_factory=OpTable)
    find_extractor: ExtractorLookup = _no_extractor
    notes: list[str] = field(default_factory=list)
    #: Report bytes read as they are (``progress.advance(n)``), for the progress display.
    progress: Progress = field(default_factory=NoProgress)
    #: The model is read to be shown (``irconv show``): keep its storage forms as the file has
    #: them (an IR's f16 weights and their decompression) instead of normalising them.
    as_written: bool = False

    def __post_init__(self) -> None:
        self.ops, registry = _registry_parts(self.ops, "LoadContext")
        if registry is not None:
            self.find_extractor = registry.find_extractor

    def has_extractor(self, framework: str, domain: str, op: str, opset: int) -> bool:
        return self.find_extractor(framework, domain, op, opset) is not None

    def note(self, message: str) -> None:
        """Report something the user should know (printed after conversion)."""
        self.notes.append(message)


_MISSING: Any = object()
_Source = TypeVar("_Source")


def _deprecated(name: str, instead: str) -> None:
    warnings.warn(f"ExtractContext.{name} is deprecated since irconv 0.2; use {instead}",
                  DeprecationWarning, stacklevel=3)


class ExtractContext:
    """What an extractor sees of one framework node, and helpers to build opset ops for it.

    Attributes come through the front end's adapter, read typed (``attrs``); the facts of every input
    (``input_shape``/``input_type``/``input_value``) are known because extraction runs
    producers first and the core infers each node right after it is extracted.
    New nodes are named after the framework node (``<name>/<suffix>``) so the IR still
    reads like the source model.
    """

    def __init__(
        self,
        graph: Graph,
        node: Node,
        options: ConversionOptions,
        ops: OpTable | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.graph = graph
        self.node = node
        self.options = options
        #: The declared ops of every installed plugin (``declare_ops``).
        self.ops: OpTable = _registry_parts(ops, "ExtractContext", stacklevel=3)[0]
        self.notes = notes if notes is not None else []
        self.inputs: list[OutPort | None] = [p.get_source() for p in node.in_ports()]
        self._attrs: AttributeReader | None = None

    # ------------------------------------------------------------ the framework node
    @property
    def source_op(self) -> SourceOp:
        op = self.node.op
        if not isinstance(op, SourceOp):
            raise ConversionError(f"node {quoted(self.node.name)} was already extracted")
        return op

    @property
    def source(self) -> Any:
        """The framework's own description of the node, for the front end's own helpers."""
        return self.source_op.source

    def source_as(self, kind: type[_Source]) -> _Source:
        """The framework's own description of the node as the front end's type ``kind``
        (a Caffe layer, an FX node, ...); a node that carries something else is one error
        naming it, as when an extractor is registered under the wrong framework."""
        found = self.source_op.source
        if not isinstance(found, kind):
            raise ConversionError(f"{self.where()}: carries {type(found).__name__}, not the "
                                  f"{kind.__name__} its extractor reads")
        return found

    @property
    def attrs(self) -> AttributeReader:
        """Typed reads of the node's attributes: ``ctx.attrs.int("axis", 1)``, ``.ints``,
        ``.float``, ``.str``, ``.bool``, ``.tensor``, ``.graph``, ``.required``; a missing
        or mistyped attribute is one error naming the node, the attribute, the expected
        type and what was found."""
        if self._attrs is None:
            self._attrs = AttributeReader(self.source_op.attributes, self.where())
        return self._attrs

    def attr(self, name: str, default: Any = _MISSING) -> Any:
        """Deprecated since 0.2: use the typed ``ctx.attrs``."""
        _deprecated("attr", "ctx.attrs.int/.str/...")
        return self.attrs.get(name, default) if default is not _MISSING else self.attrs.required(name)

    def has_attr(self, name: str) -> bool:
        """Deprecated since 0.2: ``name in ctx.attrs``."""
        _deprecated("has_attr", "name in ctx.attrs")
        return name in self.attrs

    def require_rank(self, idx: int = 0) -> int:
        """Deprecated since 0.2: ``irconv.frontend.require_rank(ctx, idx)``."""
        from irconv.frontend.helpers import require_rank

        _deprecated("require_rank", "irconv.frontend.require_rank(ctx, idx)")
        return require_rank(self, idx)

    def normalize_axis(self, axis: int, rank: int) -> int:
        """Deprecated since 0.2: ``irconv.frontend.normalize_axis(ctx, axis, rank)``."""
        from irconv.frontend.helpers import normalize_axis

        _deprecated("normalize_axis", "irconv.frontend.normalize_axis(ctx, axis, rank)")
        return normalize_axis(self, axis, rank)

    def body(self, name: str) -> Graph:
        """The sub-graph ``name`` (an If branch, a Loop body) the loader read for this node;
        a missing one is the attribute error every front end gives."""
        found = self.source_op.bodies.get(name)
        if found is None:
            raise self.attrs.error(name, "a graph", "nothing (the attribute is required)")
        graph: Graph = found
        return graph

    def where(self) -> str:
        """``node 'conv1' (caffe Convolution)``: the node being extracted, for messages."""
        return f"node {quoted(self.node.name)} ({self.source_op.describe()})"

    def note(self, message: str) -> None:
        """Tell the user something about this node's conversion (an approximation, say);
        printed after the conversion, prefixed with the node's name."""
        self.notes.append(f"{self.node.name}: {message}")

    # ------------------------------------------------------------ inputs and their facts
    def input(self, idx: int) -> OutPort:
        """The tensor at input ``idx``, which must be connected."""
        if not 0 <= idx < len(self.inputs) or self.inputs[idx] is None:
            raise ConversionError(f"node {quoted(self.node.name)} ({self.node.type}): input {idx} is missing")
        source = self.inputs[idx]
        assert source is not None
        return source

    def has_input(self, idx: int) -> bool:
        return 0 <= idx < len(self.inputs) and self.inputs[idx] is not None

    def input_shape(self, idx: int) -> MaybeShape:
        """The input's inferred shape (None: rank unknown)."""
        return self.input(idx).data.shape

    def input_rank(self, idx: int) -> int | None:
        shape = self.input_shape(idx)
        return None if shape is None else len(shape)

    def input_type(self, idx: int) -> ElementType:
        """The input's inferred element type (``ElementType.dynamic`` when unknown)."""
        return self.input(idx).data.element_type

    def input_value(self, idx: int) -> np.ndarray | None:
        """Input ``idx``'s constant value when known, else None (also when not connected):
        ``OutPort.constant(shape_derived=True)``. A value computed from a shape counts, since
        an extractor may specialise on it; folding it into the IR still waits for
        ``--static-shape``. bf16 and f8 values come as their f32 numbers (NumPy has no
        arithmetic on their codes); ``input_type`` still says what the input holds."""
        if not self.has_input(idx):
            return None
        value: np.ndarray | None = narrow_float.widen(self.input(idx).constant(shape_derived=True))
        return value

    # ------------------------------------------------------------ building
    def add(self, op: Op, inputs: Sequence[OutPort | None], suffix: str | None = None) -> Node:
        """Add a helper node named ``<framework node>/<suffix or op type>``, inferred at once."""
        name = f"{self.node.name}/{suffix or op.type}"
        node = self.graph.add_node(op, name, inputs, origin=self.node.name)
        try_infer(node)
        return node

    def op(self, op: Op, *inputs: OutPort | None, suffix: str | None = None) -> OutPort:
        """Add a single-output helper node and return its output port."""
        return self.add(op, inputs, suffix).out_port(0)

    def const(self, value: Any, dtype: Any = None, suffix: str = "const") -> OutPort:
        """A Const helper node holding ``value`` (0-d stays 0-d)."""
        return self.op(Const(as_array(value, dtype)), suffix=suffix)


@dataclass
class TransformContext:
    """Handed to each transform: the options, the declared ops, notes.

    ``is_frozen(node)`` is True for nodes the user asked no optimisation to touch
    (``--finegrain-fusing``, unless ``frozen`` is given); the pattern driver skips matches
    that include one, and hand-written transforms must ask. ``find_plan`` is the lookup the
    core hands it for ``plan``.
    """

    options: ConversionOptions
    #: The declared ops of every installed plugin (``declare_ops``).
    ops: OpTable = field(default_factory=OpTable)
    find_plan: PlanLookup = _no_plan
    notes: list[str] = field(default_factory=list)
    frozen: Callable[[Node], bool] | None = None

    def __post_init__(self) -> None:
        self.ops, registry = _registry_parts(self.ops, "TransformContext")
        if registry is not None:
            self.find_plan = registry.plan
        if self.frozen is None:
            self.frozen = self.options.frozen_predicate()

    def plan(self, phase: Phase) -> list[Provided[Transform]]:
        """The ordered transforms of ``phase``, with their plugins (what ``irconv transforms`` shows)."""
        return self.find_plan(phase)

    def is_frozen(self, node: Node) -> bool:
        return self.frozen is not None and self.frozen(node)

    def note(self, message: str) -> None:
        """Report something the user should know (printed after conversion)."""
        self.notes.append(message)


@dataclass
class EmitContext:
    """Handed to an emitter: options, where to open output files, and a notes list."""

    options: ConversionOptions
    files: OutputFiles
    notes: list[str] = field(default_factory=list)
    #: Report bytes written as they are (``progress.advance(n)``), for the progress display.
    progress: Progress = field(default_factory=NoProgress)

    def open(self, path: Any, mode: str = "wb") -> IO[Any]:
        """Open an output file under a temporary name; renamed when the whole emit succeeds."""
        return self.files.open(path, mode)

    def note(self, message: str) -> None:
        self.notes.append(message)
