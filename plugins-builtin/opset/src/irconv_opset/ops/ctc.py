"""CTC greedy decoding: CTCGreedyDecoder-1 and CTCGreedyDecoderSeqLen-6.

Per sequence, the best class of every time step; repeated classes may be merged and the
blank class is dropped; outputs are padded with -1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from irconv.ops import Op, attr
from irconv.types import ElementType

from irconv_opset.shapes import in_shape, in_type, set_output

if TYPE_CHECKING:
    from irconv.graph import Node


def _greedy(scores: np.ndarray, length: int, blank: int, merge: bool) -> list[int]:
    """Decode one sequence of ``[T, C]`` scores over its first ``length`` steps."""
    decoded: list[int] = []
    previous = -1
    for t in range(length):
        best = int(np.argmax(scores[t]))
        if best != blank and not (merge and best == previous):
            decoded.append(best)
        previous = best
    return decoded


@dataclass(eq=False)
class CTCGreedyDecoder(Op):
    """Inputs data [T, N, C] and sequence mask [T, N]; output [N, T, 1, 1] of class indices.
    The blank class is the last one."""

    type = "CTCGreedyDecoder"
    version = 1

    ctc_merge_repeated: bool = attr(True)

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        set_output(node, 0, None if shape is None else (shape[1], shape[0], 1, 1), in_type(node, 0))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, mask = np.asarray(inputs[0]), np.asarray(inputs[1])
        time, batch, classes = data.shape
        out = np.full((batch, time, 1, 1), -1, dtype=data.dtype)
        for b in range(batch):
            length = 0
            while length < time and mask[length, b] != 0:
                length += 1
            decoded = _greedy(data[:, b], length, classes - 1, self.ctc_merge_repeated)
            out[b, : len(decoded), 0, 0] = decoded
        return [out]


@dataclass(eq=False)
class CTCGreedyDecoderSeqLen(Op):
    """Inputs data [N, T, C], sequence_length [N], optional blank_index (default C - 1).
    Outputs the decoded classes [N, T] and their counts [N]."""

    type = "CTCGreedyDecoderSeqLen"
    version = 6
    outputs = 2

    merge_repeated: bool = attr(True)
    classes_index_type: ElementType = attr(ElementType.i32)
    sequence_length_type: ElementType = attr(ElementType.i32)

    def infer(self, node: Node) -> None:
        shape = in_shape(node, 0)
        set_output(node, 0, None if shape is None else (shape[0], shape[1]), self.classes_index_type)
        set_output(node, 1, None if shape is None else (shape[0],), self.sequence_length_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, lengths = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
        batch, time, classes = data.shape
        blank = int(np.asarray(inputs[2]).reshape(-1)[0]) if len(inputs) > 2 else classes - 1
        out = np.full((batch, time), -1, dtype=self.classes_index_type.numpy)
        counts = np.zeros(batch, dtype=self.sequence_length_type.numpy)
        for b in range(batch):
            decoded = _greedy(data[b], min(int(lengths[b]), time), blank, self.merge_repeated)
            out[b, : len(decoded)] = decoded
            counts[b] = len(decoded)
        return [out, counts]


OPS: tuple[type[Op], ...] = (CTCGreedyDecoder, CTCGreedyDecoderSeqLen)
