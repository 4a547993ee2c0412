"""Optional ONNX inputs left empty: each extractor declares what an empty input means.

ONNX lets a node leave any optional input empty (its name is ``""``), also in the middle of
the list (``Clip(x, "", max)``, ``Resize(x, "", "", sizes)``); an IR layer cannot skip an
input. So every extractor states, per optional input index, either a ``Default`` that
builds the value the ONNX spec gives an empty input, or ``HANDLED`` when absence changes what
the extractor builds (``Conv`` without a bias adds none, ``Squeeze`` without axes squeezes all
ones). ``with_defaults`` fills the empty inputs that have a ``Default`` before the extractor
runs: the extractor then sees them as present (``ctx.has_input``), and an extractor that
returns a bare ``Op`` (the node keeps its inputs) never leaves a hole. A hole left anyway is
reported as one clear error instead of an IR the runtime rejects.

``tests/test_optional_inputs.py`` checks the declarations against the ONNX schemas: every
optional input of every op this plugin extracts is declared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from irconv import ExtractContext
from irconv.errors import ConversionError
from irconv.frontend import numpy_dtype, typed
from irconv.graph import Node, OutPort
from irconv.ops import Op

Extract = Callable[[Node, ExtractContext], Any]


@dataclass(frozen=True)
class Default:
    """How to build the value of an empty optional input (``what`` names it in docs)."""

    what: str
    build: Callable[[ExtractContext], OutPort]


#: Declares an optional input whose absence the extractor handles itself.
HANDLED: Default | None = None

Defaults = Mapping[int, "Default | None"]


def scalar_like(value: float, of: int = 0) -> Default:
    """A scalar ``value`` of input ``of``'s element type (0 for a pad value)."""
    return Default(f"{value} of input {of}'s type",
                   lambda ctx: typed(ctx, value, ctx.input_type(of), suffix="default"))


def _limit(ctx: ExtractContext, of: int, lowest: bool) -> OutPort:
    dtype = numpy_dtype(ctx.input_type(of))
    info: Any = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return ctx.const(np.asarray(info.min if lowest else info.max, dtype), suffix="lowest" if lowest else "highest")


def lowest(of: int = 0) -> Default:
    """The lowest finite value of input ``of``'s element type (a lower bound that clips nothing)."""
    return Default(f"the lowest value of input {of}'s type", lambda ctx: _limit(ctx, of, True))


def highest(of: int = 0) -> Default:
    """The highest finite value of input ``of``'s element type."""
    return Default(f"the highest value of input {of}'s type", lambda ctx: _limit(ctx, of, False))


def constant(value: Any, dtype: Any) -> Default:
    """A fixed constant."""
    array = np.asarray(value, dtype)
    return Default(f"{array.tolist()!r} ({array.dtype})", lambda ctx: ctx.const(array, suffix="default"))


def computed(what: str, build: Callable[[ExtractContext], OutPort]) -> Default:
    """A value built from the other inputs (e.g. full sequence lengths from the data shape)."""
    return Default(what, build)


def fill_input(ctx: ExtractContext, idx: int, port: OutPort) -> None:
    """Make input ``idx`` read ``port``: for the extractor, and on the node when it is a hole."""
    while len(ctx.inputs) <= idx:
        ctx.inputs.append(None)
    ctx.inputs[idx] = port
    node = ctx.node
    if idx < node.num_inputs():  # a hole before a later input: the node itself needs it
        port.connect(node.in_port(idx))


@dataclass(frozen=True)
class WithDefaults:
    """An extractor wrapped so its declared empty optional inputs are filled first."""

    extract: Extract
    defaults: Defaults

    def __call__(self, node: Node, ctx: ExtractContext) -> Any:
        for idx in sorted(self.defaults):
            default = self.defaults[idx]
            if default is not None and not ctx.has_input(idx):
                fill_input(ctx, idx, default.build(ctx))
        result = self.extract(node, ctx)
        if isinstance(result, Op):
            _check_no_hole(node, ctx)
        return result


def with_defaults(defaults: Defaults) -> Callable[[Extract], WithDefaults]:
    """``WithDefaults`` as a decorator, under ``@extractor(...)``."""

    def wrap(extract: Extract) -> WithDefaults:
        return WithDefaults(extract, defaults)

    return wrap


def _check_no_hole(node: Node, ctx: ExtractContext) -> None:
    for port in node.in_ports():
        if port.get_source() is None:
            raise ConversionError(
                f"{ctx.where()}, opset {ctx.source_op.opset_version}: optional input "
                f"{port.idx} is empty while a later input is given, and irconv-onnx has no default for it"
            )
