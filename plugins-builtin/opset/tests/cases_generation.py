"""Cases for Eye, RandomUniform and Multinomial, checked against the OpenVINO runtime.

Random outputs are implementation-defined: their cases check shapes and types only.
"""

from __future__ import annotations

import numpy as np
from irconv.types import ElementType
from irconv_opset import Eye, Multinomial, RandomUniform
from irconv_opset.testing import OpCase, const


def i64(value: object) -> object:
    return const(np.array(value, np.int64))


CASES: list[OpCase] = [
    OpCase(Eye(), [i64(3), i64(4), i64(1)]),
    OpCase(Eye(output_type=ElementType.i32), [i64(4), i64(3), i64(-2), i64([2])], id="batch"),
    OpCase(Eye(), [np.array(3, np.int32), np.array(3, np.int32), np.array(0, np.int32)], id="runtime_sizes"),
    OpCase(
        RandomUniform(global_seed=1, op_seed=2),
        [i64([2, 3]), const(np.float32(0)), const(np.float32(1))],
        check_values=False,
    ),
    # min and max of each output type (the runtime's rule), for the compile sweep; not bf16:
    # the IR round-trip tests read every case back, and irconv's IR reader has no bf16 constants
    *(
        OpCase(
            RandomUniform(output_type=ElementType(t), global_seed=1, op_seed=2),
            [i64([2, 3]), const(np.array(0, ElementType(t).numpy)), const(np.array(5, ElementType(t).numpy))],
            id=f"to_{t}",
            check_values=False,
        )
        for t in ("f16", "f64", "i32", "i64")
    ),
    OpCase(
        Multinomial(with_replacement=True),
        [np.full((2, 4), 0.25, np.float32), i64(3)],
        check_values=False,
    ),
]
