"""Loaders: frozen GraphDef (.pb/.pbtxt), SavedModel directory, MetaGraph + checkpoint, Keras files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from irconv import LoadContext
from irconv.errors import ConversionError, ModelFileError, UserError, quoted, shortened_quotes
from irconv.graph import Graph

from irconv_tf.build import Endpoint, build_graph, consumed_nodes, default_outputs
from irconv_tf.checkpoint import Checkpoint
from irconv_tf.control_flow import BODY_ATTRS, add_initial_conditions, body_graph
from irconv_tf.dtypes import DT_STRING, base_dtype, numpy_dtype
from irconv_tf.inline import Flattener, parse_graph_input
from irconv_tf.keras import freeze_keras, read_without_tensorflow
from irconv_tf.nodes import TFNode, keep_as_input, reachable
from irconv_tf.options import FREEZE_PLACEHOLDER_WITH_DEFAULT, SAVED_MODEL_TAGS, SIGNATURE, split_tags
from irconv_tf.sniff import SUFFIXES as SUFFIXES  # re-exported: they lived here
from irconv_tf.sniff import sniff as sniff
from irconv_tf.tensors import shape_of
from irconv_tf.tf1_control_flow import functionalize
from irconv_tf.variables import VARIABLE_OPS, bound_variable_keys, resolve_variables
from irconv_tf.wire import without_large_constants


def load(path: Path, ctx: LoadContext) -> Graph:
    if path.name in ("saved_model.pb", "saved_model.pbtxt"):
        path = path.parent  # the SavedModel's own file: convert the directory
    if path.is_dir():
        return load_saved_model(path, ctx)
    suffix = path.suffix.lower()
    if suffix in (".keras", ".h5"):
        graph = read_without_tensorflow(path, ctx)
        if graph is not None:
            return graph
        frozen = freeze_keras(path, ctx)
        return graph_from_frozen_def(ctx, frozen.graph_def, path.stem, frozen.outputs, frozen.names)
    if suffix == ".meta":
        return load_meta_graph(path, ctx)
    return load_frozen(path, ctx)


def _parse(message: Any, path: Path) -> Any:
    data = path.read_bytes()
    try:
        if path.suffix.lower() in (".pbtxt", ".txt"):
            from google.protobuf import text_format

            text_format.Parse(data.decode("utf-8"), message, allow_unknown_field=True)
        else:
            message.ParseFromString(data)
    except Exception as exc:
        raise _parse_error(path, type(message).__name__, exc) from exc
    return message


def _parse_error(path: Path, kind: str, exc: Exception) -> ModelFileError:
    """One line naming the file (and, for a text file, the line and column protobuf stopped
    at); the text protobuf quotes from the file is cut (a truncated ``tensor_content`` string
    would otherwise be quoted whole)."""
    line, column = getattr(exc, "GetLine", lambda: None)(), getattr(exc, "GetColumn", lambda: None)()
    reason = f"{type(exc).__name__}: {exc}"
    if line is not None:  # protobuf's text parser starts its message with "line:column : "
        path_text = f"{path}:{line}:{column}" if column is not None else f"{path}:{line}"
        return ModelFileError(f"{path_text}: not a valid {kind} text file: {shortened_quotes(str(exc).split(' : ', 1)[-1])}")
    return ModelFileError(f"{path} is not a valid {kind} ({shortened_quotes(reason)})")


def load_frozen(path: Path, ctx: LoadContext) -> Graph:
    from irconv_tf.proto import graph_pb2

    mapped = _parse_leaving_weights_on_disk(path)
    graph_def, values = mapped if mapped is not None else (_parse(graph_pb2.GraphDef(), path), {})
    if not graph_def.node:
        raise ModelFileError(f"{path} holds no graph nodes: is it a TensorFlow GraphDef?")
    return _graph_from_def(ctx, graph_def, None, None, path.stem, constants=values)


def _parse_leaving_weights_on_disk(path: Path) -> tuple[Any, dict[str, np.ndarray]] | None:
    """A binary GraphDef parsed without its large constants, which become arrays mapped
    from the file (``wire``); None when the file does not lend itself to that."""
    import mmap

    from irconv_tf.proto import graph_pb2

    if path.suffix.lower() in (".pbtxt", ".txt") or not path.is_file():
        return None
    with open(path, "rb") as stream:
        try:
            mapping = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return None
    with memoryview(mapping) as view:
        found = without_large_constants(view)
    if found is None:
        mapping.close()
        return None
    rebuilt, where = found
    values: dict[str, np.ndarray] = {}
    for name, tensor in where.items():
        try:
            dtype = numpy_dtype(tensor.dtype).newbyteorder("<")
        except ConversionError:
            return None  # the ordinary path reports it where the node is used
        count = math.prod(tensor.shape)
        if dtype.hasobject or count * dtype.itemsize != tensor.length:
            return None
        values[name] = np.frombuffer(mapping, dtype, count, tensor.offset).reshape(tensor.shape)
    graph_def = graph_pb2.GraphDef()
    try:
        graph_def.ParseFromString(rebuilt)
    except Exception as exc:
        raise ModelFileError(f"{path} is not a valid GraphDef ({type(exc).__name__}: {exc})") from exc
    return graph_def, values


def load_meta_graph(path: Path, ctx: LoadContext) -> Graph:
    """A MetaGraph; its checkpoint is ``--weights PREFIX`` or the file's own prefix."""
    from irconv_tf.proto import saved_model_pb2

    meta = _parse(saved_model_pb2.MetaGraphDef(), path)
    prefix = ctx.options.weights or path.with_suffix("")
    checkpoint = Checkpoint(Path(prefix)) if Path(f"{prefix}.index").exists() else None
    signature = _signature(meta, ctx, str(path), required=False)
    return _graph_from_def(ctx, meta.graph_def, checkpoint, signature, path.stem, meta=meta)


