"""Eager-mode quantized modules (``torch.ao.quantization.convert``) as float modules that compute
the same values: ``torch.export`` cannot trace their packed parameters (TorchScript objects).

Each quantized module becomes its float operation on dequantized weights, followed by the
quantization of its output to the module's scale and zero point, written as float arithmetic
(``clamp(round(y / s) + z, lo, hi) - z) * s``, round half to even as torch's quantize), so the
values between modules are the quantized model's values, held in float. ``Quantize`` is that
rounding of the input, ``DeQuantize`` the identity. The convolution and matrix products run in
float on integer-valued operands of the grid: up to the float rounding of long sums, the same
accumulation the integer kernels make. A module outside this table that still holds packed
parameters is left as it is (and refused by the caller)."""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch import nn
from torch.ao.nn import quantized as nnq
from torch.ao.nn.intrinsic import quantized as nniq
from torch.nn import functional as F  # noqa: N812

#: A quantization grid: scale, zero point, integer dtype.
Grid = tuple[float, int, torch.dtype]


def _integer_range(dtype: torch.dtype) -> tuple[int, int]:
    info = torch.iinfo(dtype)
    return info.min, info.max


class QuantizeAsFloat(nn.Module):  # type: ignore[misc]  # torch is untyped to mypy (pyproject.toml)
    """x rounded to the grid ``scale * (q - zero_point)``, ``q`` in the dtype's range."""

    def __init__(self, scale: float, zero_point: int, dtype: torch.dtype) -> None:
        super().__init__()
        self.scale, self.zero_point = float(scale), int(zero_point)
        self.low, self.high = _integer_range(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = torch.clamp(torch.round(x / self.scale) + self.zero_point, self.low, self.high)
        return (q - self.zero_point) * self.scale


class FloatThenQuantize(nn.Module):  # type: ignore[misc]  # torch is untyped to mypy (pyproject.toml)
    """A quantized layer as its float operation (a convolution or linear layer on dequantized
    weights, an activation, a normalisation), the fused ReLU if any, then the output's
    quantization."""

    def __init__(self, product: nn.Module, relu: bool, output: QuantizeAsFloat) -> None:
        super().__init__()
        self.product, self.relu, self.output = product, relu, output

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.product(x)
        return self.output(F.relu(y) if self.relu else y)


class FunctionalAsFloat(nn.Module):  # type: ignore[misc]  # torch is untyped to mypy (pyproject.toml)
    """``QFunctional``'s operations in float, each result quantized as the module's."""

    def __init__(self, output: QuantizeAsFloat) -> None:
        super().__init__()
        self.output = output

    def add(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.output(x + y)

    def add_relu(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.output(F.relu(x + y))

    def mul(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.output(x * y)

    def cat(self, xs: list[torch.Tensor], dim: int = 0) -> torch.Tensor:
        return self.output(torch.cat(xs, dim=dim))


def _float_product(module: nn.Module) -> nn.Module | None:
    """The float layer of a quantized convolution or linear layer, on its dequantized weights."""
    weight = module.weight().dequantize()
    bias = module.bias()
    if isinstance(module, nnq.Linear):
        layer: nn.Module = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    elif isinstance(module, (nnq.Conv1d, nnq.Conv2d, nnq.Conv3d)):
        kind = {nnq.Conv1d: nn.Conv1d, nnq.Conv2d: nn.Conv2d, nnq.Conv3d: nn.Conv3d}
        cls = next(float_cls for q_cls, float_cls in kind.items() if isinstance(module, q_cls))
        layer = cls(module.in_channels, module.out_channels, module.kernel_size, stride=module.stride,
                    padding=module.padding, dilation=module.dilation, groups=module.groups,
                    bias=bias is not None, padding_mode=module.padding_mode)
    else:
        return None
    with torch.no_grad():
        layer.weight.copy_(weight)
        if bias is not None:
            layer.bias.copy_(bias.detach())
    return layer.eval()


def _float_elementwise(module: nn.Module) -> tuple[nn.Module, float, int] | None:
    """A quantized activation or normalisation's float operation and its output's scale and
    zero point."""
    if isinstance(module, nnq.Hardswish):
        return nn.Hardswish(), float(module.scale), int(module.zero_point)
    if isinstance(module, nnq.LeakyReLU):
        return nn.LeakyReLU(module.negative_slope), float(module.scale), int(module.zero_point)
    if isinstance(module, nnq.ELU):
        return nn.ELU(module.alpha), float(module.scale), int(module.zero_point)
    if isinstance(module, nnq.Sigmoid):
        return nn.Sigmoid(), float(module.output_scale), int(module.output_zero_point)
    if isinstance(module, (nnq.BatchNorm2d, nnq.BatchNorm3d)) and not isinstance(module, (nniq.BNReLU2d,
                                                                                          nniq.BNReLU3d)):
        kind = nn.BatchNorm2d if isinstance(module, nnq.BatchNorm2d) else nn.BatchNorm3d
        norm = kind(module.num_features, eps=module.eps)
        norm.load_state_dict({k: v for k, v in module.state_dict().items() if k in norm.state_dict()})
        return norm.eval(), float(module.scale), int(module.zero_point)
    return None


def _as_float(module: nn.Module) -> nn.Module | None:
    """The float module computing ``module``'s values, or None when it has no such form here
    (dynamically quantized modules compute their inputs' scales at run time: none)."""
    if type(module).__module__.startswith("torch.ao.nn.quantized.dynamic"):
        return None
    if isinstance(module, nnq.Quantize):
        return QuantizeAsFloat(module.scale, module.zero_point, module.dtype)
    if isinstance(module, nnq.DeQuantize):
        return nn.Identity()
    if isinstance(module, nnq.QFunctional):
        return FunctionalAsFloat(QuantizeAsFloat(module.scale, module.zero_point, torch.quint8))
    if isinstance(module, nnq.Dropout):
        return nn.Identity()
    if isinstance(module, nnq.ReLU6):  # the output keeps the input's grid
        return nn.ReLU6()
    elementwise = _float_elementwise(module)
    if elementwise is not None:
        operation, scale, zero_point = elementwise
        return FloatThenQuantize(operation, False, QuantizeAsFloat(scale, zero_point, torch.quint8))
    if isinstance(module, (nnq.Linear, nnq.Conv1d, nnq.Conv2d, nnq.Conv3d)) and not isinstance(
            module, (nniq.ConvAdd2d, nniq.ConvAddReLU2d)):
        product = _float_product(module)
        if product is None:
            return None
        relu = isinstance(module, (nniq.ConvReLU1d, nniq.ConvReLU2d, nniq.ConvReLU3d, nniq.LinearReLU))
        return FloatThenQuantize(product, relu, QuantizeAsFloat(module.scale, module.zero_point, torch.quint8))
    return None


def _is_quantized_module(module: nn.Module) -> bool:
    kind = type(module).__module__
    return (kind.startswith(("torch.ao.nn.quantized", "torch.ao.nn.intrinsic.quantized"))
            and not kind.startswith("torch.ao.nn.quantized.reference"))


def has_eager_quantized(module: nn.Module) -> bool:
    return any(_is_quantized_module(sub) for sub in module.modules())


def as_float_model(module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[nn.Module, list[str]]:
    """A copy of ``module`` with each eager quantized module replaced by its float form, and the
    names of those replaced (``module`` itself is not changed).

    A float module applied to quantized tensors (a pooling, a sigmoid) gives a quantized tensor
    too, on a grid torch chooses: ``module`` runs once on ``args``/``kwargs`` to read each such
    grid, and the module's float form rounds its output to it. Functional calls on quantized
    tensors (``F.adaptive_avg_pool2d(x, 1)`` in a forward) are not modules: their results keep
    the float values, which can differ from torch's by one step of that grid (rounding them
    again before the next quantized module made OpenVINO's CPU plugin refuse the IR: "could not
    append an elementwise post-op")."""
    grids = _example_grids(module, args, kwargs)
    copied = copy.deepcopy(module)
    replaced: list[str] = []
    for name, sub in list(copied.named_modules()):
        if not name:
            continue
        replacement = _as_float(sub)
        if replacement is None and name in grids:
            replacement = FloatThenQuantize(sub, False, QuantizeAsFloat(*grids[name]))
        if replacement is None:
            continue
        parent_name, _, child = name.rpartition(".")
        parent = copied.get_submodule(parent_name) if parent_name else copied
        setattr(parent, child, replacement)
        replaced.append(name)
    return copied, replaced


def _example_grids(module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Grid]:
    """On the example: the grid (scale, zero point, dtype) of each leaf float module's
    quantized output, by module name."""
    outputs: dict[str, Grid] = {}
    hooks = []
    for name, sub in module.named_modules():
        if not name or list(sub.children()) or _is_quantized_module(sub) or _as_float(sub) is not None:
            continue

        def record_output(_: nn.Module, __: Any, output: Any, name: str = name) -> None:
            grid = _grid_of(output)
            if grid is not None:
                outputs[name] = grid

        hooks.append(sub.register_forward_hook(record_output))
    try:
        with torch.no_grad():
            module(*args, **kwargs)
    finally:
        for hook in hooks:
            hook.remove()
    return outputs


def _grid_of(value: Any) -> Grid | None:
    if isinstance(value, torch.Tensor) and value.is_quantized and value.qscheme() == torch.per_tensor_affine:
        return float(value.q_scale()), int(value.q_zero_point()), value.dtype
    return None

