"""What the extractor families share: ops on the node's own inputs and TF's layout attributes."""

from __future__ import annotations

from collections.abc import Sequence

from irconv import ExtractContext
from irconv.graph import OutPort
from irconv.ops import Op
from irconv_opset.lowering.layout import LayoutMark
from irconv_opset.lowering.layout import laid_out as mark_laid_out

NHWC = LayoutMark.NHWC


def on_inputs(ctx: ExtractContext, op: Op) -> list[OutPort]:
    """``op`` fed by the TF node's own inputs, in port order: the ops that map one to one."""
    return ctx.add(op, ctx.inputs).out_ports()


def channels_last(ctx: ExtractContext) -> bool:
    """True for NHWC/NWC/NDHWC data formats (TensorFlow's default)."""
    return not ctx.attrs.str("data_format", "NHWC").startswith("NC")


def laid_out(ctx: ExtractContext, op: Op, inputs: Sequence[OutPort | None], mark: LayoutMark | None) -> list[OutPort]:
    """Add ``op`` marked ``mark`` for the layout plugin; its output ports (TF ops may have several)."""
    return mark_laid_out(ctx, op, inputs, mark).out_ports()


def spatial(
    ctx: ExtractContext, name: str, rank: int = 4, *, optional: bool = False, values: Sequence[int] | None = None
) -> tuple[int, ...]:
    """The spatial entries of an N..C-ordered list such as strides or ksize: attribute
    ``name`` (all ones when ``optional`` and absent) or the ``values`` given for it."""
    if values is not None:
        found = list(values)
    else:
        found = ctx.attrs.ints(name, [1] * rank) if optional else ctx.attrs.ints(name)
    if len(found) != rank:
        raise ctx.attrs.bad(name, found, f"expected {rank} values")
    return tuple(found[1:-1]) if channels_last(ctx) else tuple(found[2:])