def load_saved_model(path: Path, ctx: LoadContext) -> Graph:
    from irconv_tf.proto import saved_model_pb2

    pb = path / "saved_model.pb"
    saved = _parse(saved_model_pb2.SavedModel(), pb if pb.is_file() else path / "saved_model.pbtxt")
    meta = _pick_meta_graph(saved, ctx, path)
    signature = _signature(meta, ctx, str(path), required=True)
    prefix = path / "variables" / "variables"
    checkpoint = Checkpoint(prefix) if Path(f"{prefix}.index").exists() else None
    return _graph_from_def(ctx, meta.graph_def, checkpoint, signature, path.name, meta=meta)


def _pick_meta_graph(saved: Any, ctx: LoadContext, path: Path) -> Any:
    tags: tuple[str, ...] = ctx.options.get(SAVED_MODEL_TAGS)
    given = split_tags(tags)
    wanted = set(given) or {"serve"}
    available = [sorted(m.meta_info_def.tags) for m in saved.meta_graphs]
    for meta in saved.meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    if not given and len(saved.meta_graphs) == 1:
        return saved.meta_graphs[0]
    raise UserError(
        f"SavedModel {path} has no MetaGraph tagged {sorted(wanted)} (available: {available}); "
        "choose one with --saved-model-tags"
    )


def _signature(meta: Any, ctx: LoadContext, where: str, *, required: bool) -> Any:
    chosen = ctx.options.get(SIGNATURE)
    name = chosen or "serving_default"
    if name in meta.signature_def:
        return meta.signature_def[name]
    if not required and not chosen:
        return None
    available = ", ".join(sorted(k for k in meta.signature_def if not k.startswith("__"))) or "none"
    raise UserError(f"model {where} has no signature {quoted(name)} (available: {available}); choose one with --signature")


def graph_from_frozen_def(ctx: LoadContext, graph_def: Any, name: str, outputs: list[str], names: list[str]) -> Graph:
    """A frozen GraphDef whose outputs are the given tensors (``node:port``), named ``names``."""
    return _graph_from_def(ctx, graph_def, None, None, name, (outputs, names))


