"""The op of a node fresh from a loader, before extraction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from irconv.ops.op import Op, attr


@dataclass(eq=False)
class SourceOp(Op):
    """A framework operation as the loader found it.

    ``source`` is the framework's own description (an ONNX NodeProto, a TF NodeDef, a
    Caffe LayerParameter); it is dropped when the extractor replaces this op.
    ``opset_version`` is the version of ``domain`` the model imports (ONNX) or 1.
    ``bodies`` holds sub-graphs (If branches, Loop bodies) as graphs of source ops; the
    core extracts them before the node itself.
    """

    framework: str = attr("", emit=False)
    op_type: str = attr("", emit=False)
    domain: str = attr("", emit=False)
    opset_version: int = attr(1, emit=False)
    n_outputs: int = attr(1, emit=False)
    source: Any = attr(None, emit=False)
    bodies: dict[str, Any] = attr(factory=dict, emit=False)

    def __post_init__(self) -> None:
        # The node's ``type`` shows the framework op until extraction.
        object.__setattr__(self, "type", self.op_type)

    def num_outputs(self) -> int:
        return self.n_outputs

    def describe(self) -> str:
        domain = f"{self.domain}::" if self.domain else ""
        return f"{self.framework} {domain}{self.op_type}"
