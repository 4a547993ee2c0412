"""BatchNormInference with constant statistics -> Multiply -> Add, ready for linear fusing."""

from __future__ import annotations

import numpy as np
from irconv import Match, Rewriter, narrow_float, op
from irconv_opset import Add, BatchNormInference, BatchNormInference_v1, Multiply

from irconv_transforms._fusion import PATTERN_FUSIONS, Fusion


class DecomposeBatchNorm(Fusion):
    """BatchNormInference(x, gamma, beta, mean, var) -> x * s + (beta - mean * s),
    s = gamma / sqrt(var + eps), both constants shaped [C, 1, ...] for the channel axis 1."""

    id = "fuse.decompose_batch_norm"
    run_after = (*Fusion.run_after, *PATTERN_FUSIONS)
    pattern = op((BatchNormInference, BatchNormInference_v1), bind="bn")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        bn, norm = match["bn"], match["bn"].op
        if not isinstance(norm, (BatchNormInference, BatchNormInference_v1)):
            return False
        data_input = norm.data_input
        params = [i for i in range(5) if i != data_input]  # gamma, beta, mean, var in order
        values = [bn.in_port(i).constant(shape_derived=False) for i in params]
        source = bn.in_port(data_input).get_source()
        shape = None if source is None else source.data.shape
        known = [v for v in values if v is not None]
        if source is None or shape is None or len(shape) < 2 or len(known) != 4:
            return False
        gamma, beta, mean, var = (np.asarray(narrow_float.widen(v), np.float64).reshape(-1) for v in known)
        dtype = known[0].dtype
        scale = gamma / np.sqrt(var + float(norm.epsilon))
        shift = beta - mean * scale
        view = (-1,) + (1,) * (len(shape) - 2)
        scaled = rw.op(Multiply(), source, rw.const(scale.reshape(view), dtype, like=bn), like=bn)
        rw.replace(bn, rw.op(Add(), scaled, rw.const(shift.reshape(view), dtype, like=bn), like=bn))
        return True
