"""The plugin contract: every hook irconv calls, in one module.

Each hook is a *registration* hook: the core calls it once per plugin at start-up and
builds its own tables from the records returned. A hook never receives a node; the core
dispatches per node by table lookup. Hooks may gain arguments in later versions (pluggy
lets an implementation take fewer), never lose them.
"""

from __future__ import annotations

from collections.abc import Sequence

import pluggy

from irconv.plugins.records import Emitter, Extractor, Loader, Transform

PROJECT = "irconv"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def load_model() -> Sequence[Loader]:
    """Declare the model loaders this plugin provides.

    :return: loaders; a file is read by the first loader whose ``sniff`` (or suffix)
        accepts it, or by the one named with ``--framework``. Two loaders of the same
        framework name from different plugins are a conflict.
    All results are collected (no first-result-wins). Since 0.1.
    """
    raise NotImplementedError


@hookspec
def extract_op() -> Sequence[Extractor]:
    """Declare extractors, each for one (framework, domain, op) and an opset range.

    :return: extractors; overlapping opset ranges for the same key from two plugins
        are a conflict naming both distributions.
    All results are collected. Since 0.1.
    """
    raise NotImplementedError


@hookspec
def front_transform() -> Sequence[Transform]:
    """Declare front-phase transforms: framework ops into opset forms, before shapes.

    :return: transform instances; ids are unique across all plugins and phases.
    All results are collected; the core orders them by ``run_after``/``run_before``,
    ties broken by id. Since 0.1.
    """
    raise NotImplementedError


@hookspec
def middle_transform() -> Sequence[Transform]:
    """Declare middle-phase transforms: layout, fusing, shape-dependent rewrites.

    :return: transform instances; nodes they touch are re-inferred after each one.
    All results are collected and ordered as for ``front_transform``. Since 0.1.
    """
    raise NotImplementedError


@hookspec
def back_transform() -> Sequence[Transform]:
    """Declare back-phase transforms: the exact opset forms the output needs, clean-up.

    :return: transform instances, ordered as for ``front_transform``. Since 0.1.
    """
    raise NotImplementedError


@hookspec
def emit() -> Sequence[Emitter]:
    """Declare output writers, one per format.

    :return: emitters; two plugins declaring the same format are a conflict.
    All results are collected. Since 0.1.
    """
    raise NotImplementedError


HOOK_NAMES = ("load_model", "extract_op", "front_transform", "middle_transform", "back_transform", "emit")
