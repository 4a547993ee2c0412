"""Recurrent sequences on seeded random configurations: ``evaluate`` against the CPU plugin.

Directions, sequence lengths, clipping, activations and GRU's linear_before_reset vary;
shapes are static (the plugin ignores sequence_lengths with dynamic shapes).
"""

from __future__ import annotations

import numpy as np
from irconv_opset import GRUSequence, LSTMSequence, RNNSequence
from irconv.runtime import compile_for_comparison

CONFIGS = 24
ACTIVATIONS = ("sigmoid", "tanh", "relu")


def test_random_sequences_match_the_runtime() -> None:
    import openvino as ov
    import openvino.opset14 as ops
    from openvino.utils.node_factory import NodeFactory

    rng = np.random.default_rng(11)
    core = ov.Core()
    mismatches = []
    for index in range(CONFIGS):
        kind = (LSTMSequence, GRUSequence, RNNSequence)[index % 3]
        batch, steps, width, hidden = (int(v) for v in rng.integers(1, 5, 4))
        direction = str(rng.choice(("forward", "reverse", "bidirectional")))
        dirs = 2 if direction == "bidirectional" else 1
        count = len(kind().activations)
        attrs: dict = {
            "hidden_size": hidden,
            "direction": direction,
            "clip": float(rng.choice((0.0, 0.5, 2.0))),
            "activations": [str(a) for a in rng.choice(ACTIVATIONS, count)],
            "activations_alpha": [],
            "activations_beta": [],
        }
        gates = {LSTMSequence: 4, GRUSequence: 3, RNNSequence: 1}[kind]
        bias_gates = gates
        if kind is GRUSequence:
            attrs["linear_before_reset"] = bool(rng.integers(0, 2))
            bias_gates = 4 if attrs["linear_before_reset"] else 3
        op = kind(**{k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items()})
        x = rng.standard_normal((batch, steps, width)).astype(np.float32)
        states = [rng.standard_normal((batch, dirs, hidden)).astype(np.float32) for _ in range(op.num_outputs() - 1)]
        lengths = rng.integers(1, steps + 1, batch).astype(np.int32)
        w = (rng.standard_normal((dirs, gates * hidden, width)) * 0.5).astype(np.float32)
        r = (rng.standard_normal((dirs, gates * hidden, hidden)) * 0.5).astype(np.float32)
        b = (rng.standard_normal((dirs, bias_gates * hidden)) * 0.5).astype(np.float32)
        source = ops.parameter(list(x.shape), np.float32)
        consts = [ops.constant(v).output(0) for v in (*states, lengths, w, r, b)]
        node = NodeFactory(f"opset{op.version}").create(op.type, [source.output(0), *consts], attrs)
        model = ov.Model([node.output(k) for k in range(op.num_outputs())], [source])
        result = compile_for_comparison(model, core=core)({0: x})
        ours = op.evaluate([x, *states, lengths, w, r, b])
        assert ours is not None
        for k in range(op.num_outputs()):
            if not np.allclose(ours[k], result[k], rtol=1e-4, atol=1e-4):
                diff = np.abs(ours[k] - result[k]).max()
                mismatches.append(f"{op.describe()} {attrs} lengths={lengths.tolist()}: output {k} differs by {diff}")
    assert not mismatches, f"{len(mismatches)} differ:\n" + "\n".join(mismatches[:8])
