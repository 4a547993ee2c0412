"""Reading an ATen call's arguments by schema name: tensors and symbolic integers are node
inputs (``irconv_torch.program``), the rest ``ctx.attrs``. Shared by every extractor module."""

from __future__ import annotations

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError, quoted
from irconv.frontend import typed
from irconv.graph import OutPort
from irconv.types import ElementType

from irconv_torch.attributes import FxNode

#: torch 2.5 and newer (version 205): the core ATen of ``torch.export`` programs these
#: extractors read.
TORCH_2_5 = (205, None)


def out_type(ctx: ExtractContext, index: int = 0) -> ElementType:
    """The element type torch gives output ``index`` (f32 when it recorded none)."""
    found = ctx.source_as(FxNode).output_types[index]
    return ElementType.f32 if found is None else found


def is_input(ctx: ExtractContext, name: str) -> bool:
    return name in ctx.source_as(FxNode).inputs


def tensor(ctx: ExtractContext, name: str, like: ElementType | None = None) -> OutPort:
    """Argument ``name`` as a port: its input, or its Python number as a constant of
    ``like`` (the output's type when not given)."""
    port = optional(ctx, name, like)
    if port is None:
        raise ConversionError(f"{ctx.where()}: argument {quoted(name)} is missing")
    return port


def optional(ctx: ExtractContext, name: str, like: ElementType | None = None) -> OutPort | None:
    """``tensor``, or None for an absent optional argument."""
    slot = ctx.source_as(FxNode).inputs.get(name)
    if isinstance(slot, int):
        return ctx.input(slot)
    value = ctx.attrs.get(name)
    if value is None:
        return None
    return typed(ctx, value, like or out_type(ctx), suffix=name)


def tensors(ctx: ExtractContext, name: str) -> list[OutPort | None]:
    """A ``Tensor[]`` (or ``Tensor?[]``) argument's ports, None for None elements."""
    slots = ctx.source_as(FxNode).inputs.get(name, ())
    if isinstance(slots, int):
        return [ctx.input(slots)]
    return [None if slot is None else ctx.input(slot) for slot in slots]


def ints_or_port(ctx: ExtractContext, name: str, default: list[int] | None = None) -> list[int] | OutPort:
    """An ``int[]``/``SymInt[]`` argument: the integers, or an i64 port when some are
    symbolic (computed in the IR, which stays reshapeable)."""
    slot = ctx.source_as(FxNode).inputs.get(name)
    if isinstance(slot, int):
        return ctx.input(slot)
    found = ctx.attrs.ints(name, default)
    return [int(v) for v in found]


def int_or_port(ctx: ExtractContext, name: str, default: int | None = None) -> int | OutPort:
    """A ``SymInt`` argument: the integer, or a scalar port when it is symbolic."""
    slot = ctx.source_as(FxNode).inputs.get(name)
    if isinstance(slot, int):
        return ctx.input(slot)
    return ctx.attrs.int(name) if default is None else ctx.attrs.int(name, default)


def cast(ctx: ExtractContext, port: OutPort, element_type: ElementType, suffix: str = "convert") -> OutPort:
    """``port`` as ``element_type``: a Convert when the types differ."""
    from irconv_opset import Convert

    if port.data.element_type is element_type:
        return port
    return ctx.op(Convert(destination_type=element_type), port, suffix=suffix)


def as_i64_port(ctx: ExtractContext, value: list[int] | int | OutPort, suffix: str) -> OutPort:
    if isinstance(value, OutPort):
        return cast(ctx, value, ElementType.i64, suffix=f"{suffix}_i64")
    return ctx.const(np.asarray(value, dtype=np.int64), suffix=suffix)


def empty_outputs(ctx: ExtractContext, main: list[OutPort]) -> list[OutPort]:
    """``main`` followed by empty tensors for the outputs torch returns but inference never
    reads (the saved statistics of a normalisation, say)."""
    extra = len(ctx.source_as(FxNode).output_types) - len(main)
    return main + [ctx.const(np.zeros((0,), np.float32), suffix=f"unused{i}") for i in range(extra)]
