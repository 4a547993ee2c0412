"""Read a ``deploy.prototxt``: parse, upgrade the V1 format, keep the TEST-phase layers."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from google.protobuf import text_format
from irconv.errors import ModelFileError, quoted, shortened_quotes

from irconv_caffe.proto import caffe_pb2 as pb
from irconv_caffe.text_fields import TextFormatError, parse_fields
from irconv_caffe.v1_upgrade import upgrade_v1_layers

#: Parameters of layers our schema does not know, by layer name then field name.
ExtraParams = dict[str, dict[str, object]]

_UNKNOWN_LAYER_FIELD = re.compile(r'"irconv_caffe\.(V1)?LayerParameter" has no field named')


def read_prototxt(path: Path) -> pb.NetParameter:
    """The network in ``path``, in the V2 (``layer {}``) form, TEST-phase layers only."""
    return read_prototxt_with_extras(path)[0]


def read_prototxt_with_extras(path: Path, strict_types: Collection[str] = ()) -> tuple[pb.NetParameter, ExtraParams]:
    """The network, plus the layer-level parameter blocks the schema does not declare.

    Custom layers bring their own ``*_param`` blocks. Those are lifted out of the text
    (blanked, so line numbers stay right) and returned as plain values; everything else
    is parsed strictly, so a misspelt field inside a known block is still an error, and
    so is an unknown field on a layer of a type in ``strict_types`` (the built-in ones:
    ``convolution_parm`` must not silently mean default parameters).
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ModelFileError(f"cannot read the prototxt {path}: {exc.strerror or exc}") from exc
    net = pb.NetParameter()
    extras: ExtraParams = {}
    try:
        text_format.Parse(text, net)
    except text_format.ParseError as exc:
        if not _UNKNOWN_LAYER_FIELD.search(str(exc)):
            raise _parse_error(path, exc) from None
        text, extras, where = lift_unknown_layer_fields(text)
        for layer_name, (layer_type, field_name, offset) in where.items():
            if layer_type in strict_types:
                line = text.count("\n", 0, offset) + 1
                column = offset - text.rfind("\n", 0, offset)
                raise ModelFileError(
                    f"{path}:{line}:{column}: layer {quoted(layer_name)} ({layer_type}) has no field named {quoted(field_name)}"
                ) from None
        net = pb.NetParameter()
        try:
            text_format.Parse(text, net)
        except text_format.ParseError as again:
            raise _parse_error(path, again) from None
    if net.layers:
        if net.layer:
            raise ModelFileError(
                f"{path}: the network mixes V1 `layers {{}}` and V2 `layer {{}}` blocks; use one format"
            )
        upgrade_v1_layers(net, path)
    keep_test_phase(net)
    return net, extras


def _parse_error(path: Path, exc: text_format.ParseError) -> ModelFileError:
    line, column = exc.GetLine(), exc.GetColumn()
    where = f"{path}:{line}:{column}" if line is not None else str(path)
    # The runtime's message starts with "line:column : "; keep only the reason.
    reason = str(exc).split(" : ", 1)[-1] if line is not None else str(exc)
    return ModelFileError(f"{where}: cannot parse the prototxt: {shortened_quotes(reason)}")


def lift_unknown_layer_fields(text: str) -> tuple[str, ExtraParams, dict[str, tuple[str, str, int]]]:
    """Blank out layer fields unknown to the schema.

    Returns the new text, the lifted values, and for each layer with lifted fields its
    type, the first lifted field's name and that field's offset in the text.
    """
    where: dict[str, tuple[str, str, int]] = {}
    try:
        fields = parse_fields(text)
    except TextFormatError:
        return text, {}, where  # the strict parse will report where the text is broken
    known = {"layer": pb.LayerParameter.DESCRIPTOR, "layers": pb.V1LayerParameter.DESCRIPTOR}
    spans: list[tuple[int, int]] = []
    extras: ExtraParams = {}
    for item in fields:
        descriptor = known.get(item.name)
        if descriptor is None or item.value is not None:
            continue
        name = next((f.value for f in item.fields if f.name == "name" and f.value is not None), "")
        layer_type = next((f.value for f in item.fields if f.name == "type" and f.value is not None), "")
        for child in item.fields:
            if child.name not in descriptor.fields_by_name:
                extras.setdefault(name, {})[child.name] = child.to_python()
                spans.append((child.start, child.end))
                where.setdefault(name, (layer_type, child.name, child.start))
    chars = list(text)
    for start, end in spans:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars), extras, where


def keep_test_phase(net: pb.NetParameter) -> None:
    """Drop the layers Caffe would not instantiate for inference (phase TEST)."""
    state = pb.NetState()
    state.CopyFrom(net.state)
    state.phase = pb.TEST
    kept = [layer for layer in net.layer if _included(layer, state)]
    if len(kept) != len(net.layer):
        del net.layer[:]
        net.layer.extend(kept)


def _included(layer: pb.LayerParameter, state: pb.NetState) -> bool:
    # Caffe's rule: with `include` rules a layer needs one to match; otherwise it is
    # dropped when any `exclude` rule matches. A layer's own `phase` counts too.
    if layer.HasField("phase") and layer.phase != state.phase:
        return False
    if layer.include:
        return any(_meets(rule, state) for rule in layer.include)
    return not any(_meets(rule, state) for rule in layer.exclude)


def _meets(rule: pb.NetStateRule, state: pb.NetState) -> bool:
    if rule.HasField("phase") and rule.phase != state.phase:
        return False
    if rule.HasField("min_level") and state.level < rule.min_level:
        return False
    if rule.HasField("max_level") and state.level > rule.max_level:
        return False
    stages = set(state.stage)
    if any(stage not in stages for stage in rule.stage):
        return False
    return not any(stage in stages for stage in rule.not_stage)
