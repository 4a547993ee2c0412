"""A StableHLO module (jax.export's program) read into irconv's graph.

The module is parsed with the MLIR bindings that ship in jaxlib; every ``stablehlo.*`` (and
``chlo.*``) operation of the public ``main`` becomes one ``SourceOp`` of framework ``jax``
named by its operation name, with its attributes as plain Python values. Calls to private
functions are inlined, ``stablehlo.constant`` becomes a Const, the regions of ``while`` and
``case`` become the node's body graphs (with the values they capture as extra inputs), and
the shape assertions jax.export adds for symbolic dimensions (side effects only) are left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from irconv.errors import NAME_LIMIT, ModelFileError, shortened
from irconv.graph import Graph, OutPort
from irconv.ops import Const, MappingAttributes, Parameter, Result, SourceOp
from irconv.types import ElementType

FRAMEWORK = "jax"

_ELEMENT_TYPES = {
    "f64": ElementType.f64, "f32": ElementType.f32, "f16": ElementType.f16, "bf16": ElementType.bf16,
    "i1": ElementType.boolean, "i8": ElementType.i8, "i16": ElementType.i16, "i32": ElementType.i32,
    "i64": ElementType.i64, "ui8": ElementType.u8, "ui16": ElementType.u16, "ui32": ElementType.u32,
    "ui64": ElementType.u64, "index": ElementType.i64,
}

#: properties of every MLIR attribute, not fields of StableHLO's dimension numbers
_NOT_FIELDS = {"context", "type", "typeid"}

#: custom calls jax.export adds to check symbolic dimensions at run time; they have no results.
_ASSERTIONS = {"shape_assertion"}


@dataclass(frozen=True)
class TensorType:
    """A StableHLO tensor type: dims (None where dynamic) and irconv's element type."""

    shape: tuple[int | None, ...]
    element_type: ElementType


@dataclass(frozen=True)
class HloOp:
    """The framework node hung on each SourceOp: the operation's name, its result types (a
    reshape's target, a convert's element type) and, for ops with a reducer region
    (``reduce``, ``reduce_window``), the operations of that region."""

    name: str
    results: tuple[TensorType, ...]
    body: tuple[str, ...] = field(default=())
    #: the comparison directions of the region's ``compare`` ops, in order (an argmax's GT)
    body_directions: tuple[str, ...] = field(default=())


def read_module(text: str, name: str, has_extractor: Callable[[str], bool]) -> Graph:
    """The graph of the StableHLO module ``text`` (its textual or generic form);
    ``has_extractor(op)`` says whether an installed extractor converts a jax op."""
    from jax.interpreters.mlir import make_ir_context
    from jaxlib.mlir import ir

    # jax's context has the dialects a jax program uses (func, stablehlo, chlo, ...) loaded
    with make_ir_context(), ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except Exception as error:  # the bindings raise MLIRError or ValueError
            raise ModelFileError(f"{shortened(name, NAME_LIMIT)}: not a readable StableHLO module: "
                                 f"{shortened(str(error).splitlines()[0])}") from None
        return _Reader(module, name, has_extractor).graph


class _Scope:
    """Where a block's values are read to: a graph and the ports of the MLIR values read so far.

    A region of ``while``/``case`` may use values of the enclosing blocks. Read into the same
    graph (a ``while`` condition on the initial values) such a value is the enclosing
    scope's port; read into a body graph it becomes a body Parameter, the enclosing value
    listed in ``captured`` (the control-flow node's extra input), or a copy of a constant.
    """

    def __init__(self, reader: _Reader, graph: Graph, parent: _Scope | None) -> None:
        self.reader = reader
        self.graph = graph
        self.parent = parent
        self.ports: dict[Any, OutPort] = {}
        self.captured: list[Any] = []

    def port(self, value: Any) -> OutPort:
        found = self.ports.get(value)
        if found is not None:
            return found
        if self.parent is None:
            raise ModelFileError(f"{shortened(self.reader.graph.name, NAME_LIMIT)}: a value is used outside the "
                                 "function defining it")
        if self.parent.graph is self.graph:
            return self.parent.port(value)
        constant = self.reader.constant_of(value)
        if constant is not None:
            node = self.graph.add_node(Const(constant), self.reader.name("", "constant"))
        else:
            self.captured.append(value)
            tensor = _tensor_type(value.type)
            node = self.graph.add_node(Parameter(tensor.shape, tensor.element_type),
                                       self.reader.name("", f"capture{len(self.captured) - 1}"))
        self.ports[value] = node.out_port(0)
        return node.out_port(0)


