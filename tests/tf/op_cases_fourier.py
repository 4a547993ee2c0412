"""Per-op cases for the TF extractors in ``irconv_tf.extractors.fourier``: complex tensors and FFTs."""

from __future__ import annotations

from typing import Any

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    return {}
