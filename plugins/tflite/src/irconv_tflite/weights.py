"""int8 weights of quantized models, stored as int8 in the IR.

The loader gives quantized constants their real values (so every transform reads plain
float weights); the extractor of a weighted operator records the grid its weights lie
on (``WeightGrid``, by node id: extraction may rename the node). After the middle phase, ``tflite.int8_weights`` puts
the weights back on that grid: ``Const(i8) -> Convert(f32) [-> Subtract(zero point)] ->
Multiply(scale)``, the dequantization pattern OpenVINO's low-precision transformations
read as int8 weights. Weights a transform changed off the grid stay float.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import MetaKey


@dataclass(frozen=True, slots=True)
class WeightGrid:
    """``w = scale * (q - zero_point)``, ``q`` an int8 (``signed``) or uint8; ``scale`` and
    ``zero_point`` broadcast against the weights as the node reads them."""

    scale: np.ndarray
    zero_point: np.ndarray
    signed: bool

    @property
    def bounds(self) -> tuple[int, int]:
        return (-128, 127) if self.signed else (0, 255)

    def quantize(self, weights: np.ndarray) -> np.ndarray | None:
        """The integers behind ``weights``, or None when they are not on the grid."""
        low, high = self.bounds
        scale = np.where(self.scale == 0, np.float32(1), self.scale)
        # two temporaries the size of the weights, computed in place (a whole-array
        # expression and allclose would hold several at once, for every layer)
        q = weights / scale
        q += self.zero_point
        np.rint(q, out=q)
        if q.min(initial=low) < low or q.max(initial=high) > high:
            return None
        error = q - self.zero_point
        error *= scale
        error -= weights
        np.abs(error, out=error)
        if not np.all(error <= float(np.max(scale)) * 1e-3):  # NaN is never within
            return None
        return q.astype(np.int8 if self.signed else np.uint8)


QUANTIZED_WEIGHTS: MetaKey[dict[int, WeightGrid]] = MetaKey(
    "tflite.quantized_weights", dict, default=dict, doc="weighted node id -> the grid of its int8 weights"
)
