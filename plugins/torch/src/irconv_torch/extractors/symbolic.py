"""Symbolic sizes: ``aten.sym_size.int``, Python arithmetic on them (``operator.mul``, ...)
and the lists of sizes holding them (``prim.ListConstruct``). They become shape
sub-graphs of i64 scalars, so a dynamic dimension stays dynamic in the IR."""

from __future__ import annotations

from collections.abc import Callable

from irconv import ExtractContext
from irconv.frontend import extractor, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Concat,
    Divide,
    FloorMod,
    Gather,
    Maximum,
    Minimum,
    Multiply,
    Negative,
    ReduceProd,
    Reshape,
    Subtract,
)
from irconv_opset.build import shape_of

from irconv_torch.extractors._args import TORCH_2_5, cast, fx_node, tensor
from irconv_torch.program import LIST_CONSTRUCT


@extractor("torch", "aten.sym_size.int", versions=TORCH_2_5, produces=[Gather])
def sym_size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))
    return [ctx.op(Gather(), shape_of(ctx, tensor(ctx, "self")), i64(ctx, axis), i64(ctx, 0), suffix="op")]


@extractor("torch", "aten.sym_numel.default", versions=TORCH_2_5, produces=[ReduceProd])
def sym_numel(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(ReduceProd(keep_dims=False), shape_of(ctx, tensor(ctx, "self")), i64(ctx, [0]), suffix="op")]


@extractor("torch", LIST_CONSTRUCT, versions=TORCH_2_5, produces=[Concat])
def list_construct(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The 1-D i64 tensor of a size list: constants from ``template``, the symbolic
    elements from the inputs, in order."""
    template = ctx.attrs.get("template", [])
    pieces: list[OutPort] = []
    next_input = 0
    for value in template:
        if value is None:
            element = cast(ctx, ctx.input(next_input), ElementType.i64, suffix=f"element{next_input}")
            pieces.append(ctx.op(Reshape(special_zero=False), element, i64(ctx, [1]), suffix=f"item{next_input}"))
            next_input += 1
        else:
            pieces.append(i64(ctx, [int(value)], suffix="item"))
    return [ctx.add(Concat(axis=0), pieces, suffix="op").out_port(0)]


def _operand(ctx: ExtractContext, name: str) -> OutPort:
    slot = fx_node(ctx).inputs.get(name)
    if isinstance(slot, int):
        return cast(ctx, ctx.input(slot), ElementType.i64, suffix=f"{name}_i64")
    return i64(ctx, ctx.attrs.int(name), suffix=name)


def _size_arithmetic(make: Callable[[], Op]) -> Callable[[Node, ExtractContext], list[OutPort]]:
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        return [ctx.op(make(), _operand(ctx, "a"), _operand(ctx, "b"), suffix="op")]

    return extract


_ARITHMETIC: dict[str, type[Op]] = {"add": Add, "sub": Subtract, "mul": Multiply, "mod": FloorMod}
size_arithmetic = [extractor("torch", f"operator.{name}", _size_arithmetic(op), versions=TORCH_2_5, produces=[op])
                   for name, op in _ARITHMETIC.items()]
floordiv = extractor("torch", "operator.floordiv", _size_arithmetic(lambda: Divide(m_pythondiv=True)), versions=TORCH_2_5,
                produces=[Divide])
sym_max = extractor("torch", "torch.sym_max", _size_arithmetic(Maximum), versions=TORCH_2_5, produces=[Maximum])
sym_min = extractor("torch", "torch.sym_min", _size_arithmetic(Minimum), versions=TORCH_2_5, produces=[Minimum])
neg = extractor("torch", "operator.neg", lambda node, ctx: [ctx.op(Negative(), _operand(ctx, "a"), suffix="op")],
           versions=TORCH_2_5, produces=[Negative])
