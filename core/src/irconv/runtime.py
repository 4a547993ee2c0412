"""An OpenVINO ``Core`` that can run every IR irconv writes, custom-opset ops included, and
the one way an IR is compiled when its outputs are compared with a reference.

``openvino`` is imported here only, when a caller asks for a core: it is a test and
``--verify`` dependency, never one of converting.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irconv.plugins.registry import Registry

#: What a comparison pins. The CPU plugin's defaults depend on the machine: on CPUs with
#: AVX512-BF16 or AMX it computes in bf16 and keeps a stateful model's KV cache in u8, which
#: differ from an f32 reference by far more than any conversion error a test looks for. With
#: compressed (u8/u4) weights it also quantizes activations on the fly by default, which moves
#: outputs away from the exact product of the dequantized weights.
COMPARISON_PRECISION: Mapping[str, str] = MappingProxyType(
    {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
)

#: Properties that would undo the pinning if a caller's ``config`` set them.
_PRECISION_PROPERTIES = frozenset(
    {*COMPARISON_PRECISION, "KEY_CACHE_PRECISION", "VALUE_CACHE_PRECISION", "EXECUTION_MODE_HINT"}
)


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


def compile_for_comparison(
    model: Any,
    *,
    core: Any = None,
    registry: Registry | None = None,
    config: Mapping[str, Any] | None = None,
    device: str = "CPU",
) -> Any:
    """Compile ``model`` (an ``openvino.Model``, or the path of an IR or of any model file
    ``core`` reads) whose outputs are to be compared with a reference, at f32 precision
    whatever the device's default (see ``COMPARISON_PRECISION``).

    ``core`` is the caller's ``openvino.Core`` (one with its own extensions added), else
    ``openvino_core(registry)``. ``config`` adds device properties that leave the numbers
    alone (``PERFORMANCE_HINT``, ``INFERENCE_NUM_THREADS``, ...); one that sets a precision is
    refused, so a comparison cannot quietly run at the device's default precision.
    """
    overriding = sorted(_PRECISION_PROPERTIES.intersection(config or {}))
    if overriding:
        raise ValueError(f"compile_for_comparison pins the precision; config may not set {', '.join(overriding)}")
    if core is None:
        core = openvino_core(registry)
    if isinstance(model, (str, os.PathLike)):
        model = core.read_model(os.fspath(model))
    return core.compile_model(model, device, {**(config or {}), **COMPARISON_PRECISION})
