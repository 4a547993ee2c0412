"""An ``ExportedProgram`` (core ATen, see ``irconv_torch.export``) as a graph of torch source ops.

- user inputs become Parameters: a ``torch.export.Dim`` dimension is dynamic, with the
  program's range constraints as its bounds;
- parameters, buffers and tensor constants become Consts holding NumPy views of the
  program's tensors (no copy);
- every call becomes a ``SourceOp`` named by its module path (``layer1.0.conv1``) whose op
  type is the ATen overload (``aten.convolution.default``); its tensor arguments, and the
  symbolic integers of shapes, are inputs, its other arguments attributes;
- a list of integers holding symbolic ones (``view(x, [s0, -1])``) becomes a
  ``prim.ListConstruct`` node, so the shape is computed in the IR and stays reshapeable.
"""

from __future__ import annotations

import operator
from collections import Counter
from typing import Any

from irconv.errors import ConversionError, ModelFileError, quoted
from irconv.graph import Graph, OutPort
from irconv.ops import Const, Parameter, Result, SourceOp
from irconv.types import DimRange, ElementType

from irconv_torch.attributes import FxAttributes, FxNode, InputSlots, Layout
from irconv_torch.tensors import element_type, to_numpy

FRAMEWORK = "torch"
#: The op type of the node a loader makes for a list of integers holding symbolic ones.
LIST_CONSTRUCT = "prim.ListConstruct"


def torch_version_code() -> int:
    """The running torch's version as the extractors' version number: 2.13 -> 213."""
    import torch

    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    return major * 100 + minor


def op_name(target: Any) -> str:
    """The op type of a call's target: ``aten.add.Tensor``, ``mylib.rms_norm.default``,
    ``operator.mul`` (Python arithmetic on symbolic sizes)."""
    if callable(getattr(target, "name", None)) and hasattr(target, "_schema"):
        return str(target)
    module = getattr(target, "__module__", None) or ""
    module = "operator" if module == "_operator" else module
    return f"{module}.{getattr(target, '__name__', str(target))}".lstrip(".")


def in_place_as_value(fx: Any) -> str | None:
    """The out-of-place op type (``aten.add.Tensor``) of an in-place call
    (``aten.add_.Tensor``, ``x += y``, ``ReLU(inplace=True)``) that can be read as a new value
    of its operand, None for any other call.

    That holds when only ``self`` is written and no other tensor can see the write: ``self``
    is computed by a call that is not a view, and no view of it is taken. Every later use of
    ``self`` then reads the new value (the reader rebinds it); anything else needs torch's
    functionalisation (``run_decompositions``)."""
    schema = getattr(fx.target, "_schema", None)
    if schema is None or not schema.is_mutable or not fx.args:
        return None
    written = [a for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]
    if len(written) != 1 or written[0].name != "self" or schema.arguments[0].name != "self":
        return None
    operand = fx.args[0]
    if not _is_node(operand) or operand.op != "call_function" or _is_view(operand):
        return None
    if any(_is_view(user) for user in operand.users if user is not fx):
        return None
    packet, _, overload = str(fx.target).rpartition(".")
    return f"{packet.removesuffix('_')}.{overload}" if packet.endswith("_") else None


def _is_view(fx: Any) -> bool:
    """Whether an FX call returns a view of (an alias into) one of its inputs."""
    schema = getattr(fx.target, "_schema", None)
    return schema is not None and any(r.alias_info is not None for r in schema.returns)


def live_nodes(graph: Any) -> set[Any]:
    """The FX nodes the outputs or a mutation (an in-place op) depend on. Run-time checks
    (``_assert_scalar``, ``_assert_tensor_metadata``) and the size arithmetic only they use
    are left out: nothing of theirs reaches the IR."""
    seeds = [node for node in graph.nodes if node.op == "output" or (
        node.op == "call_function" and getattr(getattr(node.target, "_schema", None), "is_mutable", False))]
    live, pending = set(seeds), list(seeds)
    while pending:
        for source in pending.pop().all_input_nodes:
            if source not in live:
                live.add(source)
                pending.append(source)
    return live


