"""The TF plugin's conversion options (declared through ``declare_options``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from irconv import Option

SAVED_MODEL_TAGS: Option[tuple[str, ...]] = Option(
    "tf.saved_model_tags",
    str,
    default=(),
    multiple=True,
    flag="--saved-model-tags",
    keyword="saved_model_tags",
    metavar="TAG[,TAG...]",
    help="tags of the SavedModel MetaGraph to convert, comma-separated or repeated (default: serve)",
)
SIGNATURE: Option[str | None] = Option(
    "tf.signature",
    str,
    default=None,
    flag="--signature",
    keyword="signature",
    help="SavedModel signature to convert (default: serving_default)",
)
FREEZE_PLACEHOLDER_WITH_DEFAULT: Option[bool] = Option(
    "tf.freeze_placeholder_with_default",
    bool,
    default=False,
    flag="--freeze-placeholder-with-default",
    keyword="freeze_placeholder_with_default",
    help="fold every PlaceholderWithDefault into its default value (default: keep it as a model input)",
)
KERAS_ALLOW_UNSAFE: Option[bool] = Option(
    "tf.keras_allow_unsafe_deserialization",
    bool,
    default=False,
    flag="--keras-allow-unsafe-deserialization",
    keyword="keras_allow_unsafe_deserialization",
    help="let Keras run the Python code a .keras/.h5 file carries (Lambda layers, custom objects) "
    "while loading it: only for files you trust (default: refused)",
)
OPTIONS: tuple[Option[Any], ...] = (SAVED_MODEL_TAGS, SIGNATURE, FREEZE_PLACEHOLDER_WITH_DEFAULT, KERAS_ALLOW_UNSAFE)


def split_tags(values: Iterable[str]) -> frozenset[str]:
    """``("serve,gpu", "tpu")`` -> {"serve", "gpu", "tpu"}: both spellings users write."""
    return frozenset(tag.strip() for value in values for tag in value.split(",") if tag.strip())