class _Reader:
    def __init__(self, module: Any, name: str, has_extractor: Callable[[str], bool]) -> None:
        self.has_extractor = has_extractor
        self.functions = {_symbol(op): op for op in module.body.operations if op.operation.name == "func.func"}
        self.graph = Graph(name, FRAMEWORK)
        self.names: dict[str, int] = {}
        #: constants read so far, by MLIR value: a body using one gets its own Const of it
        self.constants: dict[Any, np.ndarray] = {}
        main = self.functions.get("main")
        if main is None:
            raise ModelFileError(f"{shortened(name, NAME_LIMIT)}: the StableHLO module has no 'main' function")
        block = main.regions[0].blocks[0]
        scope = _Scope(self, self.graph, None)
        for index, argument in enumerate(block.arguments):
            tensor = _tensor_type(argument.type)
            node = self.graph.add_node(Parameter(tensor.shape, tensor.element_type), f"input{index}")
            node.out_port(0).data.add_name(f"input{index}")
            scope.ports[argument] = node.out_port(0)
        for index, port in enumerate(self._block(block, scope, "")):
            port.data.add_name(f"output{index}")
            self.graph.add_node(Result(), f"output{index}/sink", [port])

    def _block(self, block: Any, scope: _Scope, prefix: str) -> list[OutPort]:
        """Adds the operations of ``block`` (its arguments already in ``scope``) and returns
        the ports its ``return`` gives back."""
        for op in block.operations:
            kind = op.operation.name
            inputs = [scope.port(operand) for operand in op.operands]
            if kind in ("func.return", "stablehlo.return"):
                return inputs
            if kind == "stablehlo.composite" and self.has_extractor(_string(op.attributes["name"])):
                outputs = self._source_op(op, _string(op.attributes["name"]), inputs, scope.graph, prefix)
            elif kind in ("func.call", "stablehlo.composite"):
                key = "callee" if kind == "func.call" else "decomposition"
                callee = _flat_symbol(op.attributes[key])
                outputs = self._call(self.functions[callee].regions[0].blocks[0], inputs,
                                     _Scope(self, scope.graph, None), f"{prefix}{callee}/")
            elif kind == "stablehlo.custom_call" and _string(op.attributes["call_target_name"]) in _ASSERTIONS:
                continue
            elif kind == "stablehlo.constant":
                node = scope.graph.add_node(Const(self._constant(op)), self.name(prefix, "constant"))
                outputs = [node.out_port(0)]
            elif kind == "stablehlo.while":
                outputs = self._while(op, inputs, scope, prefix)
            elif kind == "stablehlo.case":
                outputs = self._case(op, inputs, scope, prefix)
            else:
                outputs = self._source_op(op, kind, inputs, scope.graph, prefix)
            scope.ports.update(zip(op.results, outputs, strict=True))
        raise ModelFileError(f"{shortened(self.graph.name, NAME_LIMIT)}: a function of the module does not end "
                             "with a return")

    def _call(self, block: Any, inputs: list[OutPort], scope: _Scope, prefix: str) -> list[OutPort]:
        """``block`` read into ``scope`` with its arguments bound to ``inputs``."""
        scope.ports.update(zip(block.arguments, inputs, strict=True))
        return self._block(block, scope, prefix)

    def _parameters(self, body: _Scope, block: Any, prefix: str) -> list[OutPort]:
        ports = []
        for index, argument in enumerate(block.arguments):
            tensor = _tensor_type(argument.type)
            node = body.graph.add_node(Parameter(tensor.shape, tensor.element_type), self.name(prefix, f"arg{index}"))
            ports.append(node.out_port(0))
        return ports

    def _while(self, op: Any, inputs: list[OutPort], scope: _Scope, prefix: str) -> list[OutPort]:
        """A ``while`` as one ``stablehlo.while`` node whose body graph runs the loop body
        and then the condition on its results (OpenVINO's Loop checks its condition after
        each iteration); the condition on the initial values is read into this graph and
        given as the node's last input. Inputs: the carried values, the values the body
        captures, the initial condition; body Results: the carried values, the condition."""
        cond, body_region = op.regions[0].blocks[0], op.regions[1].blocks[0]
        name = self.name(prefix, "while")
        (initial,) = self._call(cond, inputs, _Scope(self, scope.graph, scope), f"{name}/cond/")
        body = _Scope(self, Graph(name, FRAMEWORK), scope)
        parameters = self._parameters(body, body_region, f"{name}/")
        carried = self._call(body_region, parameters, body, f"{name}/body/")
        (again,) = self._call(cond, carried, _Scope(self, body.graph, body), f"{name}/body/cond/")
        for index, port in enumerate([*carried, again]):
            body.graph.add_node(Result(), self.name(f"{name}/", f"result{index}"), [port])
        captured = [scope.port(value) for value in body.captured]
        return self._control_op(op, "stablehlo.while", [*inputs, *captured, initial], {"body": body.graph},
                                scope.graph, name, {"captures": [len(captured)]})

    def _case(self, op: Any, inputs: list[OutPort], scope: _Scope, prefix: str) -> list[OutPort]:
        """A ``case`` as one ``stablehlo.case`` node with a body graph per branch
        (``branch0``, ...), each with the values it captures as its Parameters. Inputs: the
        index, then each branch's captures in branch order (``captures`` counts them)."""
        name = self.name(prefix, "case")
        bodies: dict[str, Graph] = {}
        counts: list[int] = []
        captured: list[OutPort] = []
        for index, region in enumerate(op.regions):
            branch = _Scope(self, Graph(f"{name}/branch{index}", FRAMEWORK), scope)
            returned = self._block(region.blocks[0], branch, f"{name}/branch{index}/")
            for position, port in enumerate(returned):
                branch.graph.add_node(Result(), self.name(f"{name}/branch{index}/", f"result{position}"), [port])
            bodies[f"branch{index}"] = branch.graph
            counts.append(len(branch.captured))
            captured += [scope.port(value) for value in branch.captured]
        return self._control_op(op, "stablehlo.case", [*inputs, *captured], bodies, scope.graph, name,
                                {"captures": counts})

    def _control_op(self, op: Any, kind: str, inputs: list[OutPort], bodies: dict[str, Graph], graph: Graph,
                    name: str, attributes: dict[str, Any]) -> list[OutPort]:
        results = tuple(_tensor_type(result.type, strict=False) for result in op.results)
        source = SourceOp(framework=FRAMEWORK, op_type=kind, n_outputs=len(results), source=HloOp(kind, results),
                          bodies=bodies, attributes=MappingAttributes(attributes))
        node = graph.add_node(source, name, inputs)
        ports = [node.out_port(i) for i in range(len(results))]
        for i, port in enumerate(ports):
            port.data.add_name(name if i == 0 else f"{name}:{i}")
        return ports

    def _source_op(self, op: Any, kind: str, inputs: list[OutPort], graph: Graph, prefix: str) -> list[OutPort]:
        results = tuple(_tensor_type(result.type, strict=False) for result in op.results)
        inner_ops = [inner for region in op.regions for block in region.blocks for inner in block.operations
                     if inner.operation.name != "stablehlo.return"]
        body = tuple(inner.operation.name for inner in inner_ops)
        directions = tuple(_plain(inner.attributes["comparison_direction"]) for inner in inner_ops
                           if inner.operation.name == "stablehlo.compare")
        attributes = {key: _plain(op.attributes[key]) for key in op.attributes}
        # a composite kept whole: its own attributes are those of the op it names
        attributes.update(attributes.pop("composite_attributes", None) or {})
        # a custom call is keyed by its target too, as a plugin would extract it
        domain = str(attributes.get("call_target_name", "")) if kind == "stablehlo.custom_call" else ""
        source = SourceOp(framework=FRAMEWORK, op_type=kind, domain=domain, n_outputs=len(results),
                          source=HloOp(kind, results, body, directions), attributes=MappingAttributes(attributes))
        name = self.name(prefix, kind.split(".")[-1])
        node = graph.add_node(source, name, inputs)
        ports = [node.out_port(i) for i in range(len(results))]
        for i, port in enumerate(ports):
            port.data.add_name(name if i == 0 else f"{name}:{i}")
        return ports

    def _constant(self, op: Any) -> np.ndarray:
        value = _constant(op.attributes["value"])
        self.constants[op.results[0]] = value
        return value

    def constant_of(self, value: Any) -> np.ndarray | None:
        """The value of a ``stablehlo.constant``'s result already read, else None."""
        return self.constants.get(value)

    def name(self, prefix: str, stem: str) -> str:
        """A node name unique in the module: ``prefix`` + ``stem``, numbered from the second use."""
        key = f"{prefix}{stem}"
        count = self.names.get(key, 0)
        self.names[key] = count + 1
        return key if count == 0 else f"{key}_{count}"


