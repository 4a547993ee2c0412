"""Keras' named activation functions as opset ops (``activation="relu"`` of any layer,
the ``Activation`` layer, the recurrent layers' gates)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from irconv import ExtractContext
from irconv.contract.records import Produces
from irconv.frontend import f32, i64
from irconv.graph import OutPort
from irconv.ops import Op
from irconv_opset import (
    Clamp,
    Elu,
    Gelu,
    LogSoftmax,
    Multiply,
    Negative,
    PReLU,
    Selu,
    Sigmoid,
    SoftMax,
    SoftPlus,
    Split,
    Subtract,
    Tanh,
)
from irconv_opset.lowering.elementwise import Unary, unary

Activation = Callable[[ExtractContext, OutPort, str], OutPort]

# keras.activations.selu's constants
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _selu(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    return ctx.op(Selu(), x, f32(ctx, [SELU_ALPHA], "alpha"), f32(ctx, [SELU_SCALE], "lambda"), suffix=suffix)


def _leaky_relu(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    return ctx.op(PReLU(), x, f32(ctx, [0.2], "slope"), suffix=suffix)  # keras.activations.leaky_relu's default


def _log_sigmoid(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    """-softplus(-x)."""
    softplus = ctx.op(SoftPlus(), ctx.op(Negative(), x, suffix=f"{suffix}/negated"), suffix=f"{suffix}/softplus")
    return ctx.op(Negative(), softplus, suffix=suffix)


def _tanh_shrink(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    return ctx.op(Subtract(), x, ctx.op(Tanh(), x, suffix=f"{suffix}/tanh"), suffix=suffix)


def _glu(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    """a * sigmoid(b), a and b the halves of the last axis."""
    halves = ctx.add(Split(num_splits=2), [x, i64(ctx, -1, f"{suffix}/axis")], suffix=f"{suffix}/halves")
    gate = ctx.op(Sigmoid(), halves.out_port(1), suffix=f"{suffix}/gate")
    return ctx.op(Multiply(), halves.out_port(0), gate, suffix=suffix)


def _plain(kind: Unary) -> tuple[Activation, Produces]:
    return (lambda ctx, x, suffix: unary(ctx, kind, x, suffix)), (kind.op,)


def _with(make: Callable[[], Op]) -> tuple[Activation, Produces]:
    """An opset op with attributes (``make`` builds it)."""
    return (lambda ctx, x, suffix: ctx.op(make(), x, suffix=suffix)), (type(make()),)


#: The functions ``keras.activations.get`` knows by name (``hard_silu`` and ``silu`` being
#: Keras' names for hard_swish and swish), whose opset form is exact, with the ops each
#: builds. The others (sparsemax, soft_shrink, threshold, ...) send the file to TensorFlow.
_TABLE: dict[str, tuple[Activation, Produces] | None] = {
    "linear": None,
    "relu": _plain(Unary.RELU),
    "relu6": _with(lambda: Clamp(min=0.0, max=6.0)),
    "sigmoid": _plain(Unary.SIGMOID),
    "hard_sigmoid": _plain(Unary.HSIGMOID),  # relu6(x + 3) / 6
    "hard_silu": _plain(Unary.HSWISH),
    "hard_swish": _plain(Unary.HSWISH),
    "tanh": _plain(Unary.TANH),
    "softmax": _with(lambda: SoftMax(axis=-1)),
    "log_softmax": _with(lambda: LogSoftmax(axis=-1)),
    "swish": _plain(Unary.SWISH),
    "silu": _plain(Unary.SWISH),
    "gelu": _with(lambda: Gelu(approximation_mode="erf")),  # keras.activations.gelu(approximate=False)
    "elu": _with(lambda: Elu(alpha=1.0)),
    "selu": (_selu, (Selu,)),
    "softplus": _plain(Unary.SOFTPLUS),
    "softsign": _plain(Unary.SOFTSIGN),
    "exponential": _plain(Unary.EXP),
    "mish": _plain(Unary.MISH),
    "leaky_relu": (_leaky_relu, (PReLU,)),
    "celu": _with(lambda: Elu(alpha=1.0)),  # celu's default alpha 1 makes it elu
    "hard_tanh": _with(lambda: Clamp(min=-1.0, max=1.0)),
    "log_sigmoid": (_log_sigmoid, (Negative, SoftPlus)),
    "tanh_shrink": (_tanh_shrink, (Subtract, Tanh)),
    "glu": (_glu, (Split, Sigmoid, Multiply)),
}
FUNCTIONS: dict[str, Activation | None] = {name: entry and entry[0] for name, entry in _TABLE.items()}

#: The ops the functions above emit (the ``produces`` of every layer with an ``activation``).
FUNCTION_OPS: list[type[Op]] = sorted({op for entry in _TABLE.values() if entry for op in entry[1]},
                                      key=lambda op: op.__name__)


def known(spec: Any) -> bool:
    """Whether ``spec`` (a config's ``activation`` value) names a function above."""
    return spec is None or (isinstance(spec, str) and spec in FUNCTIONS)


def activate(ctx: ExtractContext, x: OutPort, spec: Any, suffix: str) -> OutPort:
    """``x`` through the activation ``spec`` names (None and "linear": ``x`` itself)."""
    if spec is None:
        return x
    if not known(spec):
        raise ctx.attrs.bad("activation", spec, f"not one of Keras' activations {sorted(FUNCTIONS)}")
    function = FUNCTIONS[spec]
    return x if function is None else function(ctx, x, suffix)
