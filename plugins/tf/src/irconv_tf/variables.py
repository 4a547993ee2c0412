"""Which checkpoint key holds each variable, read from the graph's own restore ops.

Every saved graph restores its variables with ``RestoreV2(prefix, tensor_names, ...)``
followed by ``AssignVariableOp(handle, value)`` (TF2, often inside the inlined restore
function) or ``Assign(ref, value)`` (TF1). Following those edges maps each variable node
to its key without TensorFlow's object-graph machinery.
"""

from __future__ import annotations

from typing import Any

from irconv.errors import ModelFileError, quoted

from irconv_tf.checkpoint import Checkpoint
from irconv_tf.inline import CALL_OPS, parse_graph_input
from irconv_tf.nodes import Tensor, TFNode

VARIABLE_OPS = frozenset({"VarHandleOp", "VariableV2", "Variable"})
_PASS_THROUGH = frozenset({"Identity", "IdentityN"})


def _trace(nodes: dict[str, TFNode], tensor: Tensor) -> Tensor:
    for _ in range(1000):
        node = nodes.get(tensor[0])
        if node is None or node.op not in _PASS_THROUGH:
            return tensor
        tensor = node.inputs[tensor[1] if node.op == "IdentityN" else 0]
    return tensor


def variable_keys(nodes: dict[str, TFNode]) -> dict[str, str]:
    """{variable node name: checkpoint key}."""
    keys: dict[str, str] = {}
    for node in nodes.values():
        if node.op not in ("AssignVariableOp", "Assign") or len(node.inputs) < 2:
            continue
        var = _trace(nodes, node.inputs[0])[0]
        src, port = _trace(nodes, node.inputs[1])
        restore = nodes.get(src)
        if restore is None or restore.op != "RestoreV2" or nodes.get(var) is None:
            continue
        names_node = nodes.get(_trace(nodes, restore.inputs[1])[0])
        if names_node is None or names_node.op != "Const":
            continue
        names = names_node.need("value")
        keys[var] = names.reshape(-1)[port].decode()
    return keys


OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def bound_variable_keys(meta: Any, checkpoint: Checkpoint) -> dict[str, str]:
    """{variable node name: checkpoint key} through the TF2 object graphs.

    A SavedModel's function captures variables as trailing call inputs; the saved object
    graph lists, per concrete function, the object ids bound to them, and the checkpoint's
    own object graph (same ids) gives each variable object's checkpoint key.
    """
    from irconv_tf.proto import object_graph_pb2

    functions = meta.object_graph_def.concrete_functions
    if not functions or OBJECT_GRAPH_KEY not in checkpoint.entries:
        return {}
    try:
        trackable = object_graph_pb2.TrackableObjectGraph.FromString(checkpoint.read_string(OBJECT_GRAPH_KEY))
    except ModelFileError:
        raise
    except Exception as exc:
        raise ModelFileError(f"checkpoint {checkpoint.prefix}: the object graph is corrupt ({exc})") from exc
    key_of_object = {
        i: a.checkpoint_key
        for i, obj in enumerate(trackable.nodes)
        for a in obj.attributes
        if a.name == "VARIABLE_VALUE"
    }
    keys: dict[str, str] = {}
    for nd in meta.graph_def.node:
        if nd.op not in CALL_OPS or nd.attr["f"].func.name not in functions:
            continue
        bound = list(functions[nd.attr["f"].func.name].bound_inputs)
        if not bound:
            continue
        inputs = [t for t in (parse_graph_input(s) for s in nd.input) if t is not None]
        for (source, _), object_id in zip(inputs[-len(bound) :], bound, strict=False):
            if object_id in key_of_object:
                keys.setdefault(source, key_of_object[object_id])
    return keys


def resolve_variables(
    nodes: dict[str, TFNode], checkpoint: Checkpoint | None, needed: set[str], bound: dict[str, str] | None = None
) -> None:
    """Give every needed variable node its checkpoint value; reads become identities."""
    variables = [n for n in needed if nodes[n].op in VARIABLE_OPS]
    if not variables:
        return
    if checkpoint is None:
        raise ModelFileError(
            f"the graph reads {len(variables)} variable(s) (e.g. {quoted(variables[0])}) but no checkpoint was found; "
            "freeze the graph or convert the SavedModel directory / MetaGraph with its checkpoint"
        )
    keys = {**variable_keys(nodes), **(bound or {})}
    for name in variables:
        key = keys.get(name)
        if key is None:
            # TF1 graphs often name the checkpoint entry after the variable node itself.
            shared = nodes[name].get("shared_name") or name
            key = shared if shared in checkpoint.entries else name
        nodes[name].value = checkpoint.read(key)
        nodes[name].inputs = []
    for node in nodes.values():
        if node.op == "ReadVariableOp":
            node.op = "Identity"