def read_program(program: Any, name: str) -> Graph:
    """The graph of ``program``."""
    return _Reader(program, name).read()


class _Reader:
    def __init__(self, program: Any, name: str) -> None:
        self.program = program
        self.graph = Graph(name, FRAMEWORK)
        self.values: dict[Any, OutPort] = {}
        self.multi: dict[Any, list[OutPort]] = {}  # FX node -> its output ports (tuple results)
        self.version = torch_version_code()
        self.bounds = _symbol_bounds(program)
        self.names = _module_names(program.graph_module.graph)
        self.live = live_nodes(program.graph_module.graph)

    def read(self) -> Graph:
        from torch.export.graph_signature import InputKind

        specs = {spec.arg.name: spec for spec in self.program.graph_signature.input_specs}
        for fx in self.program.graph_module.graph.nodes:
            if fx.op == "placeholder":
                spec = specs[fx.name]
                if spec.kind == InputKind.USER_INPUT:
                    self._user_input(fx)
                elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                    self._weight(fx, spec.target)
                else:
                    raise ConversionError(f"program input {quoted(fx.name)} is a {spec.kind.name.lower()}, "
                                          "which irconv does not convert")
            elif fx.op == "call_function":
                self._call(fx)
            elif fx.op == "get_attr":
                self._weight(fx, str(fx.target))
            elif fx.op == "output":
                self._outputs(fx)
            else:
                raise ConversionError(f"FX node {quoted(fx.name)}: {fx.op} nodes are not supported")
        return self.graph

    # ------------------------------------------------------------------ inputs
    def _user_input(self, fx: Any) -> None:
        value = fx.meta.get("val")
        if not hasattr(value, "shape"):
            raise ConversionError(f"program input {quoted(fx.name)} is a {type(value).__name__}, not a tensor; "
                                  "irconv converts programs whose inputs are tensors")
        shape: list[int | None] = []
        bounds: list[DimRange | None] = []
        names: list[str | None] = []
        for dim in value.shape:
            static = _static_int(dim)
            shape.append(static)
            bounds.append(None if static is not None else self.bounds.get(str(dim)))
            # torch.export gives dims it proved equal one symbol (``s0``), across inputs too
            names.append(str(dim) if static is None and str(dim).isidentifier() else None)
        op = Parameter(tuple(shape), element_type(value.dtype, f"input {quoted(fx.name)}"),
                       bounds=tuple(bounds) if any(bounds) else None, dim_names=tuple(names) if any(names) else None)
        node = self.graph.add_node(op, fx.name)
        node.out_port(0).data.add_name(fx.name)
        self.values[fx] = node.out_port(0)

    def _weight(self, fx: Any, target: str) -> None:
        tensor = self.program.state_dict.get(target)
        if tensor is None:
            tensor = self.program.constants.get(target)
        if tensor is None or not hasattr(tensor, "dtype"):
            raise ModelFileError(f"program input {quoted(fx.name)}: no tensor {quoted(target)} among the program's "
                                 "parameters, buffers and constants")
        node = self.graph.add_node(Const(to_numpy(tensor, f"weight {quoted(target)}")), target)
        self.values[fx] = node.out_port(0)

    # ------------------------------------------------------------------ calls
    def _call(self, fx: Any) -> None:
        if fx.target is operator.getitem and fx.args[0] in self.multi:
            source, index = fx.args
            self.values[fx] = self.multi[source][index]
            return
        if fx not in self.live:
            return
        inputs: list[OutPort | None] = []
        slots: dict[str, InputSlots] = {}
        attributes: dict[str, Any] = {}
        layouts: dict[str, Layout] = {}
        literals: dict[str, tuple[int | None, ...]] = {}
        for arg_name, value, is_tensor_list in _arguments(fx):
            if _is_node(value):
                slots[arg_name] = len(inputs)
                inputs.append(self._port(value))
                layout = _layout(value)
                if layout is not None:
                    layouts[arg_name] = layout
            elif isinstance(value, (list, tuple)) and any(_is_node(v) for v in value):
                if is_tensor_list:
                    slots[arg_name] = tuple(None if v is None else self._slot(v, inputs) for v in value)
                else:
                    slots[arg_name] = len(inputs)
                    inputs.append(self._list_construct(fx, arg_name, value))
                    literals[arg_name] = tuple(v if isinstance(v, int) else None for v in value)
            elif isinstance(value, (list, tuple)) and is_tensor_list:
                slots[arg_name] = tuple(None for _ in value)
            else:
                attributes[arg_name] = _plain(value)
        outputs = _output_types(fx)
        in_place = in_place_as_value(fx)
        info = FxNode(fx.name, in_place or op_name(fx.target), slots, outputs, layouts, _output_ranks(fx), literals)
        source = SourceOp(framework=FRAMEWORK, op_type=info.target, opset_version=self.version,
                          n_outputs=len(outputs), source=info, attributes=FxAttributes(attributes))
        node = self.graph.add_node(source, self.names.get(fx.name, fx.name), inputs)
        ports = [node.out_port(i) for i in range(len(outputs))]
        if isinstance(fx.meta.get("val"), (tuple, list)):
            self.multi[fx] = ports
        else:
            self.values[fx] = ports[0]
        if in_place is not None:
            self.values[fx.args[0]] = ports[0]  # later uses of the operand read the written value

    def _slot(self, value: Any, inputs: list[OutPort | None]) -> int:
        inputs.append(self._port(value))
        return len(inputs) - 1

    def _port(self, fx: Any) -> OutPort:
        port = self.values.get(fx)
        if port is None:
            raise ConversionError(f"FX node {quoted(fx.name)} is used as a single value, but it has several outputs")
        return port

    def _list_construct(self, fx: Any, arg_name: str, values: Any) -> OutPort:
        """A ``prim.ListConstruct`` of the list's symbolic elements; the constant ones are its
        ``template`` attribute (None where an input goes)."""
        template = [None if _is_node(v) else int(v) for v in values]
        inputs = [self._port(v) for v in values if _is_node(v)]
        info = FxNode(f"{fx.name}.{arg_name}", LIST_CONSTRUCT, {"elements": tuple(range(len(inputs)))},
                      (ElementType.i64,))
        source = SourceOp(framework=FRAMEWORK, op_type=LIST_CONSTRUCT, opset_version=self.version, source=info,
                          attributes=FxAttributes({"template": template}))
        name = f"{self.names.get(fx.name, fx.name)}/{arg_name}"
        return self.graph.add_node(source, name, inputs).out_port(0)

    # ------------------------------------------------------------------ outputs
    def _outputs(self, fx: Any) -> None:
        from torch.export.graph_signature import OutputKind

        results = fx.args[0]
        specs = self.program.graph_signature.output_specs
        for spec, value in zip(specs, results, strict=True):
            if spec.kind != OutputKind.USER_OUTPUT:
                continue  # buffer mutations (BatchNorm statistics in training mode) are not outputs
            if not _is_node(value):
                raise ConversionError(f"program output {quoted(spec.arg.name)} is a constant {type(value).__name__}; "
                                      "irconv converts programs whose outputs are computed tensors")
            port = self._port(value)
            port.data.add_name(spec.arg.name)
            self.graph.add_node(Result(), f"{spec.arg.name}/sink", [port])


