"""--ratio: which 4-bit candidates stay int8, by a sensitivity score per layer.

Layers go to 4 bits least sensitive first until their weights reach ``ratio`` of the
candidates' (a layer that would overflow the share is skipped, a smaller one may still
fit); the rest stay int8.

- Data-free (NNCF's data-free criterion): a layer whose int8 error is small (the largest
  mean squared error of an output channel) is the one int8 keeps accurate, so it is the
  one that stays int8; layers int8 represents poorly lose less by going to 4 bits.
- With activation statistics: the output error 4 bits add to the layer, its
  activation-weighted squared error ``sum_c E[x_c**2] (w - w_q)**2`` at 4 bits minus at 8
  (the expected squared error of the layer's outputs per token, summed over them): the
  layers where 4 bits add the most output error stay int8. Like NNCF's scores, it is not
  divided by the layer's size: per weight, it favours the small attention projections,
  whose local output error overstates what reaches the model's output (measured on a
  trained decoder, one layer at a time: docs/llm.md).
"""

from __future__ import annotations

from irconv_transforms.weight_compression.quantize import Quantization


def data_free_sensitivity(eight_bit: Quantization) -> float:
    return -eight_bit.worst_row_error


def activation_sensitivity(four_bit: Quantization, eight_bit: Quantization) -> float:
    """From activation-weighted quantizations of one layer (``squared_error`` weighted)."""
    return four_bit.squared_error - eight_bit.squared_error


def four_bit_share(parameters: list[int], sensitivity: list[float], ratio: float) -> list[int]:
    """Indices of the layers put in 4 bits (in increasing sensitivity)."""
    budget = ratio * sum(parameters)
    chosen: list[int] = []
    held = 0
    for index in sorted(range(len(parameters)), key=lambda i: sensitivity[i]):
        if held + parameters[index] <= budget:
            chosen.append(index)
            held += parameters[index]
    return chosen
