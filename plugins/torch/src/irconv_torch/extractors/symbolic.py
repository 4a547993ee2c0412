"""Symbolic sizes: ``aten.sym_size.int``, Python arithmetic on them (``operator.mul``, ...)
and the lists of sizes holding them (``prim.ListConstruct``). They become shape
sub-graphs of i64 scalars, so a dynamic dimension stays dynamic in the IR."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, normalize_axis, require_rank
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import (
    Add,
    Concat,
    Convert,
    Divide,
    FloorMod,
    Gather,
    Maximum,
    Minimum,
    Multiply,
    Negative,
    ReduceProd,
    Reshape,
    ShapeOf,
    Subtract,
)
from irconv_opset.build import shape_of

from irconv_torch.attributes import FxNode
from irconv_torch.extractors._args import TORCH_2_5, cast, tensor
from irconv_torch.program import LIST_CONSTRUCT


@extractor("torch", "aten.sym_size.int", versions=TORCH_2_5, produces=[Gather, ShapeOf])
def sym_size(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))
    return [ctx.op(Gather(), shape_of(ctx, tensor(ctx, "self")), i64(ctx, axis), i64(ctx, 0), suffix="op")]


@extractor("torch", "aten.sym_numel.default", versions=TORCH_2_5, produces=[ReduceProd, ShapeOf])
def sym_numel(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(ReduceProd(keep_dims=False), shape_of(ctx, tensor(ctx, "self")), i64(ctx, [0]), suffix="op")]


@extractor("torch", LIST_CONSTRUCT, versions=TORCH_2_5, produces=[Concat, Reshape, Convert])
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
    slot = ctx.source_as(FxNode).inputs.get(name)
    if isinstance(slot, int):
        return cast(ctx, ctx.input(slot), ElementType.i64, suffix=f"{name}_i64")
    return i64(ctx, ctx.attrs.int(name), suffix=name)


#: Python's arithmetic on sizes, by the opset op that computes it on i64 scalars.
_SIZE_ARITHMETIC: dict[str, type[Op]] = {"operator.add": Add, "operator.sub": Subtract, "operator.mul": Multiply,
                                         "operator.mod": FloorMod, "torch.sym_max": Maximum, "torch.sym_min": Minimum}


def size_arithmetic(node: Node, ctx: ExtractContext) -> list[OutPort]:
    make = _SIZE_ARITHMETIC[ctx.source_op.op_type]
    return [ctx.op(make(), _operand(ctx, "a"), _operand(ctx, "b"), suffix="op")]


size_arithmetics = [record for name, op in _SIZE_ARITHMETIC.items()
                    for record in aliases("torch", [name], size_arithmetic, versions=TORCH_2_5,
                                          produces=[op, Convert])]


@extractor("torch", "operator.floordiv", versions=TORCH_2_5, produces=[Divide, Convert])
def floordiv(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Divide(m_pythondiv=True), _operand(ctx, "a"), _operand(ctx, "b"), suffix="op")]


@extractor("torch", "operator.neg", versions=TORCH_2_5, produces=[Negative, Convert])
def neg(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Negative(), _operand(ctx, "a"), suffix="op")]
