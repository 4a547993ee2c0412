"""The plugin contract: every hook irconv calls, in one module. The docstrings are the spec.

Every hook is a *registration* hook: the core calls it once per plugin when the registry is
built and keeps the records returned; a hook never receives a node, the core dispatches per
node by table lookup. Rules common to all hooks:

- **Collection.** Every plugin's result is collected; no first-result-wins.
- **Isolation.** A hook that raises, or returns anything but the documented records, marks
  its plugin *failed* with the reason (``irconv plugins`` shows it) and leaves out every
  record of that plugin; conversion goes on with the others. ``--strict-plugins`` (or
  ``PluginHost(strict=True)``) makes it fatal, naming the plugin and its distribution.
- **Conflicts.** Two plugins declaring the same key (see each hook) is an error naming both
  distributions, never a silent override.
- **Order.** Plugins are called in entry-point-name order, but nothing depends on it: the
  core decides what wins and orders transforms itself.
- **Evolution.** Hooks only gain arguments; an implementation names the ones it wants
  (pluggy passes only those). Hooks are never removed without a deprecation release.
- **Cost.** Hooks run at start-up or on first need: import heavy modules (a framework, a
  runtime) inside the functions the records point to, not in the hook; a hook imports
  only the modules its records need (``extract_op`` only the asked framework's).

Declaration hooks (``declare_ops``, ``declare_options``) are called first, for every plugin,
because the others may depend on them (``extract_op`` receives the op table). Each other
hook is called when the core first needs its records, not at start-up: a conversion never
calls ``verify_model`` without ``--verify`` nor ``render_graph``, and calls ``extract_op``
for its model's framework only; ``irconv plugins`` and ``--strict-plugins`` call them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from irconv.contract.optable import OpTable
    from irconv.contract.option import Option
    from irconv.contract.records import (
        Command,
        Emitter,
        Extractor,
        InstallHint,
        Loader,
        Renderer,
        RuntimeExtension,
        Transform,
        Verifier,
    )
    from irconv.ops import Op

PROJECT = "irconv"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def declare_ops() -> Sequence[type[Op]]:
    """Declare operation classes: the ops this plugin's extractors and transforms produce.

    An ``Op`` subclass states its IR ``type``, ``version`` (the opset where that version of
    the op appeared) or ``custom_opset`` (an opset name of its own), typed attributes,
    ``traits``, ``infer`` and optionally ``evaluate``. The OpenVINO opsets are declared by
    the ``irconv-opset`` plugin this way; a third party adds an op the same way.

    :return: op classes. A version is current from its own opset until the opset of the
        next declared version of the same type; ``irconv ops --opset`` and the IR reader
        are built from this table.
    Conflict: the same (type, version) in the same opset namespace from two plugins.
    Since 0.2.
    """
    raise NotImplementedError


@hookspec
def declare_options() -> Sequence[Option[object]]:
    """Declare the conversion options this plugin reads, typed and documented.

    Each ``Option`` has a namespaced name (``tf.signature``), a type, a default, help text
    and optional choices and validation. ``irconv convert`` gets a flag for each (listed
    under the plugin in ``--help``), ``--option name=value`` accepts exactly the declared
    names, and ``convert_model`` accepts each option's keyword. Plugins read values with
    ``ctx.options.get(OPTION)``.

    :return: ``Option`` records.
    Conflict: the same name, CLI flag or keyword from two plugins, or a flag the core
    itself uses. Since 0.2.
    """
    raise NotImplementedError


@hookspec
def load_model() -> Sequence[Loader]:
    """Declare the model loaders this plugin provides.

    A ``Loader`` names its framework, the file suffixes it expects, an optional ``sniff``
    that looks at a file's first bytes (or a directory's content), and
    ``load(path, ctx: LoadContext) -> Graph``. The graph holds ``Parameter``/``Result``
    nodes and one ``SourceOp`` per framework node, with a ``SourceAttributes`` adapter the
    extractors read through ``ctx.attr``.

    :return: loaders; a file is read by the one named with ``--framework``, or else by the
        first (in framework-name order) whose ``sniff`` (or suffix) accepts it.
    Conflict: two loaders for the same framework name. Since 0.1; ``load`` receives a
    ``LoadContext`` (options, registry, notes) since 0.2.
    """
    raise NotImplementedError


@hookspec
def extract_op(ops: OpTable, framework: str | None) -> Sequence[Extractor]:
    """Declare extractors, each for one (framework, domain, op type) and an opset range.

    ``extract(node, ctx: ExtractContext)`` returns an ``Op`` (the node takes it, keeping its
    connections) or the output ports of a small sub-graph it built with ``ctx.op``/``ctx.add``.
    Extraction runs producers first, and the core infers each node right after extraction,
    so ``ctx.input_shape(i)``, ``ctx.input_type(i)`` and ``ctx.input_value(i)`` are known.

    :param ops: the op table built from every plugin's ``declare_ops`` (for plugins, such as
        an IR reader, whose extractors follow the declared ops).
    :param framework: the framework whose extractors the core needs (a conversion asks
        only for its model's, e.g. ``"tf"``), or None for every framework (``irconv ops``,
        ``irconv plugins``). A plugin serving several frameworks returns ``[]`` for the
        others *before* importing their extractor modules; records of other frameworks
        are ignored. The hook is called at most once per framework. An implementation that
        does not name ``framework`` (written before 0.4) is called once, on first need,
        and its records serve every framework.
    :return: extractors. Every unsupported op of a model is reported at once, before
        extraction starts.
    Conflict: overlapping opset ranges for the same key from two plugins (found when that
    framework's table is built). Since 0.1; ``ops`` since 0.2; ``framework`` since 0.4.
    """
    raise NotImplementedError


@hookspec
def front_transform() -> Sequence[Transform]:
    """Declare front-phase transforms: framework leftovers into opset forms, before inference.

    :return: ``Transform`` instances. Their ``apply(graph, ctx) -> bool`` says whether the
        graph changed; ``fixed_point`` transforms are run again until it returns False.
    Order: a topological sort of ``run_after``/``run_before`` ids within the phase, ties
    broken by id; ids of transforms that are not installed are ignored; a cycle is an error
    naming its members. Conflict: an id used twice, in any phase. Since 0.1.
    """
    raise NotImplementedError


@hookspec
def middle_transform() -> Sequence[Transform]:
    """Declare middle-phase transforms: layout, fusing, shape-dependent rewrites.

    Tensor facts (shapes, types, constant values) are current when a middle transform
    starts, and stay current through edits made with the ``Rewriter``; after a transform
    that reports a change, the core re-infers whatever it marked dirty.

    :return: ``Transform`` instances, ordered and checked as for ``front_transform``.
    Since 0.1.
    """
    raise NotImplementedError


@hookspec
def back_transform() -> Sequence[Transform]:
    """Declare back-phase transforms: the exact opset forms the output needs, final clean-up.

    :return: ``Transform`` instances, ordered and checked as for ``front_transform``.
    Since 0.1.
    """
    raise NotImplementedError


@hookspec
def emit() -> Sequence[Emitter]:
    """Declare output writers, one per format (``ir11`` is the default).

    ``emit(graph, path, ctx: EmitContext)`` opens files with ``ctx.open``, which writes under
    temporary names renamed only when the whole emit succeeded.

    :return: ``Emitter`` records.
    Conflict: two emitters for the same format. Since 0.1.
    """
    raise NotImplementedError


@hookspec
def verify_model() -> Sequence[Verifier]:
    """Declare reference runners: the source framework's own runtime, for ``--verify``.

    A ``Verifier`` names its framework (the loader's), the modules it needs (``requires``,
    e.g. ``("onnxruntime",)``) and the distribution to install for them, and
    ``run_reference(path, inputs, options) -> {tensor name: array}``. ``irconv convert
    --verify`` runs it and the emitted IR (in OpenVINO) on the same seeded inputs and
    compares every output. Nothing is needed at install time: when a required module is
    missing the core says what to install and the verifier is never called.

    :return: ``Verifier`` records.
    Conflict: two verifiers for the same framework. Since 0.3.
    """
    raise NotImplementedError


@hookspec
def render_graph() -> Sequence[Renderer]:
    """Declare graph renderers for ``irconv show``, one per picture format (``html``, ``svg``).

    ``render(document, path)`` writes a picture of the JSON-serialisable graph document the
    core builds (nodes, shapes, types, attributes, edges; with ``--diff`` the source graph
    and the per-transform node counts too). ``available()`` returns None when the renderer
    can run, else what to install (a renderer that needs an external tool such as Graphviz
    says so instead of failing).

    :return: ``Renderer`` records; ``irconv show --format F`` picks the one for ``F``.
    Conflict: two renderers for the same format. Since 0.3.
    """
    raise NotImplementedError


@hookspec
def declare_hints() -> Sequence[InstallHint]:
    """Declare which distribution provides a framework, file suffix or op, when not installed.

    Used only in error messages: "no installed loader recognises model.pb ... install
    irconv-tf" and the unsupported-op report name the distribution to install. The core
    ships hints for the irconv plugins it knows; a plugin adds its own (a contrib
    collection naming its optional parts, say).

    :return: ``InstallHint`` records. No conflicts: hints are merged, the core's first,
        then plugins' in plugin-name order; the first hint naming a key is used.
    Since 0.3.
    """
    raise NotImplementedError


@hookspec
def runtime_extensions() -> Sequence[RuntimeExtension]:
    """Declare how OpenVINO runs this plugin's custom-opset ops, for every place irconv
    runs an IR: ``--verify``, ``irconv.testing.runtime`` (``run_ir``, ``compile_ir``) and
    ``irconv.to_openvino``.

    A ``RuntimeExtension`` names the custom opset it implements and ``add_to(core)``, which
    adds the extension to an ``openvino.Core`` (``core.add_extension(...)`` with a Python
    ``OpExtension`` or a shared library's path). Import ``openvino`` inside ``add_to``, never
    in the hook: converting does not need the runtime.

    :return: ``RuntimeExtension`` records.
    Conflict: two extensions for the same custom opset. Since 0.2.
    """
    raise NotImplementedError


@hookspec
def cli_command() -> Sequence[Command]:
    """Add subcommands to the ``irconv`` command line (``irconv mo``: the Model Optimizer's
    flags, from the irconv-mo distribution).

    The command line asks only when its first argument is not one of its own commands, so no
    other command pays for it; a plugin's command cannot replace a built-in one (the built-in
    is run). ``irconv plugins`` counts each plugin's commands.

    :return: ``Command`` records (``name``, ``run(argv, irconv)``, ``help``).
    Conflict: two commands with the same name. Since 0.3.
    """
    raise NotImplementedError


DECLARATION_HOOK_NAMES = ("declare_ops", "declare_options")
HOOK_NAMES = (
    *DECLARATION_HOOK_NAMES,
    "load_model",
    "extract_op",
    "front_transform",
    "middle_transform",
    "back_transform",
    "emit",
    "verify_model",
    "render_graph",
    "declare_hints",
    "runtime_extensions",
    "cli_command",
)
