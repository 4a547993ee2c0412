"""Build an irconv graph from a deploy.prototxt and its caffemodel.

Caffe names tensors ("blobs") and lets a layer write its result over its input
(in-place: ``top == bottom``). The graph follows the layers in file order, keeping the
latest producer of each blob name; the final producer's port carries the name, and
blobs nobody consumes become the model's outputs, as in Caffe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import ConversionOptions
from irconv.errors import ModelFileError, quoted
from irconv.graph import Graph, OutPort
from irconv.ops import Op, Parameter, Result, SourceOp
from irconv.types import MaybeShape

from irconv_caffe.attributes import CaffeAttributes
from irconv_caffe.caffemodel import WEIGHTS, CaffeWeights, read_caffemodel
from irconv_caffe.custom_layers import CustomLayerOp, CustomLayerSpec, flatten_params, read_mapping
from irconv_caffe.layer import CaffeLayer
from irconv_caffe.options import CUSTOM_LAYERS, PROTO
from irconv_caffe.proto import caffe_pb2 as pb
from irconv_caffe.prototxt import ExtraParams, read_prototxt_with_extras

FRAMEWORK = "caffe"
WEIGHTS_SUFFIX = ".caffemodel"
PROTO_SUFFIXES = (".prototxt", ".pbtxt", ".txt")

#: Layers that declare model inputs rather than compute.
INPUT_LAYER_TYPES = ("Input",)

#: Training data sources (train_val prototxts): the first top becomes a model input; the
#: others (labels) are training-only, and so is every layer reading them (losses, Accuracy).
DATA_LAYER_TYPES = ("Data", "ImageData", "WindowData", "MemoryData", "HDF5Data", "AnnotatedData", "VideoData")


def resolve_files(path: Path, options: ConversionOptions) -> tuple[Path, Path]:
    """``(prototxt, caffemodel)`` from the model path and ``--weights`` / ``--proto``."""
    proto: Path | None = options.get(PROTO)
    weights: Path | None
    if path.suffix.lower() == WEIGHTS_SUFFIX or (proto is not None and options.weights is None):
        weights = path
        if proto is None:
            raise ModelFileError(f"{path} holds Caffe weights only: give the network with --proto deploy.prototxt")
    else:
        proto, weights = path, options.weights
        if weights is None:
            raise ModelFileError(
                f"{path} is a Caffe network without weights: give them with --weights model.caffemodel"
            )
    for kind, file in (("prototxt", proto), ("caffemodel", weights)):
        if not file.is_file():
            raise ModelFileError(f"the {kind} {file} does not exist")
    return proto, weights


def load_caffe(path: Path, options: ConversionOptions) -> Graph:
    """Read a Caffe model: ``path`` and ``--weights``/``--proto``, the custom layer mapping."""
    proto_path, weights_path = resolve_files(path, options)
    net, extras = read_prototxt_with_extras(proto_path, strict_types=builtin_layer_types())
    mapping_file = options.get(CUSTOM_LAYERS)
    custom = read_mapping(mapping_file) if mapping_file is not None else {}
    weights = read_caffemodel(weights_path)
    return build_graph(net, weights, proto_path, extras, custom)


def builtin_layer_types() -> frozenset[str]:
    """Layer types this plugin converts: an unknown field on one of them is a typo."""
    from irconv_caffe.extractors import all_extractors

    return frozenset(extractor.op for extractor in all_extractors()) | frozenset(INPUT_LAYER_TYPES + DATA_LAYER_TYPES)


def build_graph(
    net: pb.NetParameter,
    weights: CaffeWeights,
    proto_path: Path,
    extras: ExtraParams | None = None,
    custom: dict[str, CustomLayerSpec] | None = None,
) -> Graph:
    graph = Graph(net.name or proto_path.stem, FRAMEWORK)
    graph.meta[WEIGHTS] = weights  # keeps the file mapped while views are used
    producers: dict[str, OutPort] = {}
    unconsumed: dict[str, None] = {}  # insertion-ordered set of candidate outputs

    for name, shape in declared_inputs(net, proto_path):
        _add_input(graph, producers, name, shape)
    model_inputs = set(producers)

    training_only: set[str] = set()
    for layer in net.layer:
        if layer.type in INPUT_LAYER_TYPES:
            for name, shape in input_layer_shapes(layer, proto_path):
                _add_input(graph, producers, name, shape)
                model_inputs.add(name)
            continue
        if layer.type in DATA_LAYER_TYPES:
            if layer.top:
                _add_input(graph, producers, layer.top[0], data_layer_shape(layer))
                model_inputs.add(layer.top[0])
            training_only.update(layer.top[1:])
            continue
        if training_only.intersection(layer.bottom):
            training_only.update(layer.top)
            continue
        inputs = []
        for bottom in layer.bottom:
            if bottom not in producers:
                raise ModelFileError(
                    f"{proto_path}: layer {quoted(layer.name)} ({layer.type}) reads blob {quoted(bottom)}, "
                    "which no earlier layer or input produces"
                )
            inputs.append(producers[bottom])
            unconsumed.pop(bottom, None)
        found = weights.get(layer.name)
        extra = (extras or {}).get(layer.name, {})
        spec = (custom or {}).get(layer.type)
        op: Op
        if spec is not None:
            op = _custom_op(layer, extra, spec)
        else:
            op = SourceOp(
                framework=FRAMEWORK,
                op_type=layer.type,
                domain=python_layer_domain(layer),
                n_outputs=len(layer.top),
                source=CaffeLayer(layer, found.blobs if found is not None else None, weights.path, extra),
                attributes=CaffeAttributes(layer, extra),
            )
        node = graph.add_node(op, layer.name or None, inputs)
        for idx, top in enumerate(layer.top):
            producers[top] = node.out_port(idx)
            unconsumed[top] = None

    for blob, port in producers.items():
        # A model input keeps its name even when a layer later writes over it in place.
        if blob not in model_inputs:
            port.data.add_name(blob)
    for blob in unconsumed:
        graph.add_node(Result(), f"{blob}/sink", [producers[blob]])
    if not graph.results():
        raise ModelFileError(f"{proto_path}: the network has no output (every blob is consumed)")
    return graph


def _custom_op(layer: pb.LayerParameter, extra: dict[str, object], spec: CustomLayerSpec) -> CustomLayerOp:
    """A mapped custom layer: its parameter block becomes the op's attributes."""
    params: object = {}
    if spec.param:
        if spec.param in extra:
            params = extra[spec.param]
        elif spec.param in pb.LayerParameter.DESCRIPTOR.fields_by_name and layer.HasField(spec.param):
            params = getattr(layer, spec.param)
    return CustomLayerOp(
        op_type=spec.op_type,
        opset_name=spec.opset,
        attributes=flatten_params(params),
        n_outputs=spec.outputs if spec.outputs is not None else len(layer.top),
        same_shape=spec.same_shape,
    )