def _arguments(fx: Any) -> list[tuple[str, Any, bool]]:
    """``(name, value, is a tensor list)`` for each argument of a call, by schema name
    (defaults filled in); Python callables without a schema get ``a``, ``b``, ..."""
    schema = getattr(fx.target, "_schema", None)
    if schema is None:
        return [(chr(ord("a") + i), value, False) for i, value in enumerate(fx.args)]
    found = []
    for index, argument in enumerate(schema.arguments):
        if index < len(fx.args) and not argument.kwarg_only:
            value = fx.args[index]
        elif argument.name in fx.kwargs:
            value = fx.kwargs[argument.name]
        elif argument.has_default_value():
            value = argument.default_value
        else:
            value = None
        found.append((argument.name, value, _is_tensor_list(argument.type)))
    return found


def _is_tensor_list(kind: Any) -> bool:
    """Whether a schema type is ``Tensor[]`` or ``Tensor?[]``."""
    import torch

    return isinstance(kind, torch.ListType) and "Tensor" in str(kind.getElementType())


def _is_node(value: Any) -> bool:
    """Whether an argument is another FX node's result (a run-time value)."""
    from torch.fx import Node

    return isinstance(value, Node)


def _layout(fx: Any) -> Layout | None:
    """The strides and storage offset of the tensor node ``fx`` produces, when torch
    recorded them as numbers."""
    import torch

    value = fx.meta.get("val")
    if not isinstance(value, torch.Tensor):
        return None
    strides, offset = tuple(value.stride()), value.storage_offset()
    if not isinstance(offset, int) or not all(isinstance(n, int) for n in strides):
        return None  # symbolic
    return strides, offset


