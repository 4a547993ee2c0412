"""Expanding ONNX functions (model-local ones and schema function bodies) into nodes.

A model's own functions are read with irconv's copy of the schema (``irconv_onnx.proto``).
The bodies of schema-defined function ops (``LayerNormalization`` before an extractor
existed, ``Celu``, ``Gelu``, ...) live in the ONNX operator library, so ``onnx.defs`` is
imported, and the ``onnx`` package with it, only when a model holds such an op that no
installed extractor handles; ONNX shape inference likewise only when such a body depends
on input types the model does not declare. Their protos are carried over to irconv's
schema through their serialized bytes (the two schemas are the same messages). Without an
importable ``onnx``, such ops stay as they are and are reported among the unsupported ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def inline_function(node: Any, function: Any, prefix: str, defaults: dict[str, Any] | None = None) -> list[Any]:
    """The function's nodes with formal names bound to ``node``'s values.

    Inner values get ``prefix/`` names; attribute references (``ref_attr_name``) take the
    calling node's attribute, or the function's default, and are dropped when neither exists.
    """
    from irconv_onnx.proto.onnx_ml_pb2 import NodeProto

    mapping: dict[str, str] = {}
    for i, formal in enumerate(function.input):
        mapping[formal] = node.input[i] if i < len(node.input) else ""
    for i, formal in enumerate(function.output):
        mapping[formal] = node.output[i] if i < len(node.output) else ""
    given = {a.name: a for a in node.attribute}
    defaults = {**(defaults or {}), **{a.name: a for a in function.attribute_proto}}
    internal = set(function.input) | {o for n in function.node for o in n.output}

    def rename(name: str) -> str:
        if name == "":
            return ""
        return mapping.get(name, f"{prefix}/{name}")

    nodes = []
    for i, inner in enumerate(function.node):
        new = NodeProto()
        new.CopyFrom(inner)
        new.name = f"{prefix}/{inner.name or inner.op_type + str(i)}"
        del new.input[:]
        new.input.extend(rename(x) for x in inner.input)
        del new.output[:]
        new.output.extend(rename(x) for x in inner.output)
        del new.attribute[:]
        for a in inner.attribute:
            if a.ref_attr_name:
                source = given.get(a.ref_attr_name) or defaults.get(a.ref_attr_name)
                if source is None:
                    continue
                bound = new.attribute.add()
                bound.CopyFrom(source)
                bound.name = a.name
            else:
                copied = new.attribute.add()
                copied.CopyFrom(a)
                if copied.type == 5:  # GRAPH: outer names it reads are renamed too
                    _rename_captures(copied.g, internal, rename)
        nodes.append(new)
    return nodes


def _rename_captures(graph: Any, internal: set[str], rename: Callable[[str], str]) -> None:
    local = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    local |= {o for n in graph.node for o in n.output}
    for n in graph.node:
        for i, name in enumerate(n.input):
            if name and name not in local and name in internal:
                n.input[i] = rename(name)
        for a in n.attribute:
            if a.type == 5:
                _rename_captures(a.g, internal - local, rename)
    for out in graph.output:
        if out.name not in local and out.name in internal:
            out.name = rename(out.name)


def schema_defaults(op_type: str, domain: str, opset: int) -> dict[str, Any]:
    """Attribute defaults the ONNX schema declares (function bodies may refer to them)."""
    from irconv_onnx.proto.onnx_ml_pb2 import AttributeProto

    try:
        import onnx.defs

        schema = onnx.defs.get_schema(op_type, opset, domain)
    except Exception:
        return {}
    found = {}
    for name, attribute in schema.attributes.items():
        default = attribute.default_value
        if default is not None and default.type != 0:
            found[name] = AttributeProto.FromString(default.SerializeToString())
    return found


def schema_function(
    node: Any, domain: str, opset: int, input_type: Callable[[str], Any | None]
) -> Any | None:
    """The FunctionProto the ONNX schema defines for ``node`` at ``opset``, or None.

    Context-dependent bodies need the input types; ``input_type(name)`` gives a
    TypeProto when the loader knows it.
    """
    from irconv_onnx.proto.onnx_ml_pb2 import FunctionProto

    try:
        import onnx.defs

        # Any: onnx's stubs leave out the function-body accessors the schema has at run time
        schema: Any = onnx.defs.get_schema(node.op_type, opset, domain)
    except Exception:
        return None

    def newest(versions: Any) -> int:
        # A body is defined for some opsets; use the newest one not past the model's.
        usable = [v for v in versions if v <= opset]
        return max(usable) if usable else opset

    try:
        if schema.has_function:
            data = schema.get_function_with_opset_version(newest(schema.function_opset_versions))
            if data:
                return FunctionProto.FromString(data)
        if schema.has_context_dependent_function:
            types = []
            for name in node.input:
                t = input_type(name) if name else None
                if name and t is None:
                    return None
                types.append(t.SerializeToString() if t is not None else b"")  # b"": an empty TypeProto
            data = schema.get_context_dependent_function_with_opset_version(
                newest(schema.context_dependent_function_opset_versions), node.SerializeToString(), types
            )
            if data:
                return FunctionProto.FromString(data)
    except Exception:
        return None
    return None


def infer_value_types(model: Any) -> dict[str, Any]:
    """The tensor types ONNX shape inference finds for the values of ``model``'s main graph
    (TypeProtos of irconv's schema), or nothing when inference fails."""
    from irconv_onnx.proto.onnx_ml_pb2 import TypeProto

    try:
        import onnx

        inferred = onnx.shape_inference.infer_shapes(onnx.ModelProto.FromString(model.SerializeToString()))
    except Exception:
        return {}
    return {
        value.name: TypeProto.FromString(value.type.SerializeToString())
        for value in inferred.graph.value_info
        if value.type.HasField("tensor_type")
    }
