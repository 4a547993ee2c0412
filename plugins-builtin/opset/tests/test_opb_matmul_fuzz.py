"""MatMul shape inference on seeded random operands (ranks 1-4, transposes, broadcasting,
unknown dimensions) against OpenVINO's own shape inference."""

from __future__ import annotations

import numpy as np
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import MatMul

CONFIGS = 400


def _random_operands(rng: np.random.Generator) -> tuple[list[int | None], list[int | None], bool, bool]:
    m, k, n = (int(v) for v in rng.integers(1, 5, 3))
    batch = [int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3)))]
    rank_a, rank_b = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    ta, tb = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    a: list[int | None] = [k] if rank_a == 1 else [*batch[: rank_a - 2], *((k, m) if ta else (m, k))]
    b: list[int | None] = [k] if rank_b == 1 else [*batch[: rank_b - 2], *((n, k) if tb else (k, n))]
    # Broadcast some batch dims through 1, hide some dims.
    for shape in (a, b):
        for i in range(len(shape) - 2):
            if rng.integers(0, 4) == 0:
                shape[i] = 1
        for i in range(len(shape)):
            if rng.integers(0, 5) == 0:
                shape[i] = None
    return a, b, ta, tb


def test_random_matmul_shapes_match_openvino() -> None:
    import openvino as ov
    import openvino.opset14 as ops

    rng = np.random.default_rng(5)
    mismatches = []
    checked = 0
    for _ in range(CONFIGS):
        a, b, ta, tb = _random_operands(rng)
        try:
            node = ops.matmul(
                ops.parameter(ov.PartialShape([-1 if d is None else d for d in a]), np.float32),
                ops.parameter(ov.PartialShape([-1 if d is None else d for d in b]), np.float32),
                ta,
                tb,
            )
        except RuntimeError:
            continue  # incompatible operands (a hidden batch dim cannot be 1 and 3 at once, etc.)
        checked += 1
        theirs = tuple(d.get_length() if d.is_static else None for d in node.get_output_partial_shape(0))
        builder = GraphBuilder()
        out = builder.op(MatMul(transpose_a=ta, transpose_b=tb), builder.parameter("a", a), builder.parameter("b", b))
        infer_graph(builder.graph)
        ours = out.data.get_shape()
        if ours != theirs:
            mismatches.append(f"{a} x {b} (transpose {ta}, {tb}): ours {ours}, OpenVINO {theirs}")
    assert checked > CONFIGS // 2
    assert not mismatches, f"{len(mismatches)} of {checked} differ:\n" + "\n".join(mismatches[:10])
