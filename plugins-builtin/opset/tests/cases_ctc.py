"""Cases for CTC greedy decoding, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv.types import ElementType
from irconv_opset import CTCGreedyDecoder, CTCGreedyDecoderSeqLen
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(20)


def repetitive_scores(*shape: int) -> np.ndarray:
    """Scores whose best class often repeats over time and is often the blank (last) class."""
    scores = rng.standard_normal(shape).astype(np.float32)
    scores[..., -1] += 0.8
    return scores


def mask(time: int, lengths: list[int]) -> np.ndarray:
    return (np.arange(time)[:, None] < np.array(lengths)[None, :]).astype(np.float32)


CASES: list[OpCase] = [
    OpCase(CTCGreedyDecoder(), [repetitive_scores(8, 3, 3), mask(8, [8, 5, 0])]),
    OpCase(CTCGreedyDecoder(ctc_merge_repeated=False), [repetitive_scores(8, 2, 3), mask(8, [8, 6])], id="no_merge"),
    OpCase(CTCGreedyDecoderSeqLen(), [repetitive_scores(3, 8, 3), const(np.array([8, 5, 1], np.int32))]),
    OpCase(
        CTCGreedyDecoderSeqLen(merge_repeated=False, classes_index_type=ElementType.i64),
        [repetitive_scores(2, 7, 4), np.array([7, 4], np.int32), const(np.array(0, np.int32))],
        id="blank0_no_merge",
    ),
]
