"""Make PyPI's torchvision (built for CUDA torch) importable beside the CPU torch build.

Its C++ extension cannot load here, so the torchvision:: operator schemas are declared from
Python with plain-torch CPU kernels before torchvision is imported. Only the pure-Python model
definitions are needed to sweep architectures; nms and roi_align get reference kernels so the
detection models run eagerly. Usage: `import torchvision_cpu_shim` before `import torchvision`
(sys.path must hold /work/zoo and the torchvision/timm install dir).
"""
import torch

_LIB = torch.library.Library("torchvision", "DEF")
for schema in [
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
    "_roi_align_backward(Tensor grad, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width, int sampling_ratio, bool aligned) -> Tensor",
    "qroi_align(Tensor input, Tensor rois, float input_scale, int input_zero_point, float rois_scale, int rois_zero_point, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
    "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio) -> (Tensor, Tensor)",
    "_ps_roi_align_backward(Tensor grad, Tensor rois, Tensor channel_mapping, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
    "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) -> (Tensor, Tensor)",
    "_roi_pool_backward(Tensor grad, Tensor rois, Tensor argmax, float spatial_scale, SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
    "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) -> (Tensor, Tensor)",
    "_ps_roi_pool_backward(Tensor grad, Tensor rois, Tensor channel_mapping, float spatial_scale, SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
    "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) -> Tensor",
    "_deform_conv2d_backward(Tensor grad, Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
    "_interpolate_bilinear2d_aa(Tensor input, SymInt[] output_size, bool align_corners) -> Tensor",
    "_interpolate_bicubic2d_aa(Tensor input, SymInt[] output_size, bool align_corners) -> Tensor",
]:
    _LIB.define(schema)


def _nms(dets: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    order = scores.argsort(descending=True)
    x1, y1, x2, y2 = dets.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    keep = []
    suppressed = torch.zeros(len(dets), dtype=torch.bool)
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        w = (torch.minimum(x2[i], x2) - torch.maximum(x1[i], x1)).clamp(min=0)
        h = (torch.minimum(y2[i], y2) - torch.maximum(y1[i], y1)).clamp(min=0)
        inter = w * h
        suppressed |= inter / (areas[i] + areas - inter) > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


def _bilinear(feature: torch.Tensor, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``feature`` ``[C, H, W]`` sampled at (y, x) as torchvision's kernel does: zero outside
    ``[-1, size]``, edges clamped."""
    height, width = feature.shape[-2:]
    valid = (y >= -1) & (y <= height) & (x >= -1) & (x <= width)
    y, x = y.clamp(min=0), x.clamp(min=0)
    y0, x0 = y.floor().long().clamp(max=height - 1), x.floor().long().clamp(max=width - 1)
    y1, x1 = (y0 + 1).clamp(max=height - 1), (x0 + 1).clamp(max=width - 1)
    y = torch.where(y0 >= height - 1, y0.to(y.dtype), y)
    x = torch.where(x0 >= width - 1, x0.to(x.dtype), x)
    ly, lx = y - y0, x - x0
    value = (feature[:, y0, x0] * (1 - ly) * (1 - lx) + feature[:, y0, x1] * (1 - ly) * lx
             + feature[:, y1, x0] * ly * (1 - lx) + feature[:, y1, x1] * ly * lx)
    return value * valid


def _roi_align(input: torch.Tensor, rois: torch.Tensor, spatial_scale: float, pooled_height: int,
               pooled_width: int, sampling_ratio: int, aligned: bool) -> torch.Tensor:
    out = input.new_zeros((len(rois), input.shape[1], pooled_height, pooled_width))
    offset = 0.5 if aligned else 0.0
    for k, (b, x1, y1, x2, y2) in enumerate(rois.tolist()):
        x1, y1, x2, y2 = (v * spatial_scale - offset for v in (x1, y1, x2, y2))
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / pooled_height, rw / pooled_width
        gh = sampling_ratio if sampling_ratio > 0 else max(1, int(torch.tensor(rh / pooled_height).ceil()))
        gw = sampling_ratio if sampling_ratio > 0 else max(1, int(torch.tensor(rw / pooled_width).ceil()))
        ys = y1 + (torch.arange(pooled_height)[:, None] * bh + (torch.arange(gh)[None] + 0.5) * bh / gh).reshape(-1)
        xs = x1 + (torch.arange(pooled_width)[:, None] * bw + (torch.arange(gw)[None] + 0.5) * bw / gw).reshape(-1)
        yy, xx = torch.meshgrid(ys.to(input.dtype), xs.to(input.dtype), indexing="ij")
        samples = _bilinear(input[int(b)], yy, xx)
        samples = samples.reshape(input.shape[1], pooled_height, gh, pooled_width, gw)
        out[k] = samples.mean(dim=(2, 4))
    return out


_LIB.impl("nms", _nms, "CPU")
_LIB.impl("roi_align", _roi_align, "CPU")


def register_fake_kernels() -> None:
    """Fake (shape-only) kernels of ``nms`` and ``roi_align`` for ``torch.export``, for a
    process that uses these ops without importing torchvision (whose ``_meta_registrations``
    registers its own, so call this only where torchvision is not imported)."""

    @torch.library.register_fake("torchvision::nms")
    def _nms_fake(dets, scores, iou_threshold):
        kept = torch.library.get_ctx().new_dynamic_size()
        return dets.new_empty(kept, dtype=torch.int64)

    @torch.library.register_fake("torchvision::roi_align")
    def _roi_align_fake(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
        return input.new_empty((rois.shape[0], input.shape[1], pooled_height, pooled_width))
