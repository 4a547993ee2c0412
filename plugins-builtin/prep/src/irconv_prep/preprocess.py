"""What --mean-values, --scale-values, --scale and --reverse-input-channels ask of each input.

For an input ``r`` (what the IR is fed) the model sees, per channel ``c`` of its own order:
``m[c] = (r[rev(c)] - mean[c]) / scale[c]`` — channels reversed first (``rev(c) = C-1-c``),
then the means subtracted, then the scales divided, with means and scales given in the
model's channel order (BGR for a Caffe model trained on BGR images).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from irconv import ConversionOptions, Graph, Node, UserError

from irconv_prep.inputs import by_input, channel_axis, input_layouts, input_name, parameter_op
from irconv_prep.options import MEAN_VALUES, REVERSE_INPUT_CHANNELS, SCALE, SCALE_VALUES
from irconv_prep.specs import LayoutSpec, parse_per_input


@dataclass
class InputPrep:
    """The preprocessing of one input; vectors are per channel along ``axis`` (model order)."""

    node: Node
    rank: int
    axis: int | None = None
    reverse: bool = False
    mean: np.ndarray | None = None  # f64, one per channel
    divisor: np.ndarray | None = None  # f64, one per channel, or 0-d for --scale alone

    @property
    def channels(self) -> int | None:
        for vector in (self.mean, self.divisor):
            if vector is not None and vector.ndim == 1:
                return int(vector.size)
        return 3 if self.reverse else None

    def order(self) -> np.ndarray:
        """Indices along ``axis`` taking the input's channels into the model's order."""
        count = self.channels
        assert count is not None
        return np.arange(count)[::-1].copy() if self.reverse else np.arange(count)

    def along_axis(self, vector: np.ndarray) -> np.ndarray:
        """``vector`` shaped to broadcast against the input (0-d stays 0-d)."""
        if vector.ndim == 0 or self.axis is None:
            return vector
        shape = [1] * self.rank
        shape[self.axis] = vector.size
        return vector.reshape(shape)


def plan_inputs(graph: Graph, options: ConversionOptions) -> list[InputPrep]:
    """The preprocessing every input needs (inputs needing none are left out).

    Wrong counts of values, unknown input names and undeterminable channel dims are
    ``UserError``s.
    """
    means = by_input(graph, parse_per_input(options.get(MEAN_VALUES) or {}), "--mean-values")
    scales = by_input(graph, parse_per_input(options.get(SCALE_VALUES) or {}), "--scale-values")
    scale_all = options.get(SCALE)
    reverse = bool(options.get(REVERSE_INPUT_CHANNELS))
    if not (means or scales or scale_all is not None or reverse):
        return []
    layouts = input_layouts(graph, options)
    mean_of = {node.id: values for node, values in means}
    scale_of = {node.id: values for node, values in scales}
    plans: list[InputPrep] = []
    for node in graph.parameters():
        op = parameter_op(node)
        if not op.element_type.is_float and (node.id in mean_of or node.id in scale_of):
            raise UserError(
                f"input {input_name(node)!r} holds {op.element_type.value} values; means and scales need floats"
            )
        if not op.element_type.is_float:
            continue
        rank = len(op.shape) if op.shape is not None else 0
        plan = InputPrep(node, rank)
        for flag, values, field in (
            ("--mean-values", mean_of.get(node.id), "mean"),
            ("--scale-values", scale_of.get(node.id), "divisor"),
        ):
            if values is None:
                continue
            axis = channel_axis(node, layouts.get(node.id), len(values), graph.framework, flag)
            _check_count(node, axis, len(values), flag)
            plan.axis = axis
            setattr(plan, field, np.asarray(values, dtype=np.float64))
        if plan.divisor is None and scale_all is not None:
            plan.divisor = np.asarray(float(scale_all), dtype=np.float64)
        if plan.divisor is not None and np.any(plan.divisor == 0):
            raise UserError(f"--scale-values: a scale of 0 for input {input_name(node)!r}")
        if reverse:
            plan.reverse = _reversible(node, plan, layouts.get(node.id), graph.framework)
        if plan.mean is not None or plan.divisor is not None or plan.reverse:
            plans.append(plan)
    return plans


def _check_count(node: Node, axis: int, count: int, flag: str) -> None:
    shape = parameter_op(node).shape
    channels = shape[axis] if shape is not None else None
    if channels is not None and channels != count:
        raise UserError(
            f"{flag}: {count} value(s) for input {input_name(node)!r}, which has {channels} channels "
            f"(dim {axis} of shape {list(shape or ())}); give one value per channel"
        )


def _reversible(node: Node, plan: InputPrep, layout: LayoutSpec | None, framework: str) -> bool:
    """Whether the input is a 3-channel image (only those are reversed)."""
    shape = parameter_op(node).shape
    if plan.axis is None:
        try:
            plan.axis = channel_axis(node, layout, 3, framework, "--reverse-input-channels")
        except UserError:
            return False
    return shape is not None and shape[plan.axis] == 3 and plan.channels in (None, 3)
