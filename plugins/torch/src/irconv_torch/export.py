"""From a ``torch.nn.Module`` to the program irconv reads: ``torch.export`` and the
decomposition to core ATen that keeps the ops OpenVINO has a better operation for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irconv.errors import UserError

#: ATen ops kept whole instead of decomposed to core ATen: OpenVINO has one operation for
#: each (or an extractor makes a better sub-graph than the decomposition does).
KEPT_OPS = (
    "scaled_dot_product_attention.default",
    "layer_norm.default", "group_norm.default", "batch_norm.default", "instance_norm.default",
    "conv1d.default", "conv2d.default", "conv3d.default", "conv1d.padding", "conv2d.padding", "conv3d.padding",
    "conv_transpose1d.default", "conv_transpose2d.input", "conv_transpose3d.input", "conv_transpose2d.default",
    "conv_transpose3d.default", "conv_transpose1d.input",
    "linear.default", "matmul.default", "embedding.default",
    "gelu.default", "silu.default", "hardswish.default", "hardsigmoid.default", "mish.default",
    "softplus.default", "elu.default", "leaky_relu.default", "hardtanh.default", "relu6.default",
    "upsample_nearest1d.vec", "upsample_nearest2d.vec", "upsample_nearest3d.vec",
    "upsample_bilinear2d.vec", "upsample_bicubic2d.vec", "upsample_linear1d.vec", "upsample_trilinear3d.vec",
    "upsample_nearest2d.default", "upsample_bilinear2d.default",
    "adaptive_avg_pool1d.default", "adaptive_avg_pool2d.default", "adaptive_avg_pool3d.default",
    "pixel_shuffle.default", "lstm.input", "gru.input", "rnn_tanh.input", "rnn_relu.input",
    "einsum.default", "flatten.using_ints",
)


def kept_decompositions() -> Any:
    """``torch.export.default_decompositions()`` without the ops in ``KEPT_OPS``."""
    import torch

    table = torch.export.default_decompositions()
    for name in KEPT_OPS:
        packet, _, overload = name.rpartition(".")
        op = getattr(getattr(torch.ops.aten, packet, None), overload, None)
        if op is not None and op in table:
            del table[op]
    return table


def to_core_aten(program: Any) -> Any:
    """``program`` decomposed to core ATen, with the ops of ``KEPT_OPS`` whole."""
    return program.run_decompositions(kept_decompositions())


def export_module(module: Any, example_input: Any, dynamic_shapes: Any = None) -> Any:
    """``torch.export.export`` of ``module`` on ``example_input`` (a tensor, a tuple of
    positional inputs, or a dict of keyword inputs): non-strict first (it traces Python as
    it runs), strict (TorchDynamo) when that fails."""
    import torch

    if example_input is None:
        raise UserError("converting a torch.nn.Module needs example_input= (a tensor, a tuple of "
                        "tensors or a dict of keyword tensors) to trace it with torch.export")
    args, kwargs = _arguments(example_input)
    module = module.eval()
    try:
        return torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes, strict=False)
    except Exception as non_strict:
        try:
            return torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes, strict=True)
        except Exception:
            raise UserError(f"torch.export could not trace {type(module).__name__}: "
                            f"{type(non_strict).__name__}: {_first_line(non_strict)}") from non_strict


def _arguments(example_input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if isinstance(example_input, Mapping):
        return (), dict(example_input)
    if isinstance(example_input, (tuple, list)):
        return tuple(example_input), {}
    return (example_input,), {}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
