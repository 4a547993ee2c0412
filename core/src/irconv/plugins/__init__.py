"""The plugin host: finds the installed plugins (``manager``), calls their hooks and builds
the tables a conversion dispatches on (``registry``), checks their requirements
(``compat``) and caches what ``irconv plugins`` shows (``summary``).

The contract plugins program against is ``irconv.contract``; its names are still importable
from here (``from irconv.plugins import Extractor, hookimpl``, as plugins written for 0.2
do), on first access, so that such an import loads none of the host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irconv._lazy import lazy_getattr

if TYPE_CHECKING:
    from irconv.contract import (
        NEWEST,
        Command,
        DeclaredOp,
        Emitter,
        Extractor,
        InstallHint,
        Loader,
        OpTable,
        Option,
        OptionTable,
        Phase,
        Renderer,
        RuntimeExtension,
        Transform,
        Verifier,
        hookimpl,
        opsets,
    )
    from irconv.plugins.manager import ENTRY_POINT_GROUP, PluginHost, PluginInfo
    from irconv.plugins.registry import Provided, Registry

_HOST: dict[str, str] = {
    "ENTRY_POINT_GROUP": "irconv.plugins.manager",
    "PluginHost": "irconv.plugins.manager",
    "PluginInfo": "irconv.plugins.manager",
    "Provided": "irconv.plugins.registry",
    "Registry": "irconv.plugins.registry",
}
_CONTRACT = (
    "NEWEST", "Command", "DeclaredOp", "Emitter", "Extractor", "InstallHint", "Loader", "OpTable", "Option",
    "OptionTable", "Phase", "Renderer", "RuntimeExtension", "Transform", "Verifier", "hookimpl", "opsets",
)

__all__ = [
    "Command",
    "DeclaredOp",
    "ENTRY_POINT_GROUP",
    "Emitter",
    "Extractor",
    "InstallHint",
    "Loader",
    "NEWEST",
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


__getattr__ = lazy_getattr(__name__, {**_HOST, **dict.fromkeys(_CONTRACT, "irconv.contract")})


def __dir__() -> list[str]:
    return __all__
