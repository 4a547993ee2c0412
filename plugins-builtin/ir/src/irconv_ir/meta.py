"""Typed ``graph.meta`` entries the IR reader sets and the emitter reads."""

from __future__ import annotations

from irconv import MetaKey

#: IR layer id -> node id, for port maps that name body layers.
LAYER_NODES: MetaKey[dict[int, int]] = MetaKey(
    "ir.layer_nodes", dict, default=dict, doc="IR layer id -> node id of the graph read from an IR"
)
#: Node name -> (layer type, the value-less runtime attributes ``(name, version)`` it carried),
#: e.g. ``decompression`` on the Convert of compressed weights; written back on emit when
#: the node still has that name and op type.
RT_MARKERS: MetaKey[dict[str, tuple[str, tuple[tuple[str, str], ...]]]] = MetaKey(
    "ir.rt_markers", dict, default=dict, doc="node name -> (layer type, value-less rt_info attributes)"
)
