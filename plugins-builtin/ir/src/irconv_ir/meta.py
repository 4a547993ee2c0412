"""Keys of ``graph.meta`` entries the IR reader sets and the emitter reads."""

from __future__ import annotations

#: IR layer id -> node id, for port maps that name body layers.
LAYER_NODES = "ir.layer_nodes"
#: Node name -> (layer type, the value-less runtime attributes ``(name, version)`` it carried),
#: e.g. ``decompression`` on the Convert of compressed weights; written back on emit when
#: the node still has that name and op type.
RT_MARKERS = "ir.rt_markers"
