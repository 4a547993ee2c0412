"""Reading an ``.onnx`` file into a graph of ONNX source ops.

Initializers become Consts holding views over the protobuf's bytes (or memory maps of
external data files); graph inputs that are also initializers are constants; symbolic
dimensions stay dynamic; model-local functions, and schema-defined function ops that no
extractor handles, are expanded into their nodes; If/Loop/Scan bodies become
``SourceOp.bodies`` graphs whose outer-scope captures are extra node inputs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from irconv.errors import ConversionError, ModelFileError, quoted
from irconv.graph import Graph, OutPort
from irconv.ops import Const, Parameter, Result, SourceOp
from irconv.ops.source import NO_BODIES
from irconv.types import ElementType, MaybeShape

from irconv_onnx.attributes import Attributes, graph_attributes
from irconv_onnx.functions import inline_function, schema_defaults, schema_function
from irconv_onnx.meta import CAPTURES, IR_VERSION, OPSETS
from irconv_onnx.tensors import element_type, tensor_to_array
from irconv_onnx.wire import externalized

FRAMEWORK = "onnx"

#: ``has_extractor(domain, op_type, opset)``: whether any installed plugin extracts the op
#: (then a schema function body is not expanded).
HasExtractor = Callable[[str, str, int], bool]


def normalize_domain(domain: str) -> str:
    return "" if domain in ("", "ai.onnx") else domain


def read_model_proto(path: Path) -> Any:
    """Parse the ModelProto; external data, and large inline initializers, are left on disk."""
    from google.protobuf.message import DecodeError

    try:
        model = _parse_leaving_weights_on_disk(path) or _parse(path.read_bytes())
    except (DecodeError, RuntimeError, ValueError) as exc:
        why = str(exc).replace("'irconv_onnx.", "'onnx.")  # the vendored schema's messages are ONNX's
        raise ModelFileError(f"{path} is not a valid ONNX model (truncated or corrupt?): {why}") from None
    if not model.HasField("graph") or (not model.graph.node and not model.graph.output):
        raise ModelFileError(f"{path} holds no ONNX graph (truncated or not an ONNX file?)")
    return model


def _parse_leaving_weights_on_disk(path: Path) -> Any | None:
    """The ModelProto with its large initializers pointing into the file (``wire``), or None
    when the file does not lend itself (then it is parsed whole)."""
    import mmap

    if path.is_symlink() or not path.is_file():
        return None  # the tensors would name a file outside the folder the link sits in
    with open(path, "rb") as stream:
        try:
            mapping = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return None  # empty or unmappable: the ordinary parse reports it
    try:
        with memoryview(mapping) as view:
            rebuilt = externalized(view, path.name)
    finally:
        mapping.close()
    if rebuilt is None:
        return None
    return _parse(rebuilt)


def _parse(data: bytes) -> Any:
    """A ModelProto of irconv's own copy of the ONNX schema (``irconv_onnx.proto``)."""
    from irconv_onnx.proto.onnx_ml_pb2 import ModelProto

    model = ModelProto()
    model.ParseFromString(data)
    return model


def load_onnx(path: Path, has_extractor: HasExtractor | None = None) -> Graph:
    """The model at ``path`` as a graph of ONNX source ops.

    Function ops — the model's own functions and schema-defined ones — are expanded only when
    ``has_extractor`` says no plugin extracts them. Without it (loader tests), the model's
    own functions are expanded and schema-defined ones are not.
    """
    model = read_model_proto(path)
    builder = _Builder(model, path.parent.resolve(), has_extractor)
    graph = Graph(model.graph.name or path.stem, FRAMEWORK)
    graph.meta[OPSETS] = dict(builder.opsets)
    graph.meta[IR_VERSION] = int(model.ir_version)
    builder.build(model.graph, graph, outer=None)
    return graph


def tensor_shape(type_proto: Any) -> MaybeShape:
    """A ValueInfo's shape: symbolic or missing dims become None, a missing shape is None."""
    tensor = type_proto.tensor_type
    if not tensor.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim)


def dim_params(type_proto: Any) -> tuple[str | None, ...] | None:
    """A ValueInfo's ``dim_param`` names, None where a dim has none (ONNX: dims of a graph's
    inputs with the same ``dim_param`` have the same value at run time)."""
    tensor = type_proto.tensor_type
    if not tensor.HasField("shape"):
        return None
    names = tuple(d.dim_param or None if d.HasField("dim_param") else None for d in tensor.shape.dim)
    return names if any(names) else None


