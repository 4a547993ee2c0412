"""Upgrade the old V1 network format (``layers { type: CONVOLUTION }``) to V2 on read."""

from __future__ import annotations

from pathlib import Path

from irconv.errors import ModelFileError, quoted

from irconv_caffe.proto import caffe_pb2 as pb

_V1 = pb.V1LayerParameter

#: V1 layer type enum -> V2 type string.
V1_TYPE_NAMES: dict[int, str] = {
    _V1.ABSVAL: "AbsVal",
    _V1.ACCURACY: "Accuracy",
    _V1.ARGMAX: "ArgMax",
    _V1.BNLL: "BNLL",
    _V1.CONCAT: "Concat",
    _V1.CONTRASTIVE_LOSS: "ContrastiveLoss",
    _V1.CONVOLUTION: "Convolution",
    _V1.DATA: "Data",
    _V1.DECONVOLUTION: "Deconvolution",
    _V1.DROPOUT: "Dropout",
    _V1.DUMMY_DATA: "DummyData",
    _V1.EUCLIDEAN_LOSS: "EuclideanLoss",
    _V1.ELTWISE: "Eltwise",
    _V1.EXP: "Exp",
    _V1.FLATTEN: "Flatten",
    _V1.HDF5_DATA: "HDF5Data",
    _V1.HDF5_OUTPUT: "HDF5Output",
    _V1.HINGE_LOSS: "HingeLoss",
    _V1.IM2COL: "Im2col",
    _V1.IMAGE_DATA: "ImageData",
    _V1.INFOGAIN_LOSS: "InfogainLoss",
    _V1.INNER_PRODUCT: "InnerProduct",
    _V1.LRN: "LRN",
    _V1.MEMORY_DATA: "MemoryData",
    _V1.MULTINOMIAL_LOGISTIC_LOSS: "MultinomialLogisticLoss",
    _V1.MVN: "MVN",
    _V1.POOLING: "Pooling",
    _V1.POWER: "Power",
    _V1.RELU: "ReLU",
    _V1.SIGMOID: "Sigmoid",
    _V1.SIGMOID_CROSS_ENTROPY_LOSS: "SigmoidCrossEntropyLoss",
    _V1.SILENCE: "Silence",
    _V1.SOFTMAX: "Softmax",
    _V1.SOFTMAX_LOSS: "SoftmaxWithLoss",
    _V1.SPLIT: "Split",
    _V1.SLICE: "Slice",
    _V1.TANH: "TanH",
    _V1.WINDOW_DATA: "WindowData",
    _V1.THRESHOLD: "Threshold",
}

# Fields with the same name and message type in both formats, copied as they are.
_SHARED_FIELDS = tuple(
    f.name
    for f in _V1.DESCRIPTOR.fields
    if f.name in pb.LayerParameter.DESCRIPTOR.fields_by_name
    and f.name not in ("type", "blobs", "param", "loss_weight")
    and f.message_type is pb.LayerParameter.DESCRIPTOR.fields_by_name[f.name].message_type
)


def upgrade_v1_layers(net: pb.NetParameter, path: Path) -> None:
    """Replace ``net.layers`` (V1) by the equivalent ``net.layer`` (V2) entries."""
    for old in net.layers:
        if old.type not in V1_TYPE_NAMES:
            raise ModelFileError(f"{path}: V1 layer {quoted(old.name)} has the unknown type number {old.type}")
        new = net.layer.add()
        new.type = V1_TYPE_NAMES[old.type]
        for name in _SHARED_FIELDS:
            value = getattr(old, name)
            field = _V1.DESCRIPTOR.fields_by_name[name]
            if field.is_repeated:
                getattr(new, name).extend(value)
            elif old.HasField(name):
                if field.message_type is not None:
                    getattr(new, name).CopyFrom(value)
                else:
                    setattr(new, name, value)
        new.loss_weight.extend(old.loss_weight)
    del net.layers[:]
