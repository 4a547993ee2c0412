"""An OpenVINO ``Core`` that can run every IR irconv writes, custom-opset ops included.

``openvino`` is imported here only, when a caller asks for a core: it is a test and
``--verify`` dependency, never one of converting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irconv.plugins.registry import Registry


def openvino_core(registry: Registry | None = None) -> Any:
    """``openvino.Core()`` with every installed plugin's runtime extension added (see the
    ``runtime_extensions`` hook); ``registry`` defaults to the installed plugins'."""
    import openvino as ov

    if registry is None:
        from irconv.plugins.manager import PluginHost

        registry = PluginHost().registry()
    core = ov.Core()
    for provided in registry.runtime_extensions.values():
        provided.item.add_to(core)
    return core


def runtime_reason(exc: BaseException) -> str:
    """OpenVINO's own reason for an exception: the last line of its message that is not one
    of the source locations each re-throwing frame adds (``Exception from src/...``)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not line.startswith("Exception from")]
    return lines[-1] if lines else type(exc).__name__
