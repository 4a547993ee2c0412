"""The options irconv-caffe declares (kept light: every ``irconv convert`` reads them)."""

from __future__ import annotations

from pathlib import Path

from irconv import Option

PROTO: Option[Path | None] = Option(
    "caffe.proto",
    Path,
    flag="--proto",
    keyword="proto",
    metavar="DEPLOY.PROTOTXT",
    help="the network (deploy.prototxt) when MODEL is the .caffemodel",
)
CUSTOM_LAYERS: Option[Path | None] = Option(
    "caffe.custom_layers",
    Path,
    metavar="MAPPING.XML",
    help="a CustomLayersMapping-style XML file mapping custom layer types to custom-opset ops",
)
OPTIONS = (PROTO, CUSTOM_LAYERS)
