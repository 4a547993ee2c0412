"""Cases for the recurrent family, checked against the OpenVINO runtime."""

from __future__ import annotations

import numpy as np
from irconv_opset import (
    CTCGreedyDecoder,
    CTCGreedyDecoderSeqLen,
    GRUCell,
    GRUSequence,
    LSTMCell,
    LSTMSequence,
    RNNCell,
    RNNSequence,
)
from irconv_opset.testing import OpCase, const

rng = np.random.default_rng(17)
BATCH, STEPS, INPUT, HIDDEN = 3, 5, 4, 6


def tensor(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def weights(dirs: int | None, gates: int, bias_gates: int | None = None) -> list:  # type: ignore[type-arg]
    lead = () if dirs is None else (dirs,)
    return [
        const(tensor(*lead, gates * HIDDEN, INPUT, scale=0.5)),
        const(tensor(*lead, gates * HIDDEN, HIDDEN, scale=0.5)),
        const(tensor(*lead, (bias_gates or gates) * HIDDEN, scale=0.5)),
    ]


def states(dirs: int) -> np.ndarray:
    return tensor(BATCH, dirs, HIDDEN)


LENGTHS = const(np.array([5, 3, 1], np.int32))
FULL = const(np.full(BATCH, STEPS, np.int64))

CASES: list[OpCase] = [
    OpCase(
        LSTMCell(hidden_size=HIDDEN),
        [tensor(BATCH, INPUT), tensor(BATCH, HIDDEN), tensor(BATCH, HIDDEN), *weights(None, 4)],
        id="lstm_cell",
        atol=1e-4,
    ),
    OpCase(
        LSTMCell(hidden_size=HIDDEN, clip=0.7),
        [tensor(BATCH, INPUT), tensor(BATCH, HIDDEN), tensor(BATCH, HIDDEN), *weights(None, 4)],
        id="lstm_cell_clip",
        atol=1e-4,
    ),
    OpCase(
        GRUCell(hidden_size=HIDDEN),
        [tensor(BATCH, INPUT), tensor(BATCH, HIDDEN), *weights(None, 3)],
        id="gru_cell",
        atol=1e-4,
    ),
    OpCase(
        GRUCell(hidden_size=HIDDEN, linear_before_reset=True),
        [tensor(BATCH, INPUT), tensor(BATCH, HIDDEN), *weights(None, 3, 4)],
        id="gru_cell_linear_before_reset",
        atol=1e-4,
    ),
    OpCase(
        RNNCell(hidden_size=HIDDEN),
        [tensor(BATCH, INPUT), tensor(BATCH, HIDDEN), *weights(None, 1)],
        id="rnn_cell",
        atol=1e-4,
    ),
    OpCase(
        RNNCell(hidden_size=HIDDEN, activations=("relu",)),
        [tensor(BATCH, INPUT), tensor(BATCH, HIDDEN), *weights(None, 1)],
        id="rnn_cell_relu",
        atol=1e-4,
    ),
    OpCase(
        LSTMSequence(hidden_size=HIDDEN, direction="forward"),
        [tensor(BATCH, STEPS, INPUT), states(1), states(1), FULL, *weights(1, 4)],
        id="lstm_seq_forward",
        atol=1e-4,
    ),
    OpCase(
        LSTMSequence(hidden_size=HIDDEN, direction="bidirectional"),
        [tensor(BATCH, STEPS, INPUT), states(2), states(2), LENGTHS, *weights(2, 4)],
        id="lstm_seq_bidirectional_lengths",
        dynamic=False,  # with dynamic shapes the CPU plugin ignores sequence_lengths
        atol=1e-4,
    ),
    OpCase(
        LSTMSequence(hidden_size=HIDDEN, direction="reverse"),
        [tensor(BATCH, STEPS, INPUT), states(1), states(1), LENGTHS, *weights(1, 4)],
        id="lstm_seq_reverse_lengths",
        dynamic=False,  # with dynamic shapes the CPU plugin ignores sequence_lengths
        atol=1e-4,
    ),
    OpCase(
        GRUSequence(hidden_size=HIDDEN, direction="forward", linear_before_reset=True),
        [tensor(BATCH, STEPS, INPUT), states(1), LENGTHS, *weights(1, 3, 4)],
        id="gru_seq_lbr",
        dynamic=False,  # with dynamic shapes the CPU plugin ignores sequence_lengths
        atol=1e-4,
    ),
    OpCase(
        GRUSequence(hidden_size=HIDDEN, direction="bidirectional"),
        [tensor(BATCH, STEPS, INPUT), states(2), FULL, *weights(2, 3)],
        id="gru_seq_bidirectional",
        atol=1e-4,
    ),
    OpCase(
        RNNSequence(hidden_size=HIDDEN, direction="reverse"),
        [tensor(BATCH, STEPS, INPUT), states(1), FULL, *weights(1, 1)],
        id="rnn_seq_reverse",
        atol=1e-4,
    ),
    OpCase(
        CTCGreedyDecoder(ctc_merge_repeated=True),
        [tensor(STEPS, BATCH, 7), np.ones((STEPS, BATCH), np.float32)],
        id="ctc_greedy",
        check_values=False,
    ),
    OpCase(
        CTCGreedyDecoderSeqLen(merge_repeated=False, classes_index_type="i64"),
        [tensor(BATCH, STEPS, 7), const(np.array([5, 3, 1], np.int32)), const(np.array(6, np.int32))],
        id="ctc_greedy_seq_len",
        check_values=False,
    ),
]
