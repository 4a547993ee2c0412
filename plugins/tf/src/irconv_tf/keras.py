"""Keras model files (.keras, .h5).

A ``.keras`` file is read by irconv's own reader (``irconv_tf.keras_reader``: the zip's
config and HDF5 weights, no TensorFlow). What that reader does not cover (a Lambda layer, a
custom object, a layer class without an extractor, a mixed-precision policy) and legacy
``.h5`` files go to TensorFlow, which traces and freezes the model into a GraphDef that the
frozen-graph path of ``loaders`` then converts.

This is the only place irconv-tf imports TensorFlow (the ``irconv-tf[keras]`` extra).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irconv import LoadContext
from irconv.errors import ModelFileError, UserError, shortened
from irconv.graph import Graph

from irconv_tf.options import KERAS_ALLOW_UNSAFE


@dataclass(frozen=True)
class FrozenKeras:
    """A Keras model as a frozen GraphDef: its output tensors (``node:port``) and their names."""

    graph_def: Any
    outputs: list[str]
    names: list[str]


def read_without_tensorflow(path: Path, ctx: LoadContext) -> Graph | None:
    """The ``.keras`` file as a graph of Keras layers, or None (with a note saying why) when
    only TensorFlow can read it."""
    if path.suffix.lower() != ".keras":
        return None
    from irconv_tf.keras_reader.archive import NotReadable
    from irconv_tf.keras_reader.reader import read_keras

    try:
        return read_keras(path, ctx)
    except NotReadable as exc:
        ctx.note(f"{path.name} is read through TensorFlow ({exc})")
        return None


def freeze_keras(path: Path, ctx: LoadContext) -> FrozenKeras:
    # TensorFlow's C++ start-up logs (CPU features, absl) would be stray stderr lines around
    # irconv's own; the user's setting wins.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        import tensorflow as tf
        from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    except ImportError:
        raise UserError(
            f"{path} is a Keras file: reading it needs TensorFlow (pip install 'irconv-tf[keras]'), "
            "or save the model as a SavedModel directory, which converts without TensorFlow"
        ) from None
    from irconv_tf.proto import graph_pb2

    allow_unsafe = ctx.options.get(KERAS_ALLOW_UNSAFE)
    try:
        # safe_mode keeps Keras from running code stored in the file (Lambda layers): a
        # model file is untrusted input unless the user says otherwise.
        model = tf.keras.models.load_model(str(path), compile=False, safe_mode=not allow_unsafe)
    except Exception as exc:
        text = str(exc)
        if not allow_unsafe and ("safe_mode" in text or "Lambda" in text or "lambda" in text):
            raise ModelFileError(
                f"{path} holds Python code (a Lambda layer or a custom object) that Keras would have to run "
                "to load it; irconv does not run code from a model file unless asked: if you trust this file, "
                "convert it with --keras-allow-unsafe-deserialization"
            ) from None
        raise ModelFileError(f"Keras cannot read {path}: {keras_error_line(exc)}") from exc
    specs = [tf.TensorSpec(t.shape, t.dtype, name=t.name.split(":")[0]) for t in model.inputs]
    function = tf.function(lambda *xs: model(list(xs) if len(xs) > 1 else xs[0], training=False))
    concrete = function.get_concrete_function(*specs)
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = graph_pb2.GraphDef.FromString(frozen.graph.as_graph_def().SerializeToString())
    outputs = [t.name for t in frozen.outputs]
    names = [getattr(o, "name", f"output_{i}") for i, o in enumerate(model.outputs)]
    return FrozenKeras(graph_def, outputs, names)


_NESTED = "Exception encountered:"
_LAYER_NAME = re.compile(r"'name': '([^']+)'")
_LAYER_CLASS = re.compile(r"(?:deserializing class|'class_name':) '([^']+)'")


def keras_error_line(exc: BaseException) -> str:
    """Keras' deserialization error as one line: the innermost cause, and the layer it is
    about (Keras nests one "Exception encountered:" paragraph per level of its config, each
    with advice on writing ``from_config``, which is no help to someone converting a file)."""
    text = str(exc)
    parts = text.split(_NESTED)
    cause = " ".join(parts[-1].split()) or type(exc).__name__
    if len(parts) == 1:
        return f"{type(exc).__name__}: {cause}"
    context = parts[-2]
    names, classes = _LAYER_NAME.findall(context), _LAYER_CLASS.findall(context)
    where = f"layer {shortened(repr(names[0]))}" if names else "a layer"
    if classes:
        where += f" ({classes[0]})"
    return f"{where}: {cause}"
