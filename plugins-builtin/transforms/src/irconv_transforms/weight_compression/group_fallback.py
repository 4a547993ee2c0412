"""The note naming the 4-bit layers whose input channels ``--group-size`` does not divide."""

from __future__ import annotations

import math
from collections.abc import Sequence

from irconv import TransformContext

from irconv_transforms.weight_compression.quantize import Quantization
from irconv_transforms.weight_compression.weight_sites import WeightSite

#: Layers named in the note; the rest are counted.
SHOWN = 3


def note_group_fallback(plan: Sequence[tuple[WeightSite, Quantization]], ctx: TransformContext) -> None:
    """A layer with fewer input channels than the group, or not a multiple of it, gets one
    scale per output channel (``Scheme.groups``): coarser than asked, so the note says which
    layers, and the largest group size that would divide them all."""
    fell = [
        (site.consumer.name, site.value.shape[1])
        for site, params in plan
        if params.scheme.group > 0 and params.groups == 1 and site.value.shape[1] != params.scheme.group
    ]
    if not fell:
        return
    group = next(params.scheme.group for _, params in plan if params.scheme.group > 0)
    named = ", ".join(f"{name} ({cols})" for name, cols in fell[:SHOWN])
    more = f" and {len(fell) - SHOWN} more" if len(fell) > SHOWN else ""
    divisor = math.gcd(group, *(cols for _, cols in fell))
    hint = f"; --group-size {divisor} divides them all" if divisor > 1 else ""
    ctx.note(
        f"--group-size {group} does not divide the input channels of {len(fell)} 4-bit layer(s), which get one "
        f"scale per output channel instead: {named}{more}{hint}"
    )
