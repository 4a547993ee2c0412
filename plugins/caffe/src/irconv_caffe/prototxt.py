"""Read a ``deploy.prototxt``: parse, upgrade the V1 format, keep the TEST-phase layers."""

from __future__ import annotations

from pathlib import Path

from google.protobuf import text_format

from irconv.errors import ModelFileError
from irconv_caffe.proto import caffe_pb2 as pb
from irconv_caffe.v1_upgrade import upgrade_v1_layers


def read_prototxt(path: Path) -> pb.NetParameter:
    """The network in ``path``, in the V2 (``layer {}``) form, TEST-phase layers only."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ModelFileError(f"cannot read the prototxt {path}: {exc.strerror or exc}") from exc
    net = pb.NetParameter()
    try:
        text_format.Parse(text, net, allow_unknown_extension=False)
    except text_format.ParseError as exc:
        line, column = exc.GetLine(), exc.GetColumn()
        where = f"{path}:{line}:{column}" if line is not None else str(path)
        # The runtime's message starts with "line:column : "; keep only the reason.
        reason = str(exc).split(" : ", 1)[-1] if line is not None else str(exc)
        raise ModelFileError(f"{where}: cannot parse the prototxt: {reason}") from None
    if net.layers:
        if net.layer:
            raise ModelFileError(
                f"{path}: the network mixes V1 `layers {{}}` and V2 `layer {{}}` blocks; use one format"
            )
        upgrade_v1_layers(net, path)
    keep_test_phase(net)
    return net


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
