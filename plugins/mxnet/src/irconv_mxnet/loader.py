"""Building an irconv graph from an MXNet symbol and its parameters.

Variables (``op: "null"``) found in the parameters become Consts (names with or without
the ``arg:``/``aux:`` prefixes ``HybridBlock.export`` writes); the others are data inputs
and become Parameters, shaped by ``--input`` (MXNet symbols carry no shapes; a variable's
``__shape__`` attribute is used when complete). The label input of a training loss
(``SoftmaxOutput``'s ``softmax_label``) is not a model input: it is left unconnected.
Every other node becomes a ``SourceOp`` with its attribute strings parsed; a ``Custom``
op carries its ``op_type`` as the domain, so extractors are keyed on it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from irconv import LoadContext
from irconv.errors import ModelFileError, UserError, quoted
from irconv.graph import Graph, MetaKey, OutPort
from irconv.graph.budget import PORT_BYTES, declared_size
from irconv.ops import Const, MappingAttributes, Parameter, Result, SourceOp
from irconv.types import ElementType, MaybeShape

from irconv_mxnet.attr_values import as_tuple, parse_attrs, parse_value
from irconv_mxnet.files import resolve_files
from irconv_mxnet.ndarray_file import DTYPES, read_ndarray_file
from irconv_mxnet.options import EPOCH
from irconv_mxnet.symbol_file import Symbol, SymbolNode, read_symbol

FRAMEWORK = "mxnet"
CUSTOM_OP = "Custom"

#: The MXNet version that wrote the symbol (``attrs.mxnet_version``), when recorded.
MXNET_VERSION: MetaKey[int] = MetaKey("mxnet.version", int)

#: Training-only label inputs of loss layers: (op, input index).
LABEL_INPUTS = {
    "SoftmaxOutput": 1,
    "Softmax": 1,
    "LinearRegressionOutput": 1,
    "LogisticRegressionOutput": 1,
    "MAERegressionOutput": 1,
    "SVMOutput": 1,
}

_PREFIXES = ("arg:", "aux:")


def load_mxnet(path: Path, ctx: LoadContext) -> Graph:
    """The ``Loader.load`` of the mxnet plugin."""
    symbol_path, params_path = resolve_files(path, ctx.options.weights, ctx.options.get(EPOCH))
    symbol = read_symbol(symbol_path)
    params: dict[str, np.ndarray] = {}
    if params_path is not None:
        params = read_params(params_path)
    elif _variables_needing_values(symbol, ctx):
        missing = ", ".join(_variables_needing_values(symbol, ctx)[:4])
        raise ModelFileError(
            f"no parameters file beside {symbol_path.name} (expected "
            f"{symbol_path.name.removesuffix('-symbol.json')}-0000.params) and no --input shape for the "
            f"variables {missing}: give the parameters with --weights (and input shapes with --input)"
        )
    graph = build_graph(symbol, params, symbol_path, ctx)
    if params_path is not None:
        unused = sorted(set(params) - _consumed_names(symbol))
        if unused:
            ctx.note(f"{len(unused)} parameter(s) in {params_path.name} are not used by the symbol: {', '.join(unused[:5])}")
    return graph


def read_params(path: Path) -> dict[str, np.ndarray]:
    """The parameters by variable name (``arg:``/``aux:`` prefixes removed)."""
    contents = read_ndarray_file(path)
    if contents.arrays and not contents.names:
        raise ModelFileError(f"{path} holds {len(contents.arrays)} unnamed arrays: MXNet parameters are named")
    params: dict[str, np.ndarray] = {}
    for name, array in contents.named().items():
        key = name[4:] if name.startswith(_PREFIXES) else name
        if array is not None:
            params[key] = array
    return params


def _consumed_names(symbol: Symbol) -> set[str]:
    names = set()
    for node in symbol.nodes:
        for source, _ in node.inputs:
            names.add(symbol.nodes[source].name)
    return names


def _data_variables(symbol: Symbol, params: dict[str, np.ndarray]) -> list[SymbolNode]:
    """Variables that are model inputs: consumed (not as a loss label) and not parameters."""
    used: dict[int, None] = {}
    for node in symbol.nodes:
        label = LABEL_INPUTS.get(node.op)
        for i, (source, _) in enumerate(node.inputs):
            if i != label:
                used[source] = None
    for source, _ in symbol.heads:
        used[source] = None
    return [
        symbol.nodes[i]
        for i in sorted(used)
        if symbol.nodes[i].is_variable and symbol.nodes[i].name not in params
    ]


def _variables_needing_values(symbol: Symbol, ctx: LoadContext) -> list[str]:
    given = {spec.name for spec in ctx.options.inputs}
    data = _data_variables(symbol, {})
    if len(data) == 1 and "" in given:
        return []
    return [v.name for v in data if v.name not in given and _declared_shape(v) is None]


def build_graph(symbol: Symbol, params: dict[str, np.ndarray], symbol_path: Path, ctx: LoadContext) -> Graph:
    name = symbol_path.name.removesuffix("-symbol.json").removesuffix(".json")
    graph = Graph(name, FRAMEWORK)
    if symbol.mxnet_version is not None:
        graph.meta[MXNET_VERSION] = symbol.mxnet_version
    data = _data_variables(symbol, params)
    ports: dict[int, list[OutPort]] = {}
    for index, variable in enumerate(data):
        parameter = graph.add_node(_parameter(variable, index, len(data), ctx), variable.name)
        parameter.out_port(0).data.add_name(variable.name)
        ports[variable.index] = [parameter.out_port(0)]

    def port_of(source: int, output: int, consumer: SymbolNode) -> OutPort:
        if source not in ports:
            variable = symbol.nodes[source]
            assert variable.is_variable  # op nodes are added before their consumers
            const = graph.add_node(Const(params[variable.name]), variable.name)
            const.out_port(0).data.add_name(variable.name)
            ports[source] = [const.out_port(0)]
        outputs = ports[source]
        if output >= len(outputs):
            raise ModelFileError(
                f"{symbol_path}: {consumer.describe()} reads output {output} of "
                f"{symbol.nodes[source].describe()}, which has {len(outputs)}"
            )
        return outputs[output]

    counts = _output_counts(symbol)
    read = {entry for node in symbol.nodes for entry in node.inputs} | set(symbol.heads)
    for node in symbol.nodes:
        if node.is_variable:
            continue
        label = LABEL_INPUTS.get(node.op)
        inputs = [port_of(s, o, node) for i, (s, o) in enumerate(node.inputs) if i != label]
        attributes = parse_attrs(node.attrs)
        domain = node.attrs.get("op_type", "") if node.op == CUSTOM_OP else ""  # raw text, never parsed
        op = SourceOp(
            framework=FRAMEWORK,
            op_type=node.op,
            domain=domain,
            n_outputs=counts[node.index],
            source=node,
            attributes=MappingAttributes(attributes),
        )
        added = graph.add_node(op, node.name, inputs)
        outputs = [added.out_port(i) for i in range(counts[node.index])]
        outputs[0].data.add_name(node.name)
        if len(outputs) > 1:
            # Hidden outputs (BatchNorm's statistics) stay unnamed unless something reads them.
            for i, port in enumerate(outputs):
                if (node.index, i) in read:
                    port.data.add_name(f"{node.name}_output{i}")
        ports[node.index] = outputs

    for source, output in symbol.heads:
        head = symbol.nodes[source]
        port = port_of(source, output, head)
        if counts[source] == 1 and not head.is_variable:
            port.data.add_name(f"{head.name}_output")
        graph.add_node(Result(), f"{head.name}/sink" if output == 0 else f"{head.name}_output{output}/sink", [port])
    return graph


def _output_counts(symbol: Symbol) -> list[int]:
    """Outputs per node: from ``node_row_ptr``, else the highest output anyone reads."""
    if symbol.output_counts is not None:
        counts = [max(c, 1) for c in symbol.output_counts]
        field = "output count (node_row_ptr)"
    else:
        counts = [1] * len(symbol.nodes)
        for node in symbol.nodes:
            for source, output in node.inputs:
                counts[source] = max(counts[source], output + 1)
        for source, output in symbol.heads:
            counts[source] = max(counts[source], output + 1)
        field = "output count (highest output index read + 1)"
    # each output becomes a graph port: the counts are sizes the file declares
    for node, count in zip(symbol.nodes, counts, strict=True):
        declared_size(count, field=field, where=node.describe(), unit_bytes=PORT_BYTES)
    declared_size(sum(counts), field="total output count", where="the symbol", unit_bytes=PORT_BYTES)
    return counts


def _declared_shape(variable: SymbolNode) -> tuple[int, ...] | None:
    """A variable's ``__shape__`` when every dimension is known (MXNet writes 0 for unknown)."""
    text = variable.attrs.get("__shape__")
    if text is None:
        return None
    shape = as_tuple(parse_value(text))
    if not shape or any(not isinstance(d, int) or d <= 0 for d in shape):
        return None
    return tuple(shape)


def _parameter(variable: SymbolNode, index: int, count: int, ctx: LoadContext) -> Parameter:
    spec = ctx.options.input_override(variable.name, index, count)
    shape: MaybeShape = spec.shape if spec is not None and spec.shape is not None else _declared_shape(variable)
    if shape is None:
        raise UserError(
            f"the MXNet model input {quoted(variable.name)} has no shape (MXNet symbols do not store input "
            f"shapes): give it with --input {variable.name}[1,3,224,224] (your dimensions; ? for a dynamic one)"
        )
    element_type = ElementType.f32
    dtype_flag = variable.attrs.get("__dtype__")
    if dtype_flag is not None and dtype_flag.strip().lstrip("-").isdigit() and int(dtype_flag) in DTYPES:
        element_type = ElementType.from_numpy(DTYPES[int(dtype_flag)])
    if spec is not None and spec.element_type is not None:
        element_type = spec.element_type
    return Parameter(shape, element_type)
