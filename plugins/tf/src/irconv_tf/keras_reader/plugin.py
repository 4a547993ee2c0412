"""Hook implementations of the Keras reader: its layer extractors (framework ``keras``).

The ``.keras`` loader itself is irconv-tf's (``irconv_tf.keras``), which tries this
reader first and TensorFlow when the file is outside what the reader knows.
"""

from __future__ import annotations

from collections.abc import Sequence

from irconv.plugins import Extractor, hookimpl

from irconv_tf.keras_reader import FRAMEWORK


@hookimpl
def extract_op(framework: str | None) -> Sequence[Extractor]:
    if framework not in (None, FRAMEWORK):
        return []
    from irconv_tf.keras_reader.extractors import all_extractors

    return all_extractors()
