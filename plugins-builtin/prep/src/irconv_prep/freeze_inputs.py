"""--freeze-placeholder-with-value: model inputs replaced by constants (folded afterwards)."""

from __future__ import annotations

from irconv import Const, Graph, Rewriter, Transform, TransformContext
from irconv.values import fixed_value, parse_values, summarise_value

from irconv_prep.inputs import by_input, input_name, parameter_op
from irconv_prep.options import FREEZE
from irconv_prep.specs import parse_frozen

_FLAG = "--freeze-placeholder-with-value"


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
            # One value fills the input, as for --input name->value: one rule, in irconv.values.
            value = fixed_value(parse_values(text, f"{_FLAG} {name}"), op.element_type.numpy, op.shape, _FLAG, name)
            constant = rw.insert(Const(value), name=f"{node.name}/frozen")
            rw.replace(node, constant.out_port(0))
            ctx.note(f"input {name!r} frozen to {summarise_value(value)}")
        return rw.modified
