"""Hook implementations of irconv-layout: channels-last ops into the IR's channels-first forms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irconv import Option
from irconv.plugins import Transform, hookimpl


@hookimpl
def front_transform() -> Sequence[Transform]:
    from irconv_layout.wrap_marked import WrapMarked

    return [WrapMarked()]


@hookimpl
def middle_transform() -> Sequence[Transform]:
    from irconv_layout.hoist_transposes import HoistTransposes
    from irconv_layout.matmul_leading_dims import MatMulLeadingDims
    from irconv_layout.nchw_inputs import NchwInputs
    from irconv_layout.sink_transposes import SinkTransposes
    from irconv_layout.transpose_to_reshape import TransposeToReshape

    return [NchwInputs(), MatMulLeadingDims(), SinkTransposes(), HoistTransposes(), TransposeToReshape()]


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_layout.options import OPTIONS

    return OPTIONS
