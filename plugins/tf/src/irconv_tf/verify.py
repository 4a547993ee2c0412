"""The TensorFlow reference for ``irconv convert --verify``: the model run by TensorFlow itself.

Frozen GraphDefs run in a v1 session (outputs: the tensors of the graph's sink nodes, or the
``--output`` cut), SavedModels through the converted signature, Keras files through the model.
TensorFlow is imported only when a model is verified.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irconv.errors import UserError, quoted
from irconv.plugins import Verifier

from irconv_tf.options import SAVED_MODEL_TAGS, SIGNATURE, split_tags

#: Ops whose outputs are never model outputs, even when nothing consumes them.
_NOT_OUTPUTS = {"NoOp", "Const", "Placeholder", "PlaceholderWithDefault", "Assert", "SaveV2", "RestoreV2"}


def run_tensorflow(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    """Outputs of ``path`` by tensor name, computed by TensorFlow on the CPU."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    suffix = path.suffix.lower()
    if path.is_dir():
        return _run_saved_model(path, inputs, options)
    if suffix in (".keras", ".h5"):
        return _run_keras(path, inputs)
    if suffix in (".pb", ".pbtxt"):
        return _run_frozen(path, inputs, list(options.outputs))
    raise UserError(f"--verify runs frozen GraphDefs, SavedModels and Keras files, not {path.name}")


def _run_frozen(path: Path, inputs: Mapping[str, Any], outputs: list[str]) -> dict[str, Any]:
    import tensorflow as tf
    from google.protobuf import text_format

    graph_def = tf.compat.v1.GraphDef()
    if path.suffix.lower() == ".pbtxt":
        text_format.Parse(path.read_text(), graph_def)
    else:
        graph_def.ParseFromString(path.read_bytes())
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    if outputs:
        fetches = [graph.get_tensor_by_name(n if ":" in n else f"{n}:0") for n in outputs]
    else:
        consumed = {t.op.name for op in graph.get_operations() for t in op.inputs}
        fetches = [
            t
            for op in graph.get_operations()
            if op.name not in consumed and op.type not in _NOT_OUTPUTS
            for t in op.outputs
        ]
    feed = {}
    for name, value in inputs.items():
        tensor_name = name if ":" in name else f"{name}:0"
        try:
            feed[graph.get_tensor_by_name(tensor_name)] = value
        except (KeyError, ValueError):
            continue  # an input the IR has but the graph names differently: OpenVINO-only
    with tf.compat.v1.Session(graph=graph) as session:
        values = session.run(fetches, feed)
    return {t.name: v for t, v in zip(fetches, values, strict=True)}


def _run_saved_model(path: Path, inputs: Mapping[str, Any], options: Any) -> dict[str, Any]:
    import tensorflow as tf

    tags = sorted(split_tags(options.get(SAVED_MODEL_TAGS))) or None
    loaded = tf.saved_model.load(str(path), tags=tags)
    name = options.get(SIGNATURE) or "serving_default"
    function = loaded.signatures[name]
    wanted = function.structured_input_signature[1]
    kwargs = {key: tf.constant(inputs[key]) for key in wanted if key in inputs}
    result = function(**kwargs)
    return {key: value.numpy() for key, value in sorted(result.items())}


def _run_keras(path: Path, inputs: Mapping[str, Any]) -> dict[str, Any]:
    import tensorflow as tf

    model = tf.keras.models.load_model(str(path), compile=False)
    values = []
    for tensor in model.inputs:
        name = tensor.name.split(":")[0]
        if name not in inputs:
            raise UserError(f"--verify: no value for Keras input {quoted(name)} (have {sorted(inputs)})")
        values.append(inputs[name])
    result = model(values if len(values) > 1 else values[0], training=False)
    results = result if isinstance(result, (list, tuple)) else [result]
    names = [t.name.split(":")[0] for t in model.outputs]
    return {name: tf.convert_to_tensor(r).numpy() for name, r in zip(names, results, strict=True)}


VERIFIER = Verifier(
    framework="tf",
    run_reference=run_tensorflow,
    requires=("tensorflow",),
    install="tensorflow-cpu",
    description="TensorFlow (frozen graphs, SavedModels, Keras files)",
)