def _symbol(op: Any) -> str:
    return _string(op.attributes["sym_name"])


def _string(attr: Any) -> str:
    return str(attr.value)


def _flat_symbol(attr: Any) -> str:
    return str(attr.value)


def _tensor_type(mlir_type: Any, strict: bool = True) -> TensorType:
    """The type of a value; a result of an element type irconv has not (complex) is typed
    dynamic unless ``strict``, so that its op is reported with the other unsupported ones."""
    from jaxlib.mlir import ir

    if not isinstance(mlir_type, ir.RankedTensorType):
        raise ModelFileError(f"a value of type {shortened(str(mlir_type))} (only ranked tensors are read)")
    ranked = mlir_type
    shape = tuple(None if ir.ShapedType.is_dynamic_size(d) else int(d) for d in ranked.shape)
    name = str(ranked.element_type)
    if not strict and name not in _ELEMENT_TYPES:
        return TensorType(shape, ElementType.dynamic)
    return TensorType(shape, _element_type(name))


def _element_type(name: str) -> ElementType:
    if name not in _ELEMENT_TYPES:
        raise ModelFileError(f"an input or constant of element type {shortened(name, NAME_LIMIT)}: not supported "
                             f"(supported: {', '.join(_ELEMENT_TYPES)})")
    return _ELEMENT_TYPES[name]


