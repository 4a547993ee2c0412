"""Flattening a GraphDef: function calls inlined, tensor references resolved to (node, port).

TF2 graphs (SavedModel, ``tf.function``) wrap the model in ``StatefulPartitionedCall`` /
``PartitionedCall`` nodes whose bodies live in the function library. Inside a function a
tensor is spelled ``node:output_arg:index`` (or an argument name), so the flat port needs the
op's output argument names: ``OUTPUT_ARGS`` lists ops with more than one output argument.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from irconv.errors import ModelFileError, quoted

from irconv_tf.nodes import Tensor, TFNode

CALL_OPS = frozenset({"StatefulPartitionedCall", "PartitionedCall"})

#: Ops with several output arguments, each one tensor, in order (tensorflow/core/ops).
OUTPUT_ARGS: dict[str, tuple[str, ...]] = {
    "FusedBatchNorm": ("y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"),
    "FusedBatchNormV2": ("y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"),
    "FusedBatchNormV3": (
        "y",
        "batch_mean",
        "batch_variance",
        "reserve_space_1",
        "reserve_space_2",
        "reserve_space_3",
    ),
    "TopKV2": ("values", "indices"),
    "TopK": ("values", "indices"),
    "Unique": ("y", "idx"),
    "UniqueWithCounts": ("y", "idx", "count"),
    "NonMaxSuppressionV4": ("selected_indices", "valid_outputs"),
    "NonMaxSuppressionV5": ("selected_indices", "selected_scores", "valid_outputs"),
    "CombinedNonMaxSuppression": ("nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"),
    "Switch": ("output_false", "output_true"),
    "Merge": ("output", "value_index"),
    "BroadcastGradientArgs": ("r0", "r1"),
    "RestoreV2": ("tensors",),
}


def parse_graph_input(text: str) -> Tensor | None:
    """``node``, ``node:1`` -> (node, port); control inputs ``^node`` -> None."""
    if text.startswith("^"):
        return None
    name, sep, port = text.rpartition(":")
    if sep and port.isdigit():
        return name, int(port)
    return text, 0


class Flattener:
    """Builds the flat node table of a graph, inlining library function calls."""

    def __init__(self, library: Any) -> None:
        self.functions = {f.signature.name: f for f in library.function} if library is not None else {}
        self.nodes: dict[str, TFNode] = {}
        self.aliases: dict[Tensor, Tensor] = {}
        self.control_sources: set[str] = set()

    # ------------------------------------------------------------------ main graph
    def add_graph(self, node_defs: Iterable[Any]) -> None:
        for nd in node_defs:
            self.control_sources.update(s[1:] for s in nd.input if s.startswith("^"))
            inputs = [t for t in (parse_graph_input(s) for s in nd.input) if t is not None]
            self._add(nd, nd.name, inputs)

    # ------------------------------------------------------------------- functions
    def add_function(self, fname: str, prefix: str, args: list[Tensor]) -> list[Tensor]:
        """Inline function ``fname`` with its inputs bound to ``args``; returns its outputs."""
        fdef = self.functions.get(fname)
        if fdef is None:
            raise ModelFileError(f"function {quoted(fname)} is not in the graph's function library")
        signature = fdef.signature
        bound: dict[str, Tensor] = {}
        for arg, tensor in zip(signature.input_arg, args, strict=False):
            bound[arg.name] = tensor
        ops = {nd.name: nd.op for nd in fdef.node_def}

        def resolve(text: str) -> Tensor | None:
            if text.startswith("^"):
                return None
            parts = text.split(":")
            if len(parts) == 1:
                if text in bound:
                    return bound[text]
                return prefix + text, 0
            node, out_arg = parts[0], parts[1]
            index = int(parts[2]) if len(parts) > 2 else 0
            return prefix + node, _flat_index(ops.get(node, ""), out_arg, index)

        for nd in fdef.node_def:
            inputs = [t for t in (resolve(s) for s in nd.input) if t is not None]
            self._add(nd, prefix + nd.name, inputs)
        outputs = []
        for arg in signature.output_arg:
            target = resolve(fdef.ret[arg.name])
            if target is None:
                raise ModelFileError(f"function {quoted(fname)} returns a control edge as {quoted(arg.name)}")
            outputs.append(target)
        return outputs

    def _add(self, nd: Any, name: str, inputs: list[Tensor]) -> None:
        if nd.op in CALL_OPS and nd.attr["f"].func.name in self.functions:
            outputs = self.add_function(nd.attr["f"].func.name, name + "/", inputs)
            for i, tensor in enumerate(outputs):
                self.aliases[(name, i)] = tensor
            return
        self.nodes[name] = TFNode(name, nd.op, inputs, nd.attr)

    # ------------------------------------------------------------------- finishing
    def resolve(self, tensor: Tensor) -> Tensor:
        seen = 0
        while tensor in self.aliases:
            tensor = self.aliases[tensor]
            seen += 1
            if seen > 10_000:
                raise ModelFileError(f"cyclic function outputs around {tensor}")
        return tensor

    def finish(self) -> dict[str, TFNode]:
        """Resolve every input through the call aliases; returns the flat node table."""
        for node in self.nodes.values():
            node.inputs = [self.resolve(t) for t in node.inputs]
        return self.nodes


def _flat_index(op: str, out_arg: str, index: int) -> int:
    args = OUTPUT_ARGS.get(op)
    if args is None or out_arg not in args:
        return index
    return args.index(out_arg) + index
