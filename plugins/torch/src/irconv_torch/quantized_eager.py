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


def _grid(dtype: torch.dtype) -> tuple[int, int]:
    info = torch.iinfo(dtype)
    return info.min, info.max


class QuantizeAsFloat(nn.Module):
    """x rounded to the grid ``scale * (q - zero_point)``, ``q`` in the dtype's range."""

    def __init__(self, scale: float, zero_point: int, dtype: torch.dtype) -> None:
        super().__init__()
        self.scale, self.zero_point = float(scale), int(zero_point)
        self.low, self.high = _grid(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = torch.clamp(torch.round(x / self.scale) + self.zero_point, self.low, self.high)
        return (q - self.zero_point) * self.scale


class ProductAsFloat(nn.Module):
    """A quantized convolution or linear layer: the float product on dequantized weights, the
    fused ReLU if any, then the output's quantization."""

    def __init__(self, product: nn.Module, relu: bool, output: QuantizeAsFloat) -> None:
        super().__init__()
        self.product, self.relu, self.output = product, relu, output

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.product(x)
        return self.output(F.relu(y) if self.relu else y)


class FunctionalAsFloat(nn.Module):
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
    if isinstance(module, (nnq.Linear, nnq.Conv1d, nnq.Conv2d, nnq.Conv3d)) and not isinstance(
            module, (nniq.ConvAdd2d, nniq.ConvAddReLU2d)):
        product = _float_product(module)
        if product is None:
            return None
        relu = isinstance(module, (nniq.ConvReLU1d, nniq.ConvReLU2d, nniq.ConvReLU3d, nniq.LinearReLU))
        return ProductAsFloat(product, relu, QuantizeAsFloat(module.scale, module.zero_point, torch.quint8))
    return None


def has_eager_quantized(module: nn.Module) -> bool:
    return any(type(sub).__module__.startswith(("torch.ao.nn.quantized", "torch.ao.nn.intrinsic.quantized"))
               and not type(sub).__module__.startswith("torch.ao.nn.quantized.reference")
               for sub in module.modules())


def as_float_model(module: nn.Module) -> tuple[nn.Module, list[str]]:
    """A copy of ``module`` with each eager quantized module replaced by its float form, and the
    names of those replaced (``module`` itself is not changed)."""
    copied = copy.deepcopy(module)
    replaced: list[str] = []
    for name, sub in list(copied.named_modules()):
        if not name:
            continue
        replacement = _as_float(sub)
        if replacement is None:
            continue
        parent_name, _, child = name.rpartition(".")
        parent = copied.get_submodule(parent_name) if parent_name else copied
        setattr(parent, child, replacement)
        replaced.append(name)
    return copied, replaced

