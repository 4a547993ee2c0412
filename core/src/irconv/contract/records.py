"""The typed records plugins return from the registration hooks.

Records are frozen and validated on creation, so a malformed plugin fails at start-up
with its own name in the message rather than in the middle of a conversion.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Union

from irconv.errors import PluginError

if TYPE_CHECKING:
    from irconv.contract.context import EmitContext, ExtractContext, TransformContext
    from irconv.graph import Graph, Node, OutPort
    from irconv.ops import Op

#: An opset range with no upper bound ends here.
NEWEST = 10_000

_ID = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)*$")

ExtractResult = Union["Op", "Sequence[OutPort]"]
ExtractFn = Callable[["Node", "ExtractContext"], ExtractResult]
#: The op classes an extractor produces (a comma-separated string of IR type names is still
#: accepted from plugins written before 0.2, with a DeprecationWarning).
Produces = tuple[type["Op"], ...]


class Phase(enum.Enum):
    """The three transform phases, in pipeline order."""

    FRONT = "front"
    MIDDLE = "middle"
    BACK = "back"


def opsets(first: int, last: int | None = None) -> range:
    """``opsets(13)`` is 13 and newer; ``opsets(1, 12)`` is 1..12 inclusive."""
    return range(first, (NEWEST if last is None else last) + 1)


@dataclass(frozen=True, slots=True)
class Loader:
    """Reads one framework's model files into a graph of ``SourceOp`` nodes.

    ``sniff`` looks at the file's first bytes (or a directory's content) and says whether
    the file is this framework's; ``suffixes`` is the cheap first guess.
    A loader that also reads models held in memory (a ``torch.nn.Module``, a Keras model)
    sets ``accepts_object``, which says whether it reads a given Python object (it must not
    import its framework to answer: an object of that framework means it is imported
    already); ``load`` then receives the object instead of a path, with the keywords of
    ``convert_model`` named in ``object_keywords`` (``example_input=...``).
    """

    framework: str
    load: Callable[..., Graph]
    suffixes: tuple[str, ...] = ()
    sniff: Callable[[Path], bool] | None = None
    description: str = ""
    accepts_object: Callable[[Any], bool] | None = None
    object_keywords: tuple[str, ...] = ()
    #: Other names users call the framework by (``tensorflow``, ``keras`` for ``tf``):
    #: ``--framework`` and ``irconv ops --framework`` accept them, in any case.
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.framework:
            raise PluginError("a Loader needs a framework name")

    def accepts(self, path: Path) -> bool:
        if self.sniff is not None:
            try:
                return bool(self.sniff(path))
            except OSError:
                return False
        return path.suffix.lower() in self.suffixes

    def takes_object(self, model: Any) -> bool:
        """Whether ``load`` reads the in-memory ``model``."""
        return self.accepts_object is not None and bool(self.accepts_object(model))


@dataclass(frozen=True, slots=True)
class Extractor:
    """Turns one framework op (for a range of opset versions) into opset ops.

    ``extract(node, ctx)`` returns either an ``Op`` (the node keeps its connections and
    takes the op) or the output ports of a sub-graph it built through ``ctx``, one per
    output of the framework op. The record is callable as its function.
    ``produces`` lists the op classes it becomes, for the supported-op tables; each must be
    a declared op (checked when the registry's extractor table is built). Front ends make
    these records with ``irconv.frontend.extractor``.
    """

    framework: str
    op: str
    extract: ExtractFn
    domain: str = ""
    opsets: range = range(1, NEWEST + 1)
    produces: Produces = ()

    def __post_init__(self) -> None:
        if not self.framework or not self.op:
            raise PluginError(f"an Extractor needs a framework and an op (got {self.framework!r}, {self.op!r})")
        if not self.opsets or self.opsets.step != 1:
            raise PluginError(f"{self.key_text()}: empty or stepped opset range {self.opsets}")
        if isinstance(self.produces, str):
            import warnings

            warnings.warn(f"{self.key_text()}: produces= as a string is deprecated; give the op classes",
                          DeprecationWarning, stacklevel=3)
            object.__setattr__(self, "produces", _named_products(self.produces))
        elif not isinstance(self.produces, tuple):
            object.__setattr__(self, "produces", tuple(self.produces))
        from irconv.ops import Op

        for made in self.produces:
            if not (isinstance(made, type) and issubclass(made, Op)):
                raise PluginError(f"{self.key_text()}: produces= takes Op classes, got {made!r}")

    def __call__(self, node: Node, ctx: ExtractContext) -> ExtractResult:
        return self.extract(node, ctx)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.framework, self.domain, self.op)

    def key_text(self) -> str:
        domain = f"{self.domain}::" if self.domain else ""
        return f"{self.framework}::{domain}{self.op}"

    def undeclared(self, built: Sequence[Op]) -> list[str]:
        """The types in ``built`` (ops an application of this extractor made) that its
        ``produces`` does not list; constants and framework nodes left for their own
        extractors are always allowed."""
        from irconv.ops import Const, SourceOp

        allowed = (Const, SourceOp, *self.produces)
        return sorted({op.type for op in built if not isinstance(op, allowed)})

    def produces_text(self) -> str:
        """The produced ops' IR types, for tables: ``Convolution, GroupConvolution``."""
        return ", ".join(dict.fromkeys(made.type for made in self.produces))

    def opsets_text(self) -> str:
        last = self.opsets[-1]
        if last >= NEWEST:
            return f"{self.opsets[0]}+"
        if self.opsets[0] == last:
            return str(last)
        return f"{self.opsets[0]}-{last}"


def _named_products(text: str) -> Produces:
    """Op classes standing for IR type names given as text (deprecated ``produces=`` form):
    placeholders whose ``type`` is the name, so the tables still show them."""
    from irconv.ops import Op

    names = [n.strip() for n in text.replace("/", ",").split(",") if n.strip()]
    return tuple(type(name, (Op,), {"type": name, "named_only": True}) for name in names)


class Transform:
    """A small declared unit of graph rewriting.

    Subclasses set ``id`` (dotted lower case, e.g. ``fuse.hswish``), optionally
    ``run_after``/``run_before`` ids (ids of transforms not installed are ignored) and
    ``enabled``; they implement ``apply`` and may narrow ``condition``. The phase is
    the hook that returns the transform. ``fixed_point`` asks the runner to apply the
    transform again while it reports a change (at most ``MAX_ROUNDS`` times).
    ``former_ids`` are ids the transform had before a rename: ``--disable-transform`` and
    other transforms' ``run_after``/``run_before`` still accept them.
    """

    MAX_ROUNDS: ClassVar[int] = 16

    id: ClassVar[str] = ""
    run_after: ClassVar[tuple[str, ...]] = ()
    run_before: ClassVar[tuple[str, ...]] = ()
    former_ids: ClassVar[tuple[str, ...]] = ()
    enabled: ClassVar[bool] = True
    fixed_point: ClassVar[bool] = False
    description: ClassVar[str] = ""

    def __init__(self) -> None:
        if not _ID.match(self.id):
            raise PluginError(f"transform {type(self).__name__} has a bad id {self.id!r}")

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        """Whether to run on this graph (e.g. only for one framework)."""
        return True

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        """Rewrite the graph; return True when something changed (the runner relies on it:
        a transform that returns False is taken at its word and nothing is re-inferred)."""
        raise NotImplementedError

    def summary(self) -> str:
        """``description``, or the first sentence of the class docstring as plain text (its
        first paragraph joined, reST literals unquoted)."""
        if self.description:
            return self.description
        paragraph = (type(self).__doc__ or "").strip().split("\n\n", 1)[0]
        text = " ".join(line.strip() for line in paragraph.splitlines()).replace("``", "")
        sentence = re.match(r"(.+?[^.][.!?])(\s|$)", text)  # an ellipsis ends no sentence
        found = sentence.group(1) if sentence else text
        return found[:-1] + "." if found.endswith(":") else found  # "...as follows:" introduces a list


@dataclass(frozen=True, slots=True)
class Emitter:
    """Writes a graph in one output format (``ir11`` is the default)."""

    format: str
    emit: Callable[[Graph, Path, EmitContext], list[Path]]
    suffix: str = ".xml"
    description: str = ""

    def __post_init__(self) -> None:
        if not self.format:
            raise PluginError("an Emitter needs a format name")


#: A plugin command's name: what follows ``irconv`` on the command line.
_COMMAND_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


@dataclass(frozen=True, slots=True)
class Command:
    """A subcommand a plugin adds to the ``irconv`` command line (``irconv mo ...``).

    ``run(argv, irconv)`` gets the arguments after the command's name and parses them itself;
    ``irconv`` runs an ``irconv`` command line in this process (a command translating its
    flags into ``convert``'s calls ``irconv(["convert", ...])``), returning its exit code.
    ``run`` returns the exit code; an ``IrconvError`` it raises is printed as one line.
    """

    name: str
    run: Callable[[list[str], Callable[[list[str]], int]], int]
    help: str = ""

    def __post_init__(self) -> None:
        if not _COMMAND_NAME.match(self.name):
            raise PluginError(f"a Command needs a lowercase name (letters, digits, '-'), got {self.name!r}")


@dataclass(frozen=True, slots=True)
class Verifier:
    """Runs a model in its source framework's own runtime, for ``irconv convert --verify``.

    ``run_reference(path, inputs, options)`` loads the model file the user converted (with
    the same conversion ``options``: weights file, plugin options) and returns its outputs
    by tensor name, computed by the framework's runtime on ``inputs`` (tensor name -> NumPy
    array). The core runs the IR in OpenVINO on the same inputs and compares.
    ``requires`` names the modules the function imports (checked before it is called, so a
    missing runtime is reported as "pip install <install>" rather than an ImportError);
    import them inside ``run_reference``, never at module level.
    """

    framework: str
    run_reference: Callable[[Path, Mapping[str, Any], Any], dict[str, Any]]
    requires: tuple[str, ...] = ()
    install: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        if not self.framework:
            raise PluginError("a Verifier needs a framework name")

    def missing(self) -> list[str]:
        """The required modules that cannot be imported here."""
        import importlib.util

        return [name for name in self.requires if importlib.util.find_spec(name) is None]


@dataclass(frozen=True, slots=True)
class Renderer:
    """Draws a graph for ``irconv show``: an interactive HTML page, an SVG, ...

    ``render(document, path)`` writes ``path`` from a plain, JSON-serialisable description
    of one or two graphs (the schema is documented in ``irconv/cli/graphdoc.py``: nodes with
    type, version, attributes, output shapes and types; edges; with ``--diff`` the source
    graph and what each transform did). ``available()`` returns None when the renderer can
    run here, or a message saying what to install (e.g. Graphviz's ``dot``).
    """

    format: str
    render: Callable[[Mapping[str, Any], Path], None]
    suffix: str = ""
    available: Callable[[], str | None] | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if not self.format:
            raise PluginError("a Renderer needs a format name")

    def unavailable_reason(self) -> str | None:
        return None if self.available is None else self.available()


@dataclass(frozen=True, slots=True)
class RuntimeExtension:
    """How OpenVINO runs the ops of one custom opset: ``add_to(core)`` adds the extension to
    an ``openvino.Core`` (imported inside ``add_to``; the converter never needs it)."""

    opset: str
    add_to: Callable[[Any], None]
    description: str = ""

    def __post_init__(self) -> None:
        if not self.opset or self.opset.startswith("opset"):
            raise PluginError(f"a RuntimeExtension needs a custom opset name (got {self.opset!r})")


@dataclass(frozen=True, slots=True)
class InstallHint:
    """Which distribution provides a capability that may not be installed, for error messages.

    ``frameworks`` are loader framework names, ``suffixes`` model file suffixes (lower case,
    with the dot), ``ops`` are ``(framework, domain, op)`` keys of extractors. The core ships
    hints for the irconv plugins it knows (``BUILTIN_HINTS``); a plugin adds its own through
    ``declare_hints`` (a contrib collection naming its optional parts, for example).
    """

    distribution: str
    frameworks: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    ops: tuple[tuple[str, str, str], ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if not self.distribution:
            raise PluginError("an InstallHint needs a distribution name")
        for key in self.ops:
            if len(key) != 3:
                raise PluginError(f"{self.distribution}: op hint {key!r} must be (framework, domain, op)")


#: The irconv plugins the core knows about, for "what to install" messages.
BUILTIN_HINTS: tuple[InstallHint, ...] = (
    InstallHint("irconv-onnx", frameworks=("onnx",), suffixes=(".onnx",), description="ONNX front end"),
    InstallHint(
        "irconv-tf",
        frameworks=("tf",),
        suffixes=(".pb", ".pbtxt", ".keras", ".h5", ".meta"),
        description="TensorFlow front end",
    ),
    InstallHint(
        "irconv-caffe", frameworks=("caffe",), suffixes=(".prototxt", ".caffemodel"), description="Caffe front end"
    ),
    InstallHint("irconv-ir", frameworks=("ir",), suffixes=(".xml",), description="OpenVINO IR reader and emitter"),
    InstallHint(
        "irconv-mxnet", frameworks=("mxnet",), suffixes=(".params", ".json"), description="MXNet front end"
    ),
    InstallHint("irconv-tflite", frameworks=("tflite",), suffixes=(".tflite",), description="TensorFlow Lite front end"),
    InstallHint("irconv-viz", description="graph pictures for `irconv show` (html, svg)"),
)
