"""Keras' named activation functions as opset ops (``activation="relu"`` of any layer,
the ``Activation`` layer, the recurrent layers' gates)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from irconv import ExtractContext
from irconv.frontend import f32
from irconv.graph import OutPort
from irconv_opset import (
    Clamp,
    Elu,
    Exp,
    Gelu,
    HSigmoid,
    HSwish,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    Selu,
    Sigmoid,
    SoftMax,
    SoftPlus,
    SoftSign,
    Swish,
    Tanh,
)

Activation = Callable[[ExtractContext, OutPort, str], OutPort]

# keras.activations.selu's constants
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _op(make: Callable[[], Any]) -> Activation:
    return lambda ctx, x, suffix: ctx.op(make(), x, suffix=suffix)


def _selu(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    return ctx.op(Selu(), x, f32(ctx, [SELU_ALPHA], "alpha"), f32(ctx, [SELU_SCALE], "lambda"), suffix=suffix)


def _leaky_relu(ctx: ExtractContext, x: OutPort, suffix: str) -> OutPort:
    return ctx.op(PReLU(), x, f32(ctx, [0.2], "slope"), suffix=suffix)  # keras.activations.leaky_relu's default


#: The functions ``keras.activations.get`` knows by name (``hard_silu`` and ``silu`` being
#: Keras' names for hard_swish and swish), whose opset form is exact.
FUNCTIONS: dict[str, Activation | None] = {
    "linear": None,
    "relu": _op(ReLU),
    "relu6": _op(lambda: Clamp(min=0.0, max=6.0)),
    "sigmoid": _op(Sigmoid),
    "hard_sigmoid": _op(HSigmoid),  # relu6(x + 3) / 6
    "hard_silu": _op(HSwish),
    "hard_swish": _op(HSwish),
    "tanh": _op(Tanh),
    "softmax": _op(lambda: SoftMax(axis=-1)),
    "log_softmax": _op(lambda: LogSoftmax(axis=-1)),
    "swish": _op(Swish),
    "silu": _op(Swish),
    "gelu": _op(lambda: Gelu(approximation_mode="erf")),  # keras.activations.gelu(approximate=False)
    "elu": _op(lambda: Elu(alpha=1.0)),
    "selu": _selu,
    "softplus": _op(SoftPlus),
    "softsign": _op(SoftSign),
    "exponential": _op(Exp),
    "mish": _op(Mish),
    "leaky_relu": _leaky_relu,
}


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
