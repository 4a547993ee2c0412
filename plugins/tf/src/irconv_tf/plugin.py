"""Hook implementations of irconv-tf: the TensorFlow loader and extractors.

Nothing here imports TensorFlow: graphs are parsed with the vendored protobuf schemas;
only Keras files need the optional ``tensorflow`` package.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irconv import Option
from irconv.plugins import Extractor, Loader, Transform, hookimpl

if TYPE_CHECKING:
    from irconv import LoadContext
    from irconv.graph import Graph

from irconv_tf import FRAMEWORK


def _load(path: Path, ctx: LoadContext) -> Graph:
    # The GraphDef parser and its protobuf schemas are imported only when a model is read.
    from irconv_tf.loaders import load

    return load(path, ctx)


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_tf.options import OPTIONS

    return OPTIONS


@hookimpl
def load_model() -> Sequence[Loader]:
    from irconv_tf.sniff import SUFFIXES, sniff

    return [
        Loader(
            framework=FRAMEWORK,
            load=_load,
            suffixes=SUFFIXES,
            sniff=sniff,
            aliases=("tensorflow", "keras"),
            description="TensorFlow frozen GraphDef (.pb/.pbtxt), SavedModel directory, MetaGraph (.meta), Keras (.keras/.h5)",
        )
    ]


@hookimpl
def extract_op(framework: str | None) -> Sequence[Extractor]:
    from irconv.frontend import extractors_of

    return extractors_of(framework, FRAMEWORK, "irconv_tf.extractors")


@hookimpl
def middle_transform() -> Sequence[Transform]:
    from irconv_tf.transforms.grouped_convolution import GroupedConvolution

    return [GroupedConvolution()]


@hookimpl
def verify_model() -> Sequence[object]:
    """TensorFlow as the reference for ``irconv convert --verify`` (see irconv_tf.verify)."""
    from irconv_tf.verify import VERIFIER

    return [VERIFIER]


@hookimpl
def back_transform() -> Sequence[Transform]:
    from irconv_tf.transforms.empty_tensors import EmptyTensors

    return [EmptyTensors()]
