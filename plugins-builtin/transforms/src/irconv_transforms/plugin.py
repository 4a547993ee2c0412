"""Hook implementations of irconv-transforms: framework-neutral fusing."""

from __future__ import annotations

from irconv.plugins import Transform, hookimpl

from irconv_transforms.fuse_gelu import FuseGeluErf
from irconv_transforms.fuse_swish import FuseSwish


@hookimpl
def middle_transform() -> list[Transform]:
    return [FuseSwish(), FuseGeluErf()]