def _graph_from_def(
    ctx: LoadContext,
    graph_def: Any,
    checkpoint: Checkpoint | None,
    signature: Any,
    name: str,
    explicit: tuple[list[str], list[str]] | None = None,
    meta: Any = None,
    constants: dict[str, np.ndarray] | None = None,
) -> Graph:
    nodes, flattener = _flat_nodes(graph_def)
    for node_name, value in (constants or {}).items():  # Consts whose bytes stayed in the file
        if node_name in nodes and nodes[node_name].op == "Const":
            nodes[node_name].value = value
    inputs: list[Endpoint]
    if explicit is not None:
        inputs = []
        outputs = []
        for tensor_name, alias in zip(*explicit, strict=True):
            tensor = parse_graph_input(tensor_name)
            assert tensor is not None
            outputs.append(Endpoint(flattener.resolve(tensor), [alias, tensor_name]))
    elif signature is not None:
        inputs, outputs = _signature_endpoints(signature, flattener)
    else:
        inputs = []
        outputs = default_outputs(nodes, consumed_nodes(nodes, flattener.control_sources))
        if not outputs:
            raise ModelFileError(f"graph {quoted(name)} has no output: every node's result is consumed")
    needed = set(reachable(nodes, [ep.tensor for ep in outputs]))
    if _placeholders_with_default(nodes, needed, ctx):
        needed = set(reachable(nodes, [ep.tensor for ep in outputs]))
    variables = [n for n in needed if nodes[n].op in VARIABLE_OPS]
    if variables and checkpoint is None and signature is None:
        raise ModelFileError(
            f"graph {quoted(name)} is not frozen: it reads {len(variables)} variable(s) such as {quoted(variables[0])}; "
            "freeze it (convert_variables_to_constants_v2) or convert the SavedModel directory instead"
        )
    bound = bound_variable_keys(meta, checkpoint) if meta is not None and checkpoint is not None else None
    resolve_variables(nodes, checkpoint, needed, bound)
    return build_graph(nodes, inputs, outputs, name, bodies=_bodies(nodes, needed, flattener))


def _flat_nodes(graph_def: Any) -> tuple[dict[str, TFNode], Flattener]:
    """The graph's node table with library calls inlined, then TF1 frames and conds
    raised to functional While/If (whose bodies join the flattener's functions)."""
    node_defs = list(graph_def.node)
    flattener = Flattener(graph_def.library if graph_def.HasField("library") else None)
    flattener.add_graph(node_defs)
    nodes = flattener.finish()
    controls = {nd.name: [s[1:] for s in nd.input if s.startswith("^")] for nd in node_defs}
    functionalize(nodes, flattener.functions, controls)
    add_initial_conditions(nodes, flattener)
    return nodes, flattener


def _placeholders_with_default(nodes: dict[str, TFNode], needed: set[str], ctx: LoadContext) -> bool:
    """Keep each PlaceholderWithDefault a model input (a value the user feeds must count),
    or, with ``--freeze-placeholder-with-default``, let it fold into its default. Either way
    the notes name them. Returns True when the graph's inputs changed."""
    # string defaults (a TF1 saver's filename) are never model data: they stay folded
    found = sorted(
        n
        for n in needed
        if nodes[n].op == "PlaceholderWithDefault" and base_dtype(nodes[n].get("dtype", 1)) != DT_STRING
    )
    if not found:
        return False
    listed = ", ".join(found)
    if ctx.options.get(FREEZE_PLACEHOLDER_WITH_DEFAULT):
        ctx.note(f"PlaceholderWithDefault frozen to its default value: {listed}")
        return False
    for name in found:
        keep_as_input(nodes, nodes[name])
    ctx.note(
        f"PlaceholderWithDefault kept as model input(s), their defaults dropped: {listed} "
        "(--freeze-placeholder-with-default folds them into their defaults)"
    )
    return True


def _signature_endpoints(signature: Any, flattener: Flattener) -> tuple[list[Endpoint], list[Endpoint]]:
    inputs = []
    for key in sorted(signature.inputs):
        info = signature.inputs[key]
        tensor = parse_graph_input(info.name)
        assert tensor is not None
        shape = shape_of(info.tensor_shape) if info.HasField("tensor_shape") else None
        inputs.append(Endpoint(flattener.resolve(tensor), [key], shape, info.HasField("tensor_shape")))
    outputs = []
    for key in sorted(signature.outputs):
        tensor = parse_graph_input(signature.outputs[key].name)
        assert tensor is not None
        outputs.append(Endpoint(flattener.resolve(tensor), [key]))
    return inputs, outputs


def _bodies(nodes: dict[str, TFNode], needed: set[str], flattener: Flattener) -> dict[str, dict[str, Graph]]:
    """Sub-graphs of functional control flow (While/If), built from their functions."""
    result: dict[str, dict[str, Graph]] = {}
    for name in needed:
        node = nodes[name]
        attrs = BODY_ATTRS.get(node.op)
        if attrs:
            result[name] = {attr: body_graph(flattener.functions, node.need(attr), f"{name}/{attr}") for attr in attrs}
    return result
