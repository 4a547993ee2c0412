"""Finding a decoder's KV cache: past key/value model inputs paired with present outputs.

Exporters name the pairs alike: Hugging Face ONNX exports ``past_key_values.3.key`` /
``present.3.key``, others ``past.3`` / ``present.3`` or ``past_key_values_3_key`` /
``present_key_values_3_key``. A name is split into its cache prefix and the rest; an input
and an output with the same rest are one cache tensor. An input with no output so named
(``torch.export`` programs name outputs after their nodes) is paired with the one output
computed as a Concat that reads it. Its layout is found from the
input's shape: the batch is the first dynamic dimension, the sequence the second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from irconv import Graph, Node, UserError
from irconv.errors import quoted
from irconv.types import Shape, format_shape

_PAST = re.compile(r"^(past_key_values|past_key_value|past_kv|past|cache|kv_cache)(?=[._\-/:]|$)[._\-/:]*(?P<rest>.*)$")
_PRESENT = re.compile(
    r"^(present_key_values|present_key_value|present_kv|present|new_past_key_values|updated_cache|new_cache)"
    r"(?=[._\-/:]|$)[._\-/:]*(?P<rest>.*)$"
)
#: Inputs whose batch the empty cache takes, in order of preference.
BATCH_INPUTS = ("input_ids", "inputs_embeds", "decoder_input_ids")


@dataclass(frozen=True)
class CacheTensor:
    """One cache tensor: the model input it arrives on, the output it leaves by."""

    name: str  # the input's name, used as the variable id
    past: Node  # a Parameter
    present: Node  # a Result
    shape: Shape  # the input's shape, batch and sequence dynamic
    batch_axis: int
    sequence_axis: int


def tensor_name(node: Node) -> str:
    """A Parameter's or Result's tensor name, or its node name: a Parameter's own name (the
    first; a rewrite that replaced a tensor by the input moved that tensor's names after it),
    a Result's first in order."""
    port = node.out_port(0) if node.type == "Parameter" else node.in_port(0).get_source()
    names = port.data.names if port is not None else []
    if node.type == "Parameter" and names:
        return names[0]
    return sorted(names)[0] if names else node.name


def _key(pattern: re.Pattern[str], name: str) -> str | None:
    match = pattern.match(name.lower())
    if match is None:
        return None
    return re.sub(r"[._\-/:]+", ".", match.group("rest")) or "0"


def find_cache(graph: Graph) -> list[CacheTensor]:
    """Every past/present pair of ``graph``; a UserError naming the inputs looked at when the
    model has none or one whose layout is not (batch, ..., sequence, ...) with only those two
    dimensions dynamic."""
    inputs = {tensor_name(node): node for node in graph.parameters()}
    outputs = {}
    for node in graph.results():
        key = _key(_PRESENT, tensor_name(node))
        if key is not None:
            outputs[key] = node
    looked_at = ", ".join(sorted(inputs)) or "(none)"
    found = []
    for name, node in inputs.items():
        key = _key(_PAST, name)
        if key is None:
            continue
        present = outputs.get(key) or _concatenation_of(graph, node)
        if present is None:
            raise UserError(
                f"--stateful: model input {quoted(name)} looks like a past KV cache tensor, but no output is its "
                f"present counterpart (outputs: {', '.join(sorted(tensor_name(r) for r in graph.results()))})"
            )
        found.append(_cache_tensor(name, node, present))
    if not found:
        raise UserError(
            f"--stateful: found no past key/value inputs paired with present outputs among the model inputs "
            f"{looked_at}; the KV cache must be model inputs named past_key_values.N.key/value (or past.N, "
            "cache.N) with outputs present.N.key/value; without a cache the model cannot be made stateful"
        )
    return found


def _concatenation_of(graph: Graph, past: Node) -> Node | None:
    """The one output computed as ``Concat(past, new entries)``, for models whose outputs
    carry no names of their own (a ``torch.export`` program names them after its nodes)."""
    source = past.out_port(0)
    found = [
        result
        for result in graph.results()
        if (producer := result.in_port(0).get_source()) is not None
        and producer.node.type == "Concat"
        and any(port.get_source() == source for port in producer.node.in_ports() if port.is_connected())
    ]
    return found[0] if len(found) == 1 else None


def _cache_tensor(name: str, past: Node, present: Node) -> CacheTensor:
    shape = past.out_port(0).data.shape
    source = present.in_port(0).get_source()
    out_shape = source.data.shape if source is not None else None
    dynamic = [axis for axis, dim in enumerate(shape or ()) if dim is None]
    if shape is None or len(dynamic) != 2 or out_shape is None or len(out_shape) != len(shape):
        raise UserError(
            f"--stateful: cannot tell the layout of KV cache input {quoted(name)} (shape {format_shape(shape)}, "
            f"its output {quoted(tensor_name(present))} {format_shape(out_shape)}): expected a batch and a sequence "
            "dimension as the only dynamic ones, the same rank on both sides"
        )
    for axis, (a, b) in enumerate(zip(shape, out_shape, strict=True)):
        if axis not in dynamic and b is not None and a != b:
            raise UserError(
                f"--stateful: KV cache input {quoted(name)} {format_shape(shape)} and output {quoted(tensor_name(present))} "
                f"{format_shape(out_shape)} differ in dimension {axis}, which is not the batch or the sequence"
            )
    return CacheTensor(name, past, present, tuple(shape), dynamic[0], dynamic[1])


def batch_input(graph: Graph) -> Node:
    """The input whose dimension 0 is the batch of a fresh cache (``input_ids``, ...)."""
    inputs = {tensor_name(node): node for node in graph.parameters()}
    for name in BATCH_INPUTS:
        if name in inputs:
            return inputs[name]
    raise UserError(
        f"--stateful: none of the inputs {', '.join(BATCH_INPUTS)} is in the model (inputs: "
        f"{', '.join(sorted(inputs))}): the empty KV cache takes its batch from one of them"
    )