def _constant(attr: Any) -> np.ndarray:
    """A dense elements attribute's value (a splat filled out to its shape)."""

    dense = attr
    tensor = _tensor_type(dense.type)
    dtype = _numpy_dtype(tensor.element_type)
    shape = tuple(int(d or 0) for d in tensor.shape)
    if tensor.element_type is ElementType.bf16:
        return _bf16_constant(str(dense), shape)
    if dense.is_splat:
        return np.full(shape, _plain(dense.get_splat_value()), dtype)
    if tensor.element_type is ElementType.boolean:
        return np.asarray([bool(dense[i]) for i in range(len(dense))]).reshape(shape)
    return np.asarray(np.array(dense), dtype).reshape(shape)


def _numpy_dtype(element_type: ElementType) -> Any:
    return np.bool_ if element_type is ElementType.boolean else element_type.numpy


_HEX_ELEMENTS = re.compile(r'dense<"0x([0-9A-Fa-f]*)">')
_NUMBER = re.compile(r"0x[0-9A-Fa-f]+|[-+]?(?:inf|nan|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def _bf16_constant(text: str, shape: tuple[int, ...]) -> np.ndarray:
    """A bf16 dense attribute read from its printed form (the bindings give no buffer for
    bf16): little-endian hex of every element, or the numbers (hex codes for NaNs), which
    f32 holds exactly and rounds back to the same bf16 codes."""
    from irconv import narrow_float

    found = _HEX_ELEMENTS.search(text)
    if found is not None:
        codes = np.frombuffer(bytes.fromhex(found.group(1)), "<u2")
    else:
        body = text[text.index("<") + 1: text.rindex(">")].rsplit(":", 1)[0]
        tokens = _NUMBER.findall(body)
        values = [int(t, 16) if t.startswith("0x") else int(np.float32(t).view(np.uint32)) >> 16 for t in tokens]
        codes = np.asarray(values, np.uint16)
    if codes.size == 1:
        codes = np.full(shape, codes[0], np.uint16)
    return narrow_float.from_bits(codes.reshape(shape), ElementType.bf16)


def _plain(attr: Any) -> Any:
    """An MLIR attribute as the plain Python value extractors read through ``ctx.attrs``."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    if isinstance(attr, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr, ir.DenseBoolArrayAttr)):
        return list(attr)
    if isinstance(attr, ir.DenseElementsAttr):
        return _constant(attr)
    if isinstance(attr, (ir.BoolAttr, ir.IntegerAttr, ir.FloatAttr, ir.StringAttr)):
        return attr.value
    if isinstance(attr, ir.ArrayAttr):
        return [_plain(item) for item in attr]
    if isinstance(attr, ir.DictAttr):
        return {attr[i].name: _plain(attr[i].attr) for i in range(len(attr))}
    if stablehlo.ComparisonDirectionAttr.isinstance(attr):
        return str(stablehlo.ComparisonDirectionAttr(attr).value)
    if stablehlo.ComparisonTypeAttr.isinstance(attr):
        return str(stablehlo.ComparisonTypeAttr(attr).value)
    for numbers in (stablehlo.ConvDimensionNumbers, stablehlo.DotDimensionNumbers, stablehlo.GatherDimensionNumbers,
                    stablehlo.ScatterDimensionNumbers):
        if numbers.isinstance(attr):
            typed = numbers(attr)
            fields = [key for key in dir(numbers) if not key.startswith("_") and key not in _NOT_FIELDS
                      and isinstance(getattr(numbers, key), property)]
            return {key: _plain_field(getattr(typed, key)) for key in fields}
    return str(attr)


def _plain_field(value: Any) -> Any:
    return [int(v) for v in value] if isinstance(value, Iterable) else int(value)
