"""The op of a node fresh from a loader, before extraction."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from irconv.errors import NAME_LIMIT, ConversionError, quoted, shortened
from irconv.ops.op import Op, attr

if TYPE_CHECKING:
    from irconv.graph import Node


@runtime_checkable
class SourceAttributes(Protocol):
    """A front end's view of one framework node's attributes, as plain Python values.

    Each loader supplies one (ONNX AttributeProtos, TF AttrValues, Caffe parameter messages
    decoded to ints, floats, strings, lists, arrays), so extractors read ``ctx.attr(name)``
    and never unwrap a framework's protobuf themselves.
    """

    def get(self, name: str, default: Any = None) -> Any: ...

    def __contains__(self, name: object) -> bool: ...

    def names(self) -> Iterable[str]: ...


class MappingAttributes:
    """``SourceAttributes`` over a plain mapping (toy front ends, tests, JSON formats)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def get(self, name: str, default: Any = None) -> Any:
        return self._values.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def names(self) -> Iterable[str]:
        return list(self._values)


class _NoBodies(Mapping[str, Any]):
    """The bodies of a node without sub-graphs: one shared, read-only, empty mapping (not a
    dict per node) that copies and pickles as itself."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "NO_BODIES"

    def __reduce__(self) -> str:
        return "NO_BODIES"  # the module-level instance, by name


NO_BODIES: Mapping[str, Any] = _NoBodies()


def _no_bodies() -> Mapping[str, Any]:
    return NO_BODIES


# Slots: a loader makes one SourceOp per framework node, and a 300k-node model's are alive
# together until extraction.
@dataclass(eq=False, slots=True)
class SourceOp(Op):
    """A framework operation as the loader found it.

    ``attributes`` is the front end's adapter over the node's attributes (read through
    ``ExtractContext.attr``); ``source`` is the framework's own description (an ONNX
    NodeProto, a TF NodeDef, a Caffe LayerParameter) for the front end's own helpers. Both
    are dropped when the extractor replaces this op.
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
    bodies: Mapping[str, Any] = attr(factory=_no_bodies, emit=False)
    attributes: SourceAttributes | None = attr(None, emit=False)

    @property
    def type(self) -> str:  # type: ignore[override]  # Op.type is a ClassVar; here it varies per node
        """The node's ``type`` shows the framework op until extraction."""
        return self.op_type

    def num_outputs(self) -> int:
        return self.n_outputs

    def infer(self, node: Node) -> None:
        raise ConversionError(f"node {quoted(node.name)} is still a {self.describe()} op: it was never extracted")

    def describe(self) -> str:
        domain = f"{shortened(self.domain, NAME_LIMIT)}::" if self.domain else ""
        return f"{self.framework} {domain}{shortened(self.op_type, NAME_LIMIT)}"
