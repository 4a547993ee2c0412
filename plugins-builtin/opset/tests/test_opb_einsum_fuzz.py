"""Einsum on seeded random equations (1-3 operands, repeated labels, ellipsis, implicit
output, unknown dimensions): shapes against OpenVINO's shape inference of the equation we
write, values of ``evaluate`` against NumPy's own ``einsum`` on the original equation."""

from __future__ import annotations

import numpy as np
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import Einsum

CONFIGS = 300
LETTERS = "abcde"


def _random_case(rng: np.random.Generator) -> tuple[str, list[tuple[int, ...]]]:
    sizes = {c: int(rng.integers(1, 4)) for c in LETTERS}
    ellipsis_shape = tuple(int(v) for v in rng.integers(1, 3, int(rng.integers(0, 3))))
    use_ellipsis = bool(rng.integers(0, 3) == 0)
    subscripts, shapes = [], []
    for _ in range(int(rng.integers(1, 4))):
        labels = "".join(rng.choice(list(LETTERS), size=int(rng.integers(0, 4))))
        shape = tuple(sizes[c] for c in labels)
        if use_ellipsis and rng.integers(0, 2):
            labels = "..." + labels
            shape = ellipsis_shape + shape
        subscripts.append(labels)
        shapes.append(shape)
    equation = ",".join(subscripts)
    if rng.integers(0, 4):  # explicit output: distinct labels that appear in the inputs
        used = sorted({c for s in subscripts for c in s if c != "."})
        chosen = "".join(rng.permutation(used)[: int(rng.integers(0, len(used) + 1))]) if used else ""
        prefix = "..." if any("..." in s for s in subscripts) else ""
        equation += "->" + prefix + chosen
    return equation, shapes


def test_random_einsums_match_openvino_and_numpy() -> None:
    import openvino as ov
    import openvino.opset14 as ops

    rng = np.random.default_rng(7)
    mismatches = []
    checked = 0
    for _ in range(CONFIGS):
        equation, shapes = _random_case(rng)
        hidden = [tuple(None if rng.integers(0, 4) == 0 else d for d in s) for s in shapes]
        try:
            params = [ops.parameter(ov.PartialShape([-1 if d is None else d for d in s]), np.float32) for s in hidden]
            # The runtime runs what we write: the explicit form of the equation.
            node = ops.einsum(params, Einsum(equation=equation).equation)
            arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            expected = np.einsum(equation, *arrays)
        except (RuntimeError, ValueError):
            continue  # an equation one of the two does not accept
        checked += 1
        shape = node.get_output_partial_shape(0)
        theirs = None if shape.rank.is_dynamic else tuple(d.get_length() if d.is_static else None for d in shape)
        builder = GraphBuilder()
        ports = [builder.parameter(f"x{i}", s) for i, s in enumerate(hidden)]
        out = builder.op(Einsum(equation=equation), *ports)
        infer_graph(builder.graph)
        if out.data.get_shape() != theirs:
            mismatches.append(f"{equation} on {hidden}: ours {out.data.get_shape()}, OpenVINO {theirs}")
        values = Einsum(equation=equation).evaluate(arrays)
        assert values is not None
        if not np.allclose(values[0], expected, rtol=1e-5, atol=1e-5):
            mismatches.append(f"{equation} on {shapes}: values differ from numpy.einsum")
    assert checked > CONFIGS // 3, f"only {checked} equations were valid"
    assert not mismatches, f"{len(mismatches)} of {checked} differ:\n" + "\n".join(mismatches[:10])
