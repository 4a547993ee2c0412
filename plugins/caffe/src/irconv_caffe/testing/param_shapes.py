"""The shapes of a network's learned blobs, by Caffe's own rules (for making test weights).

This is a small re-statement of how Caffe sizes each layer's tops and parameter blobs,
written independently of the converter so that random-weight caffemodels can be made
for any deploy prototxt. It covers the layer types of the public test models.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from irconv_caffe.proto import caffe_pb2 as pb

Shape = tuple[int, ...]


def _pick(values: Sequence[int], i: int, default: int) -> int:
    if not values:
        return default
    return int(values[i] if len(values) > 1 else values[0])


def _conv_geometry(p: pb.ConvolutionParameter, rank: int) -> tuple[list[int], list[int], list[int], list[int]]:
    has_hw = p.HasField("kernel_h")
    kernel = [p.kernel_h, p.kernel_w] if has_hw else [_pick(p.kernel_size, i, 1) for i in range(rank)]
    stride = [p.stride_h, p.stride_w] if p.HasField("stride_h") else [_pick(p.stride, i, 1) for i in range(rank)]
    pad = (
        [p.pad_h, p.pad_w] if p.HasField("pad_h") or p.HasField("pad_w") else [_pick(p.pad, i, 0) for i in range(rank)]
    )
    dilation = [_pick(p.dilation, i, 1) for i in range(rank)]
    return kernel, stride, pad, dilation


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _prior_count(p: pb.PriorBoxParameter) -> int:
    ratios = [1.0]
    for ar in p.aspect_ratio:
        for candidate in (ar, 1.0 / ar) if p.flip else (ar,):
            if all(abs(candidate - r) > 1e-6 for r in ratios):
                ratios.append(candidate)
    return len(ratios) * len(p.min_size) + len(p.max_size)


def layer_shapes(layer: pb.LayerParameter, bottoms: list[Shape]) -> tuple[list[Shape], list[Shape]]:
    """``(top shapes, parameter blob shapes)`` of one layer."""
    t = layer.type
    x = bottoms[0] if bottoms else ()
    if t in ("Convolution", "Deconvolution"):
        p = layer.convolution_param
        rank = len(x) - 2
        kernel, stride, pad, dilation = _conv_geometry(p, rank)
        out = []
        for i in range(rank):
            extent = dilation[i] * (kernel[i] - 1) + 1
            if t == "Convolution":
                out.append((x[2 + i] + 2 * pad[i] - extent) // stride[i] + 1)
            else:
                out.append(stride[i] * (x[2 + i] - 1) + extent - 2 * pad[i])
        group = p.group or 1
        if t == "Convolution":
            weight = (p.num_output, x[1] // group, *kernel)
        else:
            weight = (x[1], p.num_output // group, *kernel)
        blobs = [weight] + ([(p.num_output,)] if p.bias_term else [])
        return [(x[0], p.num_output, *out)], blobs
    if t == "Pooling":
        p = layer.pooling_param
        if p.global_pooling:
            return [(*x[:2], 1, 1)], []
        kernel = [p.kernel_h, p.kernel_w] if p.HasField("kernel_h") else [p.kernel_size] * 2
        stride = [p.stride_h, p.stride_w] if p.HasField("stride_h") else [p.stride] * 2
        pad = [p.pad_h, p.pad_w] if p.HasField("pad_h") or p.HasField("pad_w") else [p.pad] * 2
        out = []
        for i in range(2):
            size = (x[2 + i] + 2 * pad[i] - kernel[i]) / stride[i]
            ceil = p.ceil_mode and p.round_mode != pb.PoolingParameter.FLOOR
            dim = (math.ceil(size) if ceil else math.floor(size)) + 1
            if pad[i] and (dim - 1) * stride[i] >= x[2 + i] + pad[i]:
                dim -= 1
            out.append(dim)
        return [(*x[:2], *out)], []
    if t == "InnerProduct":
        p = layer.inner_product_param
        axis = _axis(p.axis, len(x))
        k = math.prod(x[axis:])
        weight = (k, p.num_output) if p.transpose else (p.num_output, k)
        return [(*x[:axis], p.num_output)], [weight] + ([(p.num_output,)] if p.bias_term else [])
    if t == "BatchNorm":
        return [x], [(x[1],), (x[1],), (1,)]
    if t in ("Scale", "Bias"):
        p = layer.scale_param if t == "Scale" else layer.bias_param
        if len(bottoms) > 1:
            return [x], ([(bottoms[1][0],)] if t == "Scale" and p.bias_term else [])
        axis = _axis(p.axis, len(x))
        end = len(x) if p.num_axes == -1 else axis + p.num_axes
        shape = tuple(x[axis:end])
        blobs = [shape]
        if t == "Scale" and p.bias_term:
            blobs.append(shape)
        return [x], blobs
    if t == "PReLU":
        return [x], [() if layer.prelu_param.channel_shared else (x[1],)]
    if t == "Normalize":
        return [x], [(1,) if layer.norm_param.channel_shared else (x[1],)]
    if t == "Concat":
        p = layer.concat_param
        axis = _axis(p.axis if p.HasField("axis") or not p.HasField("concat_dim") else p.concat_dim, len(x))
        out = list(x)
        out[axis] = sum(b[axis] for b in bottoms)
        return [tuple(out)], []
    if t == "Slice":
        p = layer.slice_param
        axis = _axis(p.axis if p.HasField("axis") or not p.HasField("slice_dim") else p.slice_dim, len(x))
        n = len(layer.top)
        points = list(p.slice_point) or [x[axis] // n * i for i in range(1, n)]
        edges = [0, *points, x[axis]]
        return [tuple(x[:axis]) + (edges[i + 1] - edges[i],) + tuple(x[axis + 1 :]) for i in range(n)], []
    if t == "Crop":
        axis = _axis(layer.crop_param.axis, len(x))
        return [tuple(x[:axis]) + tuple(bottoms[1][axis:])], []
    if t == "Flatten":
        p = layer.flatten_param
        axis, end = _axis(p.axis, len(x)), _axis(p.end_axis, len(x))
        return [(*x[:axis], math.prod(x[axis : end + 1]), *x[end + 1 :])], []
    if t == "Reshape":
        p = layer.reshape_param
        axis = _axis(p.axis, len(x) + 1) if p.axis < 0 else p.axis
        end = len(x) if p.num_axes == -1 else axis + p.num_axes
        spec = [int(d) for d in p.shape.dim]
        out = [x[axis + i] if d == 0 else d for i, d in enumerate(spec)]
        replaced = math.prod(x[axis:end])
        if -1 in out:
            known = math.prod(d for d in out if d != -1)
            out[out.index(-1)] = replaced // known
        return [(*x[:axis], *out, *x[end:])], []
    if t == "Permute":
        order = list(layer.permute_param.order)
        order += [i for i in range(len(x)) if i not in order]
        return [tuple(x[i] for i in order)], []
    if t == "PriorBox":
        count = x[2] * x[3] * _prior_count(layer.prior_box_param) * 4
        return [(1, 2, count)], []
    if t == "DetectionOutput":
        return [(1, 1, 1, 7)], []
    if t in ("LSTM", "RNN"):
        hidden = layer.recurrent_param.num_output
        inner = math.prod(x[2:])
        gates = 4 * hidden if t == "LSTM" else hidden
        blobs = [(gates, inner), (gates,)]
        if len(bottoms) > 2:
            blobs.append((gates, math.prod(bottoms[2][1:])))
        blobs.append((gates, hidden))
        if t == "RNN":
            blobs += [(hidden, hidden), (hidden,)]
        return [(x[0], x[1], hidden)], blobs
    if t == "Embed":
        p = layer.embed_param
        blobs = [(p.input_dim, p.num_output)] + ([(p.num_output,)] if p.bias_term else [])
        return [(*x, p.num_output)], blobs
    if t == "Parameter":
        shape = tuple(int(d) for d in layer.parameter_param.shape.dim)
        return [shape], [shape]
    if t == "Split":
        return [x] * len(layer.top), []
    return [x] * max(1, len(layer.top)), []


def parameter_shapes(net: pb.NetParameter, inputs: dict[str, Shape]) -> dict[str, list[Shape]]:
    """Learned blob shapes by layer name, propagating ``inputs`` through ``net``."""
    shapes: dict[str, Shape] = dict(inputs)
    params: dict[str, list[Shape]] = {}
    for layer in net.layer:
        if layer.type == "Input":
            continue
        tops, blobs = layer_shapes(layer, [shapes[b] for b in layer.bottom])
        for name, shape in zip(layer.top, tops, strict=False):
            shapes[name] = shape
        if blobs:
            params[layer.name] = blobs
    return params
