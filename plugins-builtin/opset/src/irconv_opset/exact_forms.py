"""Back-phase rewrites into the op forms the OpenVINO CPU plugin compiles.

Some op versions are valid IR that the runtime reads but its CPU plugin does not implement for
every shape. Where the graph's facts decide what such an op does, these rewrites spell it in a
form every version of the runtime compiles.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from irconv import Match, PatternRewrite, Rewriter, any_, const, op

from irconv_opset.ops.shape import Squeeze, Squeeze_v1
from irconv_opset.shapes import normalize_axes


class SqueezeKnownAxes(PatternRewrite):
    """``Squeeze-15(x, axes, allow_axis_skip)`` -> ``Squeeze-1(x, the axes of size 1)``, or ``x``
    when none is, once the size of every listed axis is known: the CPU plugin does not implement
    ``allow_axis_skip`` when any dimension of the model is dynamic."""

    id = "opset.squeeze_known_axes"
    pattern = op(Squeeze, any_("x"), const("axes"), bind="squeeze")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        node = match["squeeze"]
        if not isinstance(node.op, Squeeze) or not node.op.allow_axis_skip:
            return False
        shape, axes = match.port("x").data.get_shape(), match.constant("axes")
        if shape is None or axes is None:
            return False
        listed = sorted(set(normalize_axes(axes.reshape(-1).tolist(), len(shape))))
        if any(shape[a] is None for a in listed):
            return False  # whether it goes depends on the run-time size: Squeeze.check says so
        ones = [a for a in listed if shape[a] == 1]
        if not ones:
            rw.replace(node, match.port("x"))
            return True
        squeezed = rw.op(Squeeze_v1(), match.port("x"), rw.const(np.array(ones, np.int64), like=node), like=node)
        rw.replace(node, squeezed)
        return True


class PdpdAsNumpy(PatternRewrite):
    """``op(a, b, auto_broadcast=pdpd)`` -> ``op(a, Unsqueeze(b, its trailing axes), numpy)``:
    the IR's ``pdpd`` has no axis, so ``b`` aligns with ``a`` from axis 0, which NumPy
    broadcasting does once ``b`` has trailing axes of 1; the CPU plugin implements ``pdpd``
    for a few ops only (``Select``, ``Broadcast``, ``Mod`` with dynamic shapes refuse it).
    ``Select`` and ``Broadcast`` read ``pdpd`` as NumPy broadcasting already."""

    id = "opset.pdpd_as_numpy"
    pattern = op(("Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum", "SquaredDifference",
                  "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                  "LogicalAnd", "LogicalOr", "LogicalXor", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
                  "BitwiseLeftShift", "BitwiseRightShift", "Select", "Broadcast"), bind="op")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset.ops.elementwise import BinaryElementwise
        from irconv_opset.ops.shape import Unsqueeze

        node = match["op"]
        mode = "mode" if node.type == "Broadcast" else "auto_broadcast"
        if getattr(node.op, mode, None) != "pdpd":
            return False
        numpy_op = dataclasses.replace(node.op, **{mode: "numpy"})
        if not isinstance(node.op, BinaryElementwise):
            rw.replace_op(node, numpy_op)
            return True
        a, b = node.in_port(0).data.get_rank(), node.in_port(1).data.get_rank()
        if a is None or b is None:
            return False
        second = node.in_port(1).get_source()
        if b < a:
            second = rw.op(Unsqueeze(), second, rw.const(np.arange(b, a, dtype=np.int64), like=node), like=node)
        rw.replace(node, rw.op(numpy_op, node.in_port(0).get_source(), second, like=node))
        return True


class AdaptiveMaxPoolI32Indices(PatternRewrite):
    """``AdaptiveMaxPool(index_element_type=i64)`` -> the same with ``i32`` and a ``Convert``
    of the indices to ``i64``: the CPU plugin computes i32 indices only (flat spatial
    positions, far below 2**31)."""

    id = "opset.adaptive_max_pool_i32_indices"
    pattern = op("AdaptiveMaxPool", bind="pool")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv.types import ElementType

        from irconv_opset.ops.pooling import AdaptiveMaxPool
        from irconv_opset.ops.shape import Convert

        node = match["pool"]
        pool = match.op("pool", AdaptiveMaxPool)
        if pool.index_element_type is not ElementType.i64:
            return False
        inputs = [p.get_source() for p in node.in_ports()]
        new = rw.insert(dataclasses.replace(pool, index_element_type=ElementType.i32), inputs, like=node)
        indices = rw.op(Convert(destination_type=ElementType.i64), new.out_port(1), like=node)
        rw.replace(node, [new.out_port(0), indices])
        return True


class NmsBoxesOfFour(PatternRewrite):
    """``NMS(boxes[?, ?, ?], ...)`` -> ``NMS(Reshape(boxes, [0, 0, 4]), ...)``: every box has four
    coordinates and the CPU plugin needs to see that in the boxes' shape."""

    id = "opset.nms_boxes_of_four"
    pattern = op(("NonMaxSuppression", "MatrixNms", "MulticlassNms"), any_("boxes"), bind="nms")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        from irconv_opset.ops.shape import Reshape

        boxes = match.port("boxes")
        shape = boxes.data.get_shape()
        if shape is not None and (len(shape) != 3 or shape[2] is not None):
            return False
        node = match["nms"]
        pinned = rw.op(Reshape(special_zero=True), boxes, rw.const(np.array([0, 0, 4], np.int64), like=node),
                       name=f"{node.name}/boxes")
        rw.set_input(node.in_port(0), pinned)
        return True
