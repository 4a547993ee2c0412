"""Graph metadata the ONNX front end records (typed keys, namespaced ``onnx.``)."""

from __future__ import annotations

from irconv.graph import MetaKey

#: Opset version per imported domain ("" is ai.onnx).
OPSETS: MetaKey[dict[str, int]] = MetaKey("onnx.opsets", dict, doc="opset version per imported domain")
#: The model's ``ir_version``.
IR_VERSION: MetaKey[int] = MetaKey("onnx.ir_version", int, doc="the ModelProto's ir_version")
#: On a body graph (If branch, Loop/Scan body): names of the outer-scope values it reads, in
#: the order they follow the node's own inputs.
CAPTURES: MetaKey[list[str]] = MetaKey("onnx.captures", list, default=list,
                                       doc="outer-scope values a body graph reads, in input order")
