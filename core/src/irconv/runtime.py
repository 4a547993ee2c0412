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


def runtime_reason(exc: BaseException) -> str:
    """OpenVINO's own reason for an exception: the last line of its message that is not one
    of the source locations each re-throwing frame adds (``Exception from src/...``)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not line.startswith("Exception from")]
    return lines[-1] if lines else type(exc).__name__


def rounds_to_bf16() -> bool:
    """Whether OpenVINO's CPU plugin on this machine rounds values it converts to bf16.

    On a CPU without bf16 arithmetic (its ``OPTIMIZATION_CAPABILITIES`` lack ``BF16``) the
    plugin runs bf16 tensors as f32: a Convert of computed values to bf16 and back changes
    nothing, so a model that rounds an intermediate value to bf16 computes it unrounded
    there (constants are rounded when the IR is written, on any machine). Measured on a
    value bf16 cannot hold."""
    import numpy as np
    import openvino as ov

    value = ov.opset13.parameter([1], ov.Type.f32)
    round_trip = ov.opset13.convert(ov.opset13.convert(value, "bf16"), "f32")
    compiled = ov.Core().compile_model(ov.Model([round_trip], [value]), "CPU", dict(COMPARISON_PRECISION))
    unrounded = np.array([1 + 2.0**-12], np.float32)
    return bool(compiled([unrounded])[0][0] != unrounded[0])
