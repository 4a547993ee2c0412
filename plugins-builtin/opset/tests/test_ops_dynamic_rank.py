"""Partial inference with inputs of unknown rank must not fail, and must not invent facts.

For every runtime case, the Parameters are given a dynamic rank; whatever the op still
infers (rank, dims) must agree with the output of its ``evaluate`` on the case's values,
which ``test_ops_runtime`` checks against OpenVINO.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv.types import ElementType
from irconv_opset.testing import ConstInput, case_params, has_evaluate, load_case_files

CASES = [(i, c) for i, c, dynamic in case_params(load_case_files(Path(__file__).parent)) if not dynamic]
CASES = [(i, c) for i, c in CASES if c.has_parameters() and has_evaluate(c.op) and c.check_values]


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[i for i, _ in CASES])
def test_dynamic_rank_inference_is_consistent(case):
    builder = GraphBuilder()
    ports = []
    for i, value in enumerate(case.inputs):
        if value is None:
            ports.append(None)
        elif isinstance(value, ConstInput):
            ports.append(builder.const(value.value))
        else:
            ports.append(builder.parameter(f"in{i}", None, ElementType.from_numpy(value.dtype)))
    node = builder.node(case.op, *ports)
    infer_graph(builder.graph)
    expected = case.op.evaluate(case.values())
    for idx, value in enumerate(expected):
        value = np.asarray(value)
        shape = node.out_port(idx).data.get_shape()
        if shape is None:
            continue
        assert len(shape) == value.ndim, f"output {idx}: inferred {shape} for a value of shape {value.shape}"
        for d, v in zip(shape, value.shape, strict=False):
            assert d is None or d == v, f"output {idx}: inferred {shape} for a value of shape {value.shape}"
