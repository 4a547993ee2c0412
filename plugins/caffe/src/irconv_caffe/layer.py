"""A Caffe layer as the loader hands it to extractors: its prototxt parameters and blobs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from irconv.errors import ConversionError, quoted
from irconv.graph.budget import check_weight_bytes

from irconv_caffe.caffemodel import Blob
from irconv_caffe.proto import caffe_pb2 as pb

#: ``None`` in an expected blob shape: any size (not known from the prototxt alone).
ExpectedShape = Sequence[int | None]


@dataclass
class CaffeLayer:
    """``param`` comes from the prototxt; ``blobs`` from the caffemodel (None: no entry)."""

    param: pb.LayerParameter
    blobs: list[Blob] | None
    weights_path: Path | None = None
    #: Parameter blocks the schema does not declare (custom layers), as plain values.
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.param.name

    @property
    def type(self) -> str:
        return self.param.type

    def describe(self) -> str:
        return f"layer {quoted(self.name)} ({self.type})"

    def blob_count(self) -> int:
        return len(self.blobs or ())

    def require_blobs(self, count: int) -> None:
        """Fail with one clear message when the caffemodel lacks this layer's weights."""
        have = self.blob_count()
        if have >= count:
            return
        source = f"the caffemodel {self.weights_path}" if self.weights_path else "the caffemodel"
        if self.blobs is None:
            raise ConversionError(
                f"{self.describe()}: {source} has no weights for this layer; "
                "check that the caffemodel was trained from this prototxt (layers are matched by name)"
            )
        raise ConversionError(f"{self.describe()}: {source} holds {have} blob(s) for this layer, expected {count}")

    def blob(self, index: int, expected: ExpectedShape) -> np.ndarray:
        """Blob ``index`` as an array of the ``expected`` shape (a view of the file).

        A legacy 4-D blob (V1 models: ``1 x 1 x out x in``) is accepted when dropping
        its leading ones gives the expected shape. Any other disagreement is an error
        naming the layer and both shapes.
        """
        self.require_blobs(index + 1)
        assert self.blobs is not None
        blob = self.blobs[index]
        shape = blob.shape
        check_weight_bytes(f"{self.describe()}: blob {index}", shape, blob.data.itemsize, blob.data.nbytes)
        candidate = shape
        if blob.legacy and len(shape) > len(expected):
            extra = len(shape) - len(expected)
            if all(d == 1 for d in shape[:extra]):
                candidate = shape[extra:]
        if len(candidate) == len(expected) and all(
            e is None or e == d for e, d in zip(expected, candidate, strict=True)
        ):
            return blob.data.reshape(candidate)
        want = "x".join("?" if e is None else str(e) for e in expected)
        raise ConversionError(
            f"{self.describe()}: the caffemodel's blob {index} has shape {'x'.join(map(str, shape))} "
            f"but the prototxt implies {want}; the caffemodel does not match this prototxt"
        )

    def flat_blob(self, index: int, count: int | None = None) -> np.ndarray:
        """Blob ``index`` as a 1-D array (of ``count`` values when given)."""
        self.require_blobs(index + 1)
        assert self.blobs is not None
        data = self.blobs[index].data
        if count is not None and data.size != count:
            raise ConversionError(
                f"{self.describe()}: the caffemodel's blob {index} has {data.size} values "
                f"({'x'.join(map(str, self.blobs[index].shape))}) but the prototxt implies {count}"
            )
        return data.reshape(-1)
