"""Read a ``.keras`` file into a graph of layer source ops, or say why TensorFlow should.

What the reader cannot stand behind is ``NotReadable`` (the caller then lets TensorFlow
read the file): a layer class without an extractor, a dtype policy other than float32,
masks, activations outside Keras' named functions, call arguments beyond the neutral ones.
A config value of the wrong form is the user's error, named by layer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irconv import LoadContext
from irconv.errors import ModelFileError, shortened
from irconv.graph import Graph
from irconv.ops import SourceOp

from irconv_tf.keras_reader import FRAMEWORK
from irconv_tf.keras_reader.archive import NotReadable, open_archive
from irconv_tf.keras_reader.extractors.activation_functions import known
from irconv_tf.keras_reader.extractors.recurrent import SEQUENCE_ACTIVATIONS
from irconv_tf.keras_reader.model import KerasLayer, build_graph

#: Call arguments whose value changes nothing at inference, with that value.
_NEUTRAL_CALL = {
    "mask": None,
    "training": (None, False),
    "use_causal_mask": False,
    "return_attention_scores": False,
    "initial_state": None,
}
_ACTIVATION_KEYS = ("activation", "recurrent_activation")
_RECURRENT = ("LSTM", "GRU", "SimpleRNN")
#: Tensors a layer call may take by keyword (MultiHeadAttention's); masks are not followed.
_TENSOR_KEYWORDS = ("query", "value", "key")
#: Keras' "an integer or a tuple of integers" arguments.
_INT_TUPLES = ("kernel_size", "strides", "dilation_rate", "pool_size", "size", "output_padding")


def read_keras(path: Path, ctx: LoadContext) -> Graph:
    archive = open_archive(path)
    try:
        graph = build_graph(archive, path.stem)
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
        # a config in another shape than Keras 3 writes: Keras itself says what is wrong
        raise NotReadable(f"config.json in an unexpected form ({type(exc).__name__}: {exc})") from exc
    for node in graph.nodes():
        op = node.op
        if isinstance(op, SourceOp) and op.framework == FRAMEWORK:
            _check_layer(op, path, ctx)
    return graph


def _check_layer(op: SourceOp, path: Path, ctx: LoadContext) -> None:
    record: KerasLayer = op.source
    where = f"layer {shortened(repr(record.name))} ({record.class_name})"
    if not ctx.has_extractor(FRAMEWORK, "", record.class_name, 1):
        raise NotReadable(f"{where}: no extractor for this layer class")
    attributes = op.attributes
    assert attributes is not None
    config = {name: attributes.get(name) for name in attributes.names()}
    _check_values(config, where, record.class_name)
    for argument in record.arguments:
        if not argument.isdigit() and argument not in _TENSOR_KEYWORDS:
            raise NotReadable(f"{where}: called with a tensor as {shortened(repr(argument))}")
    for name, value in config.items():
        if name in _INT_TUPLES and value is not None and not _int_or_ints(value):
            raise ModelFileError(
                f"Keras cannot read {path}: {where}: {name} must be an integer or a list of integers, found {shortened(repr(value))}"
            )
    for name, value in record.call.items():
        neutral = _NEUTRAL_CALL.get(name, ())
        if name not in _NEUTRAL_CALL or value not in (neutral if isinstance(neutral, tuple) else (neutral,)):
            raise NotReadable(f"{where}: called with {name}={shortened(repr(value))}")


def _check_values(config: dict[str, Any], where: str, class_name: str) -> None:
    """Activations, dtype policies, masks and recurrent state, in the layer's config and in
    the configs of the layers it wraps (Bidirectional)."""
    dtype = config.get("dtype")
    policy = dtype.get("config", {}).get("name") if isinstance(dtype, dict) else dtype
    if policy not in (None, "float32"):
        raise NotReadable(f"{where}: dtype policy {shortened(repr(policy))}")
    if config.get("mask_zero"):
        raise NotReadable(f"{where}: masks (mask_zero)")
    for key in _ACTIVATION_KEYS:
        if key in config and not known(config[key]):
            raise NotReadable(f"{where}: activation {shortened(repr(config[key]))}")
    if class_name in _RECURRENT:
        if config.get("stateful"):
            raise NotReadable(f"{where}: a stateful recurrent layer")
        for key in _ACTIVATION_KEYS:
            if key in config and config[key] not in SEQUENCE_ACTIVATIONS:
                raise NotReadable(f"{where}: {key} {shortened(repr(config[key]))} in a recurrent layer")
    for value in config.values():
        if isinstance(value, dict) and isinstance(value.get("config"), dict) and value.get("class_name") in _RECURRENT:
            _check_values(value["config"], where, value["class_name"])


def _int_or_ints(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
