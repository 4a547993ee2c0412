"""The plugin contract (hookspecs and records) and the machinery that loads plugins."""

from irconv.plugins.hookspecs import hookimpl
from irconv.plugins.manager import ENTRY_POINT_GROUP, PluginHost, PluginInfo
from irconv.plugins.optable import DeclaredOp, OpTable
from irconv.plugins.option import Option, OptionTable
from irconv.plugins.records import (
    NEWEST,
    Emitter,
    Extractor,
    InstallHint,
    Loader,
    Phase,
    Renderer,
    RuntimeExtension,
    Transform,
    Verifier,
    opsets,
)
from irconv.plugins.registry import Provided, Registry

__all__ = [
    "ENTRY_POINT_GROUP",
    "NEWEST",
    "DeclaredOp",
    "Emitter",
    "Extractor",
    "InstallHint",
    "Loader",
    "OpTable",
    "Option",
    "OptionTable",
    "Phase",
    "PluginHost",
    "PluginInfo",
    "Provided",
    "Registry",
    "Renderer",
    "RuntimeExtension",
    "Transform",
    "Verifier",
    "hookimpl",
    "opsets",
]
