"""--freeze-placeholder-with-value: model inputs replaced by constants (folded afterwards)."""

from __future__ import annotations

import re

import numpy as np
from irconv import Const, Graph, Rewriter, Transform, TransformContext, UserError

from irconv_prep.inputs import by_input, input_name, parameter_op
from irconv_prep.options import FREEZE
from irconv_prep.specs import parse_frozen

_FLAG = "--freeze-placeholder-with-value"
_BOOLS = {"true": True, "false": False}


def frozen_value(text: str, dtype: np.dtype, shape: tuple[int | None, ...] | None, name: str) -> np.ndarray:
    """The constant for input ``name``: numbers or true/false, broadcast or reshaped to its shape."""
    parts = [p for p in re.split(r"[,\s]+", text.strip().strip("[]")) if p]
    if not parts:
        raise UserError(f"{_FLAG}: no value given for input {name!r}")
    try:
        items = [_BOOLS[p.lower()] if p.lower() in _BOOLS else float(p) for p in parts]
        values = np.asarray(items).astype(dtype)
    except (ValueError, OverflowError):
        raise UserError(f"{_FLAG}: {text!r} is not a value of input {name!r} ({dtype})") from None
    if shape is None or any(d is None for d in shape):
        return values.reshape(()) if values.size == 1 else values
    static = tuple(int(d) for d in shape if d is not None)
    if values.size == 1:
        return np.full(static, values.reshape(()), dtype=dtype)
    if values.size != int(np.prod(static, dtype=np.int64)):
        raise UserError(f"{_FLAG}: {values.size} values do not fill input {name!r} of shape {list(static)}")
    return values.reshape(static)


class FreezeInputs(Transform):
    """Parameter(name) -> Const(value) for each input named by --freeze-placeholder-with-value.

    Runs before inference: constant folding then removes what the value decides.
    """

    id = "prep.freeze_inputs"
    run_after = ("layout.wrap_marked",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        return ctx.options.get(FREEZE) is not None

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        rw = Rewriter(graph)
        for node, text in by_input(graph, parse_frozen(ctx.options.get(FREEZE)), _FLAG):
            op = parameter_op(node)
            name = input_name(node)
            value = frozen_value(text, op.element_type.numpy, op.shape, name)
            constant = rw.insert(Const(value), name=f"{node.name}/frozen")
            rw.replace(node, constant.out_port(0))
            ctx.note(f"input {name!r} frozen to {value.tolist()!r}")
        return rw.modified
