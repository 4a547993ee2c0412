"""Run one shared lowering on test inputs: the lowering builds into a graph through an
extraction context (as a front end calls it), the graph is emitted as IR and run in
OpenVINO at f32 (``irconv.runtime.compile_for_comparison``), and the outputs come back for
comparison with an independent reference. OpenVINO is imported only when a lowering runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from irconv import ExtractContext, Transform
from irconv.contract.options import ConversionOptions
from irconv.graph import OutPort
from irconv.ops import MappingAttributes, Parameter, SourceOp
from irconv.testing import GraphBuilder, infer_graph, run_transform
from irconv.testing.runtime import emit_ir, run_ir
from irconv.types import ElementType

#: A lowering under test: the context and the graph's parameters in, the outputs to compare out.
Lowering = Callable[[ExtractContext, list[OutPort]], Sequence[OutPort]]


def lowering_context(builder: GraphBuilder, inputs: Sequence[OutPort]) -> ExtractContext:
    """The context an extractor would get for a framework node reading ``inputs``."""
    source = SourceOp(framework="test", op_type="Lowered", domain="", opset_version=1,
                      attributes=MappingAttributes({}))
    node = builder.graph.add_node(source, "lowered", list(inputs))
    return ExtractContext(builder.graph, node, ConversionOptions())


def run_lowering(lowering: Lowering, arrays: Sequence[np.ndarray], workdir: Path,
                 shapes: Sequence[Sequence[int | None] | None] | None = None,
                 transforms: Sequence[Transform] = ()) -> list[np.ndarray]:
    """The outputs of ``lowering`` on ``arrays`` as OpenVINO computes them. ``shapes``: the
    inputs' shapes as the lowering sees them (default: the arrays' own; None for an unknown
    rank); the IR's inputs declare the arrays' shapes, as an input given a shape later would.
    ``transforms`` run on the graph before it is emitted (the layout plugin's, for a lowering
    that marks nodes channels-last)."""
    b = GraphBuilder()
    declared = shapes if shapes is not None else [a.shape for a in arrays]
    params = [b.parameter(f"x{i}", shape, str(a.dtype)) for i, (a, shape) in enumerate(zip(arrays, declared, strict=True))]
    ctx = lowering_context(b, params)
    outputs = list(lowering(ctx, params))
    b.graph.remove_node(ctx.node)
    for port, array in zip(params, arrays, strict=True):
        port.node.op = Parameter(array.shape, ElementType.from_numpy(array.dtype))
    for i, port in enumerate(outputs):
        b.result(port, f"y{i}")
    infer_graph(b.graph)
    for transform in transforms:
        run_transform(b.graph, transform)
    got = run_ir(emit_ir(b.graph, workdir / "lowered.xml"), list(arrays))
    return [got[f"y{i}"] for i in range(len(outputs))]
