"""Hook implementations of irconv-opset: the OpenVINO operation sets, declared as ops."""

from __future__ import annotations

from collections.abc import Sequence

from irconv import Op, Transform, hookimpl


@hookimpl
def declare_ops() -> Sequence[type[Op]]:
    from irconv_opset.catalog import all_ops

    return all_ops()


@hookimpl
def back_transform() -> Sequence[Transform]:
    from irconv_opset.exact_forms import AdaptiveMaxPoolI32Indices, NmsBoxesOfFour, PdpdAsNumpy, SqueezeKnownAxes

    return [SqueezeKnownAxes(), PdpdAsNumpy(), AdaptiveMaxPoolI32Indices(), NmsBoxesOfFour()]