class _Scope:
    """Names visible in one graph; body graphs look outward and record captures."""

    def __init__(self, graph: Graph, outer: _Scope | None) -> None:
        self.graph = graph
        self.outer = outer
        self.values: dict[str, OutPort] = {}
        self.captures: list[str] = []

    def lookup(self, name: str) -> OutPort | None:
        found = self.values.get(name)
        if found is not None or self.outer is None:
            return found
        outer = self.outer.lookup(name)
        if outer is None:
            return None
        op = outer.node.op
        if isinstance(op, Const):  # copy constants into the body: no capture needed
            node = self.graph.add_node(Const(op.value), name)
        else:
            data = outer.data
            node = self.graph.add_node(Parameter(None, data.element_type), name)
            self.captures.append(name)
        node.out_port(0).data.add_name(name)
        self.values[name] = node.out_port(0)
        return node.out_port(0)


class _Builder:
    def __init__(self, model: Any, base_dir: Path, has_extractor: HasExtractor | None) -> None:
        self.model = model
        self.base_dir = base_dir
        self.has_extractor = has_extractor
        self.opsets = {normalize_domain(o.domain): int(o.version) for o in model.opset_import}
        self.opsets.setdefault("", 1)
        self.functions = {(normalize_domain(f.domain), f.name): f for f in model.functions}
        self.types: dict[str, Any] = {}
        self._initializer_graphs: list[Any] = []
        self._initializers: dict[str, Any] | None = None
        self._inferred_types: dict[str, Any] = {}
        self._inferred = False
        self._expansions = 0

    # ----------------------------------------------------------------- graphs
    def build(self, proto: Any, graph: Graph, outer: _Scope | None) -> _Scope:
        scope = _Scope(graph, outer)
        self._remember_types(proto)
        initializers = {t.name for t in proto.initializer}
        for tensor in proto.initializer:
            self._const(graph, scope, tensor.name, tensor_to_array(tensor, self.base_dir))
        for tensor in proto.sparse_initializer:
            raise ConversionError(f"sparse initializer {quoted(tensor.values.name)} is not supported")
        for value in proto.input:
            if value.name in initializers:
                continue
            self._parameter(graph, scope, value)
        for node in proto.node:
            self._node(graph, scope, node, self.opsets)
        for value in proto.output:
            port = scope.lookup(value.name)
            if port is None:
                raise ModelFileError(f"graph output {quoted(value.name)} is produced by no node, input or initializer")
            port.data.add_name(value.name)
            graph.add_node(Result(), f"{value.name}/sink", [port])
        graph.meta[CAPTURES] = list(scope.captures)
        return scope

    def _const(self, graph: Graph, scope: _Scope, name: str, value: Any) -> None:
        node = graph.add_node(Const(value), name)
        node.out_port(0).data.add_name(name)
        scope.values[name] = node.out_port(0)

    def _parameter(self, graph: Graph, scope: _Scope, value: Any) -> None:
        type_proto = value.type
        if type_proto.WhichOneof("value") == "optional_type":  # an optional tensor input is that tensor
            type_proto = type_proto.optional_type.elem_type
        kind = type_proto.WhichOneof("value")
        if kind is None:  # untyped (allowed for body inputs): inference fills it in
            op = Parameter(None, ElementType.dynamic)
        elif kind != "tensor_type":
            raise ConversionError(f"graph input {quoted(value.name)} is a {kind} value; only tensors are supported")
        else:
            elem = type_proto.tensor_type.elem_type
            et = element_type(elem, f"input {quoted(value.name)}") if elem else ElementType.dynamic
            names = dim_params(type_proto) if scope.outer is None else None
            op = Parameter(tensor_shape(type_proto), et, dim_names=names)
        node = graph.add_node(op, value.name)
        node.out_port(0).data.add_name(value.name)
        scope.values[value.name] = node.out_port(0)

    def _extracted(self, domain: str, op_type: str, version: int) -> bool:
        """Whether an installed plugin extracts the op (unknown without a registry: no)."""
        return self.has_extractor is not None and self.has_extractor(domain, op_type, version)

    # ------------------------------------------------------------------ nodes
    def _node(self, graph: Graph, scope: _Scope, node: Any, opsets: dict[str, int]) -> None:
        domain = normalize_domain(node.domain)
        function = self.functions.get((domain, node.op_type))
        version = opsets.get(domain, 1)
        # An installed extractor wins over the model's own function body, as over a schema's.
        if function is not None and not self._extracted(domain, node.op_type, version):
            fn_opsets = {**opsets, **{normalize_domain(o.domain): int(o.version) for o in function.opset_import}}
            self._expand(graph, scope, node, function, fn_opsets)
            return
        if domain not in opsets and domain != "":
            raise ModelFileError(
                f"node {quoted(node.name or node.op_type)} uses domain {quoted(domain)}, which the model does not import"
            )
        if self.has_extractor is not None and not self._extracted(domain, node.op_type, version):
            body = schema_function(node, domain, version, self._type_of)
            if body is not None:
                defaults = schema_defaults(node.op_type, domain, version)
                self._expand(graph, scope, node, body, opsets, defaults)
                return
        inputs: list[OutPort | None] = []
        for name in node.input:
            if name == "":
                inputs.append(None)
                continue
            port = scope.lookup(name)
            if port is None:
                raise ModelFileError(
                    f"node {quoted(node.name or node.op_type)} ({node.op_type}) reads {quoted(name)}, which no earlier node, "
                    "input or initializer produces (the graph must be topologically sorted)"
                )
            inputs.append(port)
        bodies: dict[str, Graph] = {}
        for a in graph_attributes(node):
            body = Graph(f"{node.name or node.op_type}/{a.name}", FRAMEWORK)
            body_scope = self.build(a.g, body, outer=scope)
            bodies[a.name] = body
            inputs.extend(scope.lookup(n) for n in body_scope.captures)
        op_type = sys.intern(node.op_type)  # protobuf makes a new string per read
        name = node.name or f"{op_type}:{node.output[0] if node.output else ''}"
        source = SourceOp(
            framework=FRAMEWORK, op_type=op_type, domain=domain, opset_version=version,
            n_outputs=len(node.output), source=node, bodies=bodies or NO_BODIES,
            attributes=Attributes(node),
        )
        created = graph.add_node(source, name, inputs)
        for idx, out in enumerate(node.output):
            if out:
                created.out_port(idx).data.add_name(out)
                scope.values[out] = created.out_port(idx)

    def _expand(self, graph: Graph, scope: _Scope, node: Any, function: Any, opsets: dict[str, int],
                defaults: dict[str, Any] | None = None) -> None:
        self._expansions += 1
        prefix = f"{node.name or node.op_type}/{self._expansions}"
        for inner in inline_function(node, function, prefix, defaults):
            self._node(graph, scope, inner, opsets)

    # ------------------------------------------------------------------ types
    def _remember_types(self, proto: Any) -> None:
        for value in list(proto.input) + list(proto.value_info) + list(proto.output):
            if value.type.HasField("tensor_type"):
                self.types.setdefault(value.name, value.type)
        if proto.initializer:
            self._initializer_graphs.append(proto)
            self._initializers = None  # indexed again, with this graph's, when next asked

    def _type_of(self, name: str) -> Any | None:
        """A tensor's type: as declared, else an initializer's, else as ONNX infers it."""
        found = self.types.get(name)
        if found is None:
            found = self._initializer_type(name)
        if found is None:
            if not self._inferred:
                self._inferred = True
                self._infer_types()
            found = self._inferred_types.get(name)
        return found

    def _initializer_type(self, name: str) -> Any | None:
        """The type of initializer ``name``, made when first asked for: a TypeProto per
        initializer up front costs ~1.4 KB each, and only function expansion asks."""
        if self._initializers is None:
            self._initializers = {}
            for graph in self._initializer_graphs:
                for tensor in graph.initializer:
                    self._initializers.setdefault(tensor.name, tensor)
        tensor = self._initializers.get(name)
        if tensor is None:
            return None
        from irconv_onnx.proto.onnx_ml_pb2 import TypeProto

        found = TypeProto()
        found.tensor_type.elem_type = tensor.data_type
        found.tensor_type.shape.SetInParent()  # present even for a scalar: rank 0, not unknown
        for d in tensor.dims:
            found.tensor_type.shape.dim.add().dim_value = d
        self.types[name] = found
        return found

    def _infer_types(self) -> None:
        """Run ONNX shape inference once, for context-dependent function bodies.

        Only a model with a schema-defined function op that no extractor handles, and whose
        body depends on types nothing declares, gets here: then the ``onnx`` package's
        shape inference is imported (see ``irconv_onnx.functions``)."""
        from irconv_onnx.functions import infer_value_types

        self._inferred_types.update(infer_value_types(self.model))
