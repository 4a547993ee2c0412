"""The options of irconv-transforms: switching fusing off, wholly or for chosen nodes."""

from __future__ import annotations

from irconv import Option

DISABLE_FUSING: Option[bool] = Option(
    "fusing.disable",
    bool,
    default=False,
    flag="--disable-fusing",
    keyword="disable_fusing",
    help="turn off every optimisation fusion: linear-op fusing, pad folding, grouped convolutions, "
    "activation and attention patterns, ResNet stride optimisation",
)
DISABLE_RESNET_OPTIMIZATION: Option[bool] = Option(
    "fusing.disable_resnet_optimization",
    bool,
    default=False,
    flag="--disable-resnet-optimization",
    keyword="disable_resnet_optimization",
    help="keep strides on 1x1 convolutions (no stride moved up to the convolution feeding them)",
)
#: Nodes the user froze (``--finegrain-fusing``) are the core's option: every transform's
#: ``ctx.is_frozen`` honours it.
OPTIONS = (DISABLE_FUSING, DISABLE_RESNET_OPTIMIZATION)