def _add_input(graph: Graph, producers: dict[str, OutPort], name: str, shape: MaybeShape) -> None:
    if name in producers:
        raise ModelFileError(f"the model input {quoted(name)} is declared twice")
    if shape is not None and 0 in shape:  # nothing to compute on; the runtime refuses a zero batch
        raise ModelFileError(f"the model input {quoted(name)} declares a zero dimension (shape {list(shape)})")
    node = graph.add_node(Parameter(shape), name)
    node.out_port(0).data.add_name(name)
    producers[name] = node.out_port(0)


def data_layer_shape(layer: pb.LayerParameter) -> MaybeShape:
    """What a training data layer says about its images' shape (``None`` where unknown)."""
    if layer.type == "MemoryData":
        p = layer.memory_data_param
        return (p.batch_size or None, p.channels or None, p.height or None, p.width or None)
    if layer.type == "HDF5Data":
        return None
    crop = layer.transform_param.crop_size or layer.data_param.crop_size or layer.image_data_param.crop_size
    if crop:
        return (None, None, crop, crop)
    p = layer.image_data_param
    return (None, None, p.new_height or None, p.new_width or None)


def declared_inputs(net: pb.NetParameter, proto_path: Path) -> list[tuple[str, MaybeShape]]:
    """Inputs declared by ``input:`` with ``input_shape {}`` or ``input_dim:`` (4 per input)."""
    names = list(net.input)
    if not names:
        return []
    if net.input_shape:
        if len(net.input_shape) != len(names):
            raise ModelFileError(f"{proto_path}: {len(names)} input(s) but {len(net.input_shape)} input_shape block(s)")
        return [(n, tuple(int(d) for d in s.dim)) for n, s in zip(names, net.input_shape, strict=True)]
    if net.input_dim:
        if len(net.input_dim) != 4 * len(names):
            raise ModelFileError(
                f"{proto_path}: {len(names)} input(s) need {4 * len(names)} input_dim values, "
                f"found {len(net.input_dim)}"
            )
        dims = [int(d) for d in net.input_dim]
        return [(n, tuple(dims[4 * i : 4 * i + 4])) for i, n in enumerate(names)]
    # No shape declared: dynamic rank until the user gives one with --input.
    return [(n, None) for n in names]


def input_layer_shapes(layer: pb.LayerParameter, proto_path: Path) -> list[tuple[str, MaybeShape]]:
    shapes = list(layer.input_param.shape)
    tops = list(layer.top)
    if len(shapes) not in (0, 1, len(tops)):
        raise ModelFileError(
            f"{proto_path}: Input layer {quoted(layer.name)} has {len(tops)} top(s) but {len(shapes)} shape(s)"
        )
    result: list[tuple[str, MaybeShape]] = []
    for i, top in enumerate(tops):
        if not shapes:
            result.append((top, None))
        else:
            shape = shapes[i] if len(shapes) > 1 else shapes[0]
            result.append((top, tuple(int(d) for d in shape.dim)))
    return result


def python_layer_domain(layer: Any) -> str:
    """A Python layer's extractor key domain, ``module.Layer`` from its ``python_param``;
    empty for every other layer (a plugin adds a Python layer by that domain)."""
    if layer.type != "Python" or not layer.HasField("python_param"):
        return ""
    return f"{layer.python_param.module}.{layer.python_param.layer}"
