"""Reductions: sum, mean, amax/amin, prod, var/std, any/all, max/min with indices, argmax."""

from __future__ import annotations

from irconv import ExtractContext
from irconv.frontend import aliases, extractor, i64, normalize_axes, normalize_axis, require_rank, typed
from irconv.graph import Node, OutPort
from irconv.ops import Op
from irconv.types import ElementType
from irconv_opset import Convert, CumSum, Divide, Gather, Multiply, Reshape, ShapeOf, Sqrt, Squeeze, Subtract, TopK
from irconv_opset.build import shape_of
from irconv_opset.lowering.reduction import Reduction

from irconv_torch.extractors._args import TORCH_2_5, cast, int_or_port, out_type, tensor


def _axes(ctx: ExtractContext, name: str = "dim") -> list[int]:
    """The reduced axes; absent or empty means all."""
    rank = require_rank(ctx, 0)
    value = ctx.attrs.get(name)
    if value is None or value == []:
        return list(range(rank))
    return normalize_axes(ctx, ctx.attrs.ints(name), rank)


#: aten reductions by their opset reduction; ``any``/``all`` reduce the input read as booleans.
_REDUCTIONS: dict[str, Reduction] = {
    "aten.sum.dim_IntList": Reduction.SUM, "aten.sum.default": Reduction.SUM,
    "aten.mean.dim": Reduction.MEAN, "aten.mean.default": Reduction.MEAN,
    "aten.amax.default": Reduction.MAX, "aten.max.default": Reduction.MAX,
    "aten.amin.default": Reduction.MIN, "aten.min.default": Reduction.MIN,
    "aten.prod.dim_int": Reduction.PROD, "aten.prod.default": Reduction.PROD,
    "aten.any.dim": Reduction.ANY, "aten.any.dims": Reduction.ANY, "aten.any.default": Reduction.ANY,
    "aten.all.dim": Reduction.ALL, "aten.all.dims": Reduction.ALL, "aten.all.default": Reduction.ALL,
}


