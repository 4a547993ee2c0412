"""TensorFlow's image resizing (ResizeBilinear, ResizeNearestNeighbor, and TFLite's
RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR, which keep their options) as Interpolate's
coordinate attributes.

TF's source coordinate for output index y (scale = in / out, or (in - 1) / (out - 1) with
align_corners): nearest: align_corners round(y * scale); half_pixel floor((y + 0.5) * scale);
else floor(y * scale). linear: half_pixel (y + 0.5) * scale - 0.5; else y * scale.
``tf_half_pixel_for_nn`` is (y + 0.5) * scale, so it pairs with ``floor``.
"""

from __future__ import annotations


def tf_resize_coordinates(nearest: bool, align_corners: bool, half_pixel: bool) -> tuple[str, str]:
    """Interpolate's ``coordinate_transformation_mode`` and ``nearest_mode`` for TF's
    options (``align_corners`` wins when both are set; TF refuses that pair itself).
    ``nearest_mode`` only matters when ``nearest``."""
    if align_corners:
        return "align_corners", "round_prefer_ceil"
    if half_pixel:
        return ("tf_half_pixel_for_nn", "floor") if nearest else ("half_pixel", "floor")
    return "asymmetric", "floor"
