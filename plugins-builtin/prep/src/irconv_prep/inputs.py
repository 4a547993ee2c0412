"""Model inputs named by the options: lookup by name, their layouts and channel axis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from irconv import ConversionOptions, Graph, Node, Parameter, UsageError, UserError

from irconv_prep.options import LAYOUT, SOURCE_LAYOUT, TARGET_LAYOUT
from irconv_prep.specs import LayoutSpec, parse_layouts

T = TypeVar("T")


def input_name(node: Node) -> str:
    """The name users feed an input by: its tensor name, else the node's."""
    names = node.out_port(0).data.names
    return names[0] if names else node.name


def parameter_op(node: Node) -> Parameter:
    op = node.op
    assert isinstance(op, Parameter)
    return op


def by_input(graph: Graph, given: Mapping[str, T], flag: str) -> list[tuple[Node, T]]:
    """Pair each named entry with its model input; "" names the only input.

    An unknown name, or "" for a model with several inputs, is one error listing the inputs.
    """
    parameters = graph.parameters()
    known = ", ".join(input_name(p) for p in parameters) or "none"
    pairs: list[tuple[Node, T]] = []
    for name, value in given.items():
        if name == "":
            if len(parameters) != 1:
                raise UserError(f"{flag}: the model has {len(parameters)} inputs ({known}); name the input")
            pairs.append((parameters[0], value))
            continue
        found = [p for p in parameters if name == p.name or name in p.out_port(0).data.names]
        if not found:
            raise UserError(f"{flag}: {name!r} is not a model input (inputs: {known})")
        pairs.append((found[0], value))
    return pairs


def input_layouts(graph: Graph, options: ConversionOptions) -> dict[int, LayoutSpec]:
    """Each input's (source, target) layout from --layout, --source-layout, --target-layout.

    A layout must have one letter per dim of the input; a target needs a source.
    """
    specs: dict[int, LayoutSpec] = {}
    flags = {LAYOUT: "--layout", SOURCE_LAYOUT: "--source-layout", TARGET_LAYOUT: "--target-layout"}
    for option, flag in flags.items():
        value = options.get(option)
        if value is None:
            continue
        for node, spec in by_input(graph, parse_layouts(value), flag):
            current = specs.get(node.id, LayoutSpec())
            if option is SOURCE_LAYOUT:
                spec = LayoutSpec(spec.source, current.target)
            elif option is TARGET_LAYOUT:
                spec = LayoutSpec(current.source, spec.target)
            specs[node.id] = spec
    nodes = {p.id: p for p in graph.parameters()}
    for node_id, spec in list(specs.items()):
        node = nodes[node_id]
        if spec.source is None:
            raise UsageError(f"--target-layout for input {input_name(node)!r} needs its --source-layout too")
        target = spec.target or spec.source
        if sorted(spec.source.letters) != sorted(target.letters) or (
            spec.source != target and "?" in spec.source.letters
        ):
            raise UserError(
                f"input {input_name(node)!r}: source layout {spec.source} and target layout {target} "
                "must name the same dims"
            )
        shape = parameter_op(node).shape
        if shape is not None and len(shape) != spec.source.rank:
            raise UserError(
                f"layout {spec.source} of input {input_name(node)!r} has {spec.source.rank} dims "
                f"but the input has rank {len(shape)} (shape {list(shape)})"
            )
        specs[node_id] = LayoutSpec(spec.source, target)
    return specs


def channel_axis(node: Node, layout: LayoutSpec | None, count: int | None, framework: str, flag: str) -> int:
    """The channel axis of an input in the model's layout.

    From the layout's ``C`` when one is given; otherwise, for a 3-D to 5-D input, the
    framework's convention: the last dim for TensorFlow models (channels-last), dim 1 for
    the others. ``count`` values that do not fit that dim are an error naming both.
    """
    name = input_name(node)
    shape = parameter_op(node).shape
    if layout is not None and layout.source is not None:
        axis = layout.source.index("C")
        if axis is None:
            raise UserError(f"{flag}: the layout {layout.source} of input {name!r} has no channel dim C")
        return axis
    if shape is None or not 3 <= len(shape) <= 5:
        raise UserError(
            f"{flag}: cannot tell the channel dim of input {name!r} "
            f"(shape {list(shape) if shape is not None else 'unknown'}); give its layout, e.g. --layout {name}(nchw)"
        )
    axis = len(shape) - 1 if framework == "tf" else 1
    if count is not None and shape[axis] is not None and shape[axis] != count:
        raise UserError(
            f"{flag}: {count} value(s) for input {name!r}, which has {shape[axis]} channels "
            f"(dim {axis} of shape {list(shape)}); give one value per channel, or the input's layout "
            f"(e.g. --layout {name}(nhwc)) if the channels are elsewhere"
        )
    return axis