def _plain(value: Any) -> Any:
    """An attribute value as plain Python: dtypes as element type names, enums as text."""
    import torch

    if isinstance(value, torch.dtype):
        return element_type(value).value
    if isinstance(value, (torch.device, torch.layout, torch.memory_format)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    static = _static_int(value)
    if static is not None:
        return static
    return value


def _output_types(fx: Any) -> tuple[ElementType | None, ...]:
    value = fx.meta.get("val")
    values = value if isinstance(value, (tuple, list)) else (value,)
    return tuple(_value_type(v) for v in values)


def _output_ranks(fx: Any) -> tuple[int | None, ...]:
    value = fx.meta.get("val")
    values = value if isinstance(value, (tuple, list)) else (value,)
    return tuple(len(v.shape) if hasattr(v, "shape") else None for v in values)


def _value_type(value: Any) -> ElementType | None:
    import torch

    if isinstance(value, torch.Tensor):
        return element_type(value.dtype)
    if isinstance(value, (torch.SymInt, int)) and not isinstance(value, bool):
        return ElementType.i64
    if isinstance(value, (torch.SymFloat, float)):
        return ElementType.f32
    if isinstance(value, (torch.SymBool, bool)):
        return ElementType.boolean
    return None


def _static_int(dim: Any) -> int | None:
    """A dimension's value when it is a plain integer, None when it is symbolic."""
    if isinstance(dim, int):
        return dim
    node = getattr(dim, "node", None)
    if node is not None and hasattr(node, "maybe_as_int"):
        found = node.maybe_as_int()
        return None if found is None else int(found)
    return None


def _symbol_bounds(program: Any) -> dict[str, DimRange]:
    """Each dynamic dimension's symbol -> ``(min, max)`` (max None when unbounded); the
    default range torch gives a dimension without bounds is left out (plain dynamic)."""
    found: dict[str, DimRange] = {}
    for symbol, limits in program.range_constraints.items():
        lower, upper = limits.lower, limits.upper
        top = None if not getattr(upper, "is_finite", True) or str(upper) in ("oo", "int_oo") else int(upper)
        low = int(lower) if getattr(lower, "is_finite", True) else 0
        if top is None and low <= 2:
            continue
        found[str(symbol)] = (low, top)
    return found


def _module_names(graph: Any) -> dict[str, str]:
    """FX node name -> the IR name: the module path of the node (``layer1.0.conv1``) when
    it is the only call in that module, ``<path>/<FX name>`` otherwise."""
    paths: dict[str, str] = {}
    for fx in graph.nodes:
        if fx.op != "call_function" or fx.target is operator.getitem:
            continue
        stack = fx.meta.get("nn_module_stack")
        if stack:
            path = list(stack.values())[-1][0]
            if path and not path.startswith("_empty_nn_module_stack"):  # torch's placeholder for "no module"
                paths[fx.name] = path
    counts = Counter(paths.values())
    return {name: path if counts[path] == 1 else f"{path}/{name}" for name, path in paths.items()}
