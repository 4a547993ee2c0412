"""The options irconv-caffe declares, and the graph facts it keeps."""

from __future__ import annotations

from pathlib import Path

from irconv import MetaKey, Option

from irconv_caffe.caffemodel import CaffeWeights

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

#: The caffemodel's memory map: the weight Consts are views of it, so it lives as long as the graph.
WEIGHTS: MetaKey[CaffeWeights] = MetaKey("caffe.weights", CaffeWeights, doc="keeps the caffemodel mapped")
