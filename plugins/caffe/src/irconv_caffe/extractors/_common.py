"""What every Caffe extractor uses: the layer behind a node, input shapes, constants."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from irconv.errors import ConversionError
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv import ExtractContext
from irconv.pipeline.infer import infer_node
from irconv.plugins import Extractor
from irconv.types import MaybeShape

from irconv_caffe.layer import CaffeLayer

ExtractFn = Callable[[Node, ExtractContext], "Op | Sequence[OutPort]"]
_INFERRED = "caffe.inferred_nodes"


def layer_of(node: Node) -> CaffeLayer:
    layer = node.op.source  # type: ignore[attr-defined]
    assert isinstance(layer, CaffeLayer)
    return layer


def caffe(op: str, produces: str) -> Callable[[ExtractFn], Extractor]:
    """Decorator: turn an extract function into the ``Extractor`` record for Caffe ``op``."""

    def wrap(fn: ExtractFn) -> Extractor:
        return Extractor(framework="caffe", op=op, extract=fn, produces=produces)

    return wrap


def input_shape(ctx: ExtractContext, idx: int = 0) -> MaybeShape:
    """The shape of input ``idx``, inferring the (already extracted) nodes upstream.

    Extraction runs producers first, so everything above this node is made of opset
    ops already; inferring them here lets an extractor pick rank-dependent forms
    (Caffe's ``axis`` parameters) exactly as Caffe sized its blobs. The core infers the
    whole graph again after the front phase.
    """
    port = ctx.input(idx)
    _infer_upstream(port.node)
    return port.data.get_shape()


def input_rank(ctx: ExtractContext, idx: int = 0) -> int:
    shape = input_shape(ctx, idx)
    if shape is None:
        raise ConversionError(
            f"{layer_of(ctx.node).describe()}: the rank of input {idx} is unknown; "
            "give the model input a shape with --input name[d0,d1,...]"
        )
    return len(shape)


def normalize_axis(ctx: ExtractContext, axis: int, rank: int) -> int:
    value = axis + rank if axis < 0 else axis
    if not 0 <= value < rank:
        raise ConversionError(f"{layer_of(ctx.node).describe()}: axis {axis} is out of range for rank {rank}")
    return value


def _infer_upstream(start: Node) -> None:
    done: set[int] = start.graph.meta.setdefault(_INFERRED, set())
    if start.id in done:
        return
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(start, False)]
    seen: set[int] = set()
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node.id in done or node.id in seen:
            continue
        seen.add(node.id)
        stack.append((node, True))
        for port in node.in_ports():
            source = port.get_source()
            if source is not None:
                stack.append((source.node, False))
    for node in order:
        infer_node(node)
        done.add(node.id)


def const_i64(ctx: ExtractContext, values: Sequence[int] | int, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.int64), suffix=suffix)


def const_f32(ctx: ExtractContext, values: object, suffix: str = "const") -> OutPort:
    return ctx.const(np.asarray(values, dtype=np.float32), suffix=suffix)


def per_axis(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """Shape ``values`` (covering input dims ``axis..``) to broadcast against a rank-``rank`` input."""
    trailing = rank - axis - values.ndim
    if trailing < 0:
        raise ValueError(f"a {values.ndim}-D parameter does not fit a rank-{rank} input at axis {axis}")
    return values.reshape(values.shape + (1,) * trailing)


def pick(values: Sequence[int], index: int, default: int) -> int:
    """Caffe's repeated geometry fields: none -> default, one -> all dims, else per dim."""
    if not values:
        return default
    return int(values[index] if len(values) > 1 else values[0])