def reduction(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The reduction over ``dim`` computed in the result's type (booleans for any/all)."""
    kind = _REDUCTIONS[ctx.source_op.op_type]
    boolean = kind in (Reduction.ANY, Reduction.ALL)
    data = cast(ctx, tensor(ctx, "self"), ElementType.boolean if boolean else out_type(ctx))
    port = ctx.op(kind.make(ctx.attrs.bool("keepdim", False)), data, i64(ctx, _axes(ctx), suffix="axes"), suffix="op")
    return [cast(ctx, port, out_type(ctx), suffix="result")]


reductions = [record for name, kind in _REDUCTIONS.items()
              for record in aliases("torch", [name], reduction, versions=TORCH_2_5, produces=[kind.op, Convert])]


def _variance(ctx: ExtractContext) -> tuple[OutPort, OutPort]:
    """``sum((x - mean)^2) / (n - correction)`` over the axes, and the mean, kept dims as asked."""
    element_type = out_type(ctx)
    data = cast(ctx, tensor(ctx, "self"), element_type)
    axes = _axes(ctx)
    keep = ctx.attrs.bool("keepdim", False)
    correction = ctx.attrs.float("correction", 1.0)
    axes_port = i64(ctx, axes, suffix="axes")
    mean = ctx.op(Reduction.MEAN.make(True), data, axes_port, suffix="mean")
    centred = ctx.op(Subtract(), data, mean, suffix="centred")
    squares = ctx.op(Reduction.SUM.make(keep), ctx.op(Multiply(), centred, centred, suffix="squared"), axes_port,
                     suffix="sum")
    count = ctx.op(Reduction.PROD.make(False), ctx.op(Gather(), shape_of(ctx, data), axes_port, i64(ctx, 0)),
                   i64(ctx, [0]), suffix="count")
    divisor = ctx.op(Subtract(), ctx.op(Convert(destination_type=element_type), count, suffix="count_f"),
                     typed(ctx, correction, element_type, suffix="correction"), suffix="divisor")
    if not keep:
        mean = ctx.op(Reduction.MEAN.make(False), data, axes_port, suffix="mean_reduced")
    return ctx.op(Divide(), squares, divisor, suffix="op"), mean


#: What a variance builds.
_VARIANCE_OPS: tuple[type[Op], ...] = (Convert, Reduction.MEAN.op, Reduction.SUM.op, Reduction.PROD.op, Subtract,
                                       Multiply, ShapeOf, Gather, Divide)


@extractor("torch", "aten.var.correction", versions=TORCH_2_5, produces=_VARIANCE_OPS)
def variance(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_variance(ctx)[0]]


@extractor("torch", "aten.std.correction", versions=TORCH_2_5, produces=[*_VARIANCE_OPS, Sqrt])
def std(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [ctx.op(Sqrt(), _variance(ctx)[0], suffix="sqrt")]


@extractor("torch", "aten.var_mean.correction", versions=TORCH_2_5, produces=_VARIANCE_OPS)
def var_mean(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return list(_variance(ctx))


@extractor("torch", "aten.linalg_vector_norm.default", versions=TORCH_2_5,
           produces=[Reduction.L2.op, Reduction.L1.op, Convert])
def vector_norm(node: Node, ctx: ExtractContext) -> list[OutPort]:
    order = ctx.attrs.float("ord", 2.0)
    if order not in (1.0, 2.0):
        raise ctx.attrs.bad("ord", order, "only the 1- and 2-norms")
    kind = Reduction.L2 if order == 2.0 else Reduction.L1
    data = cast(ctx, tensor(ctx, "self"), out_type(ctx))
    return [ctx.op(kind.make(ctx.attrs.bool("keepdim", False)), data, i64(ctx, _axes(ctx)), suffix="op")]


def _top_one(ctx: ExtractContext, mode: str) -> tuple[OutPort, OutPort]:
    """Values and i64 indices of the max (min) along ``dim``, the dim kept or squeezed."""
    data = tensor(ctx, "self")
    rank = require_rank(ctx, 0)
    if ctx.attrs.get("dim") is None:  # argmax over the flattened tensor
        data, axis, keep = ctx.op(Reshape(special_zero=False), data, i64(ctx, [-1]), suffix="flat"), 0, False
    else:
        axis, keep = normalize_axis(ctx, ctx.attrs.int("dim"), rank), ctx.attrs.bool("keepdim", False)
    top = ctx.add(TopK(axis=axis, mode=mode, sort="none", index_element_type=ElementType.i64),
                  [data, i64(ctx, 1, suffix="k")], suffix="op")
    values, indices = top.out_port(0), top.out_port(1)
    if not keep:
        values = ctx.op(Squeeze(), values, i64(ctx, [axis]), suffix="values")
        indices = ctx.op(Squeeze(), indices, i64(ctx, [axis]), suffix="indices")
    return values, indices


#: What taking the top one builds.
_TOP_ONE_OPS: tuple[type[Op], ...] = (TopK, Reshape, Squeeze)


@extractor("torch", "aten.max.dim", versions=TORCH_2_5, produces=_TOP_ONE_OPS)
def max_dim(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return list(_top_one(ctx, "max"))


@extractor("torch", "aten.min.dim", versions=TORCH_2_5, produces=_TOP_ONE_OPS)
def min_dim(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return list(_top_one(ctx, "min"))


@extractor("torch", "aten.argmax.default", versions=TORCH_2_5, produces=_TOP_ONE_OPS)
def argmax(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_top_one(ctx, "max")[1]]


@extractor("torch", "aten.argmin.default", versions=TORCH_2_5, produces=_TOP_ONE_OPS)
def argmin(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_top_one(ctx, "min")[1]]


@extractor("torch", "aten.topk.default", versions=TORCH_2_5, produces=[TopK])
def topk(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """The ``k`` (maybe symbolic) largest or smallest along ``dim``, and their indices."""
    axis = normalize_axis(ctx, ctx.attrs.int("dim", -1), require_rank(ctx, 0))
    mode = "max" if ctx.attrs.bool("largest", True) else "min"
    order = "value" if ctx.attrs.bool("sorted", True) else "none"
    k = int_or_port(ctx, "k")
    count = k if isinstance(k, OutPort) else i64(ctx, k, suffix="k")
    top = ctx.add(TopK(axis=axis, mode=mode, sort=order, index_element_type=ElementType.i64, stable=True),
                  [tensor(ctx, "self"), count], suffix="op")
    return [top.out_port(0), top.out_port(1)]


def _sorted(ctx: ExtractContext) -> tuple[OutPort, OutPort]:
    """Values and indices of ``self`` sorted along ``dim``: a stable TopK of the whole axis
    (descending is "max" mode); a 0-d tensor is its own sort."""
    data = tensor(ctx, "self")
    rank = require_rank(ctx, 0)
    if rank == 0:
        return data, typed(ctx, 0, ElementType.i64, suffix="index")
    axis = normalize_axis(ctx, ctx.attrs.int("dim", -1), rank)
    length = ctx.op(Gather(), shape_of(ctx, data), i64(ctx, axis, suffix="axis"), i64(ctx, 0), suffix="length")
    mode = "max" if ctx.attrs.bool("descending", False) else "min"
    top = ctx.add(TopK(axis=axis, mode=mode, sort="value", index_element_type=ElementType.i64, stable=True),
                  [data, length], suffix="op")
    return top.out_port(0), top.out_port(1)


def sort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return list(_sorted(ctx))


def argsort(node: Node, ctx: ExtractContext) -> list[OutPort]:
    return [_sorted(ctx)[1]]


sorts = aliases("torch", ["aten.sort.default", "aten.sort.stable"], sort, versions=TORCH_2_5,
                produces=[TopK, ShapeOf, Gather])
argsorts = aliases("torch", ["aten.argsort.default", "aten.argsort.stable"], argsort, versions=TORCH_2_5,
                   produces=[TopK, ShapeOf, Gather])


@extractor("torch", "aten.cumsum.default", versions=TORCH_2_5, produces=[CumSum, Convert])
def cumsum(node: Node, ctx: ExtractContext) -> list[OutPort]:
    axis = normalize_axis(ctx, ctx.attrs.int("dim"), require_rank(ctx, 0))
    data = cast(ctx, tensor(ctx, "self"), out_type(ctx))
    return [ctx.op(CumSum(), data, i64(ctx, axis, suffix="axis"), suffix="op")]
