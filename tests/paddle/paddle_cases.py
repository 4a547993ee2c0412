"""Paddle models for the end-to-end tests, each built in Paddle itself by a factory.

Imported by :mod:`tests.paddle.save_models` inside a subprocess that has Paddle (with
``FLAGS_enable_pir_api=0`` for the legacy program form, which Paddle reads only at start);
the test process itself never imports Paddle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    """A layer to save with ``paddle.jit.save``: ``build()`` makes it (after ``paddle.seed(0)``),
    ``inputs`` are (name, shape with None for a dimension given at run time, dtype, concrete shape)."""

    build: Callable[[], Any]
    inputs: tuple[tuple[str, tuple[int | None, ...], str, tuple[int, ...]], ...]
    positive: bool = False
    #: For the legacy form, when Paddle 3's Python API only traces into PIR: the op type and
    #: attributes of a one-operator legacy program (inputs in slots X and Y, or as a third item
    #: maps slots to input names; result in Out), or a function building the program through
    #: Paddle's static-graph API (the input variables in, the result variables out).
    legacy: tuple[Any, ...] | Callable[..., list[Any]] | None = None
    #: Why irconv does not convert the legacy form of this case yet (its test is a strict xfail).
    legacy_not_converted: str | None = None
    #: The program forms the case is saved in (an op Paddle's Python API no longer reaches:
    #: only the legacy one-operator program).
    forms: tuple[str, ...] = ("legacy", "pir")


def _image(c: int = 3, h: int = 8, w: int = 8) -> tuple[tuple[str, tuple[int | None, ...], str, tuple[int, ...]], ...]:
    return (("x", (None, c, h, w), "float32", (2, c, h, w)),)


def _plain(*shape: int, dtype: str = "float32", name: str = "x") -> tuple[str, tuple[int | None, ...], str, tuple[int, ...]]:
    return (name, tuple(shape), dtype, tuple(shape))


def fn(function: Callable[..., Any]) -> Callable[[], Any]:
    """A parameter-free layer computing ``function`` of its one or two inputs (Paddle's
    program translation needs a ``forward`` with named parameters)."""

    def build() -> Any:
        import inspect

        import paddle

        arity = sum(p.default is inspect.Parameter.empty for p in inspect.signature(function).parameters.values())

        class One(paddle.nn.Layer):
            def forward(self, x: Any) -> Any:
                return function(x)

        class Two(paddle.nn.Layer):
            def forward(self, a: Any, b: Any) -> Any:
                return function(a, b)

        return One() if arity == 1 else Two()

    return build


def layer(make: Callable[[], Any]) -> Callable[[], Any]:
    return make


def _p() -> Any:
    import paddle

    return paddle


def _f() -> Any:
    import paddle.nn.functional as F

    return F


def _n() -> Any:
    import paddle.nn as nn

    return nn


def _set(x: Any, index: Any, value: Any) -> Any:
    """``x`` with ``x[index] = value`` (on a copy: the input itself is not assigned to)."""
    y = x * 1.0
    y[index] = value
    return y


def _branchy(x: Any) -> Any:
    """A tensor-valued condition: Paddle's program translation makes it an ``if`` op."""
    if x.mean() > 0:  # noqa: SIM108 (an if statement is what Paddle translates into its if op)
        y = x * 2.0
    else:
        y = x - 1.0
    return y


def _branchy_shifted(x: Any) -> Any:
    """The other branch of :func:`_branchy` taken."""
    return _branchy(x - 10.0)


def _loop(x: Any) -> Any:
    """A tensor-valued loop condition: Paddle's program translation makes it a ``while`` op."""
    i = _p().zeros([1], dtype="int64")
    n = _p().full([1], 3, dtype="int64")
    while i < n:
        x = x * 1.5 + x.mean()
        i = i + 1
    return x


def _loop_until(x: Any) -> Any:
    """A loop whose trip count depends on the data, carrying two values."""
    total = _p().zeros([1])
    while total < 5.0:
        total = total + x.abs().mean() + 0.5
        x = x * 0.5
    return x, total


def _legacy_logical_not(x: Any) -> Any:
    """A legacy ``logical_not`` operator (Paddle 3's ``paddle.logical_not`` only builds PIR)."""
    from paddle.base.layer_helper import LayerHelper

    helper = LayerHelper("logical_not")
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op(type="logical_not", inputs={"X": [x]}, outputs={"Out": [out]})
    return out


def _legacy_eye(rows: int, columns: int) -> Any:
    """A legacy ``eye`` operator (Paddle 3's ``paddle.eye`` only builds PIR)."""
    from paddle.base.layer_helper import LayerHelper

    helper = LayerHelper("eye")
    out = helper.create_variable_for_type_inference(dtype="float32")
    helper.append_op(type="eye", outputs={"Out": [out]}, attrs={"num_rows": rows, "num_columns": columns, "dtype": 5})
    return out


def _legacy_cond(threshold: float) -> Callable[..., list[Any]]:
    """``paddle.static.nn.cond`` on ``mean(x) > threshold`` with two results per branch, as
    Paddle writes it in a legacy program: a ``conditional_block`` per branch, then one
    ``select_input`` per result."""

    def build(x: Any, y: Any) -> list[Any]:
        paddle = _p()
        pred = paddle.mean(x) > threshold
        real = paddle.logical_not
        paddle.logical_not = _legacy_logical_not  # what cond builds its false branch's condition with
        try:
            return list(paddle.static.nn.cond(pred, lambda: (x * 2.0, y * x + x),
                                              lambda: (x - 1.0, y * y)))
        finally:
            paddle.logical_not = real

    return build


def _legacy_overwrite(threshold: float) -> Callable[..., list[Any]]:
    """A legacy ``conditional_block`` writing over a variable made before it (``y``) when
    ``mean(x) > threshold``, with no ``select_input`` after it."""

    def build(x: Any) -> list[Any]:
        from paddle.static.nn.control_flow import ConditionalBlock

        paddle = _p()
        y = x + 1.0
        block = ConditionalBlock([paddle.mean(x) > threshold], is_scalar_condition=True)
        with block.block():
            paddle.assign(x * x * 3.0, output=y)
        return [y * 2.0]

    return build


def _appended(x: Any) -> Any:
    """A loop appending to a list (a tensor array in the program), joined along axis 0."""
    paddle = _p()
    out = []
    i = paddle.zeros([1], dtype="int64")
    while i < paddle.full([1], 3, dtype="int64"):
        x = x * 1.5 + 0.5
        out.append(x)
        i = i + 1
    return paddle.concat(out, axis=0), paddle.stack(out), len(out)


def _appended_until(x: Any) -> Any:
    """As :func:`_appended`, the trip count depending on the data and the list joined along other axes."""
    paddle = _p()
    out = []
    total = paddle.zeros([1])
    while total < 4.0:
        total = total + (x * x).mean() + 0.5
        out.append(x * total)
    return paddle.concat(out, axis=1), paddle.stack(out, axis=2), len(out)


def _two_results(x: Any) -> Any:
    if x.sum() > 100:
        a, b = x + 1.0, x.max(axis=1)
    else:
        a, b = x * x, x.min(axis=1)
    return a, b


def _Recurrent(kind: str, **options: Any) -> Any:  # noqa: N802 (a layer factory, named like the layer)
    """paddle.nn.LSTM / GRU / SimpleRNN of hidden size 5 over [N, T, 4]: the outputs and final states."""
    paddle = _p()

    class Recurrent(paddle.nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.cell = getattr(paddle.nn, kind)(4, 5, **options)

        def forward(self, x: Any) -> Any:
            y, state = self.cell(x)
            return (y, *state) if isinstance(state, tuple) else (y, state)

    return Recurrent()


def _DeformConv(mask: bool) -> Any:  # noqa: N802 (a layer factory, named like the layer)
    """A deformable convolution whose offsets (and mask) come from a plain convolution of the input."""
    paddle = _p()

    class DeformConv(paddle.nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.offsets = paddle.nn.Conv2D(4, 2 * 9, 3, padding=1)
            self.mask = paddle.nn.Conv2D(4, 9, 3, padding=1)
            self.conv = paddle.vision.ops.DeformConv2D(4, 6, 3, padding=1)

        def forward(self, x: Any) -> Any:
            offsets = self.offsets(x) * 2.0
            return self.conv(x, offsets, paddle.nn.functional.sigmoid(self.mask(x)) if mask else None)

    return DeformConv()


UNARY = ["sigmoid", "tanh", "exp", "abs", "floor", "ceil", "sin", "cos", "erf", "sign", "atan", "sinh",
         "cosh", "asinh"]
POSITIVE_UNARY = ["log", "sqrt", "rsqrt", "reciprocal"]

CASES: dict[str, Case] = {}
for _name in UNARY:
    CASES[_name] = Case(fn(lambda x, n=_name: getattr(_p(), n)(x)), (_plain(2, 3, 4),), legacy=(_name, {}))
for _name in POSITIVE_UNARY:
    CASES[_name] = Case(fn(lambda x, n=_name: getattr(_p(), n)(x)), (_plain(2, 3, 4),), positive=True,
                        legacy=(_name, {}))

CASES.update({
    "relu": Case(fn(lambda x: _f().relu(x)), (_plain(2, 3, 4),)),
    "relu6": Case(fn(lambda x: _f().relu6(x * 4)), (_plain(2, 3, 4),)),
    "leaky_relu": Case(fn(lambda x: _f().leaky_relu(x, 0.1)), (_plain(2, 3, 4),)),
    "elu": Case(fn(lambda x: _f().elu(x, 0.7)), (_plain(2, 3, 4),)),
    "gelu": Case(fn(lambda x: _f().gelu(x)), (_plain(2, 3, 4),), legacy=("gelu", {"approximate": False})),
    "gelu_tanh": Case(fn(lambda x: _f().gelu(x, approximate=True)), (_plain(2, 3, 4),),
                      legacy=("gelu", {"approximate": True})),
    "hardsigmoid": Case(fn(lambda x: _f().hardsigmoid(x * 4)), (_plain(2, 3, 4),)),
    "hardswish": Case(fn(lambda x: _f().hardswish(x * 4)), (_plain(2, 3, 4),)),
    "silu": Case(fn(lambda x: _f().silu(x)), (_plain(2, 3, 4),)),
    "swish": Case(fn(lambda x: _f().swish(x)), (_plain(2, 3, 4),)),
    "mish": Case(fn(lambda x: _f().mish(x)), (_plain(2, 3, 4),)),
    "softplus": Case(fn(lambda x: _f().softplus(x * 10, beta=2, threshold=5)), (_plain(2, 3, 4),),
                     legacy=("softplus", {"beta": 2.0, "threshold": 0.5})),
    "softsign": Case(fn(lambda x: _f().softsign(x)), (_plain(2, 3, 4),)),
    "log_sigmoid": Case(fn(lambda x: _f().log_sigmoid(x)), (_plain(2, 3, 4),)),
    "square": Case(fn(lambda x: _p().square(x)), (_plain(2, 3, 4),)),
    "pow": Case(fn(lambda x: _p().pow(x, 3.0)), (_plain(2, 3, 4),), legacy=("pow", {"factor": 3.0})),
    "softmax": Case(fn(lambda x: _f().softmax(x, axis=1)), (_plain(2, 3, 4),)),
    "log_softmax": Case(fn(lambda x: _f().log_softmax(x, axis=-1)), (_plain(2, 3, 4),)),
    "clip": Case(fn(lambda x: _p().clip(x, -0.5, 0.25)), (_plain(2, 3, 4),)),
    "scale": Case(fn(lambda x: _p().scale(x, 2.5, 0.5)), (_plain(2, 3, 4),)),
    "scale_bias_first": Case(fn(lambda x: _p().scale(x, 2.5, 0.5, bias_after_scale=False)), (_plain(2, 3, 4),)),
    "prelu_channel": Case(lambda: _n().PReLU(3, 0.2), _image()),
    "prelu_all": Case(lambda: _n().PReLU(1, 0.3), _image()),
    "add": Case(fn(lambda a, b: a + b), (_plain(2, 3, 4, name="a"), _plain(3, 4, name="b"))),
    "subtract": Case(fn(lambda a, b: a - b), (_plain(2, 3, 4, name="a"), _plain(2, 3, 4, name="b"))),
    "multiply": Case(fn(lambda a, b: a * b), (_plain(2, 3, 4, name="a"), _plain(1, 4, name="b"))),
    "divide": Case(fn(lambda a, b: a / (b * b + 1)), (_plain(2, 3, 4, name="a"), _plain(2, 3, 4, name="b")),
                   legacy=("elementwise_div", {"axis": -1}), positive=True),
    "maximum": Case(fn(lambda a, b: _p().maximum(a, b)), (_plain(2, 3, 4, name="a"), _plain(2, 3, 4, name="b")),
                    legacy=("elementwise_max", {"axis": -1})),
    "minimum": Case(fn(lambda a, b: _p().minimum(a, b)), (_plain(2, 3, 4, name="a"), _plain(3, 4, name="b")),
                    legacy=("elementwise_min", {"axis": -1})),
    "greater_where": Case(fn(lambda a, b: _p().where(a > b, a, b * 2)), (_plain(2, 3, name="a"), _plain(2, 3, name="b"))),
    "matmul": Case(fn(lambda a, b: _p().matmul(a, b, transpose_y=True)), (_plain(2, 3, 4, name="a"), _plain(5, 4, name="b")),
                   legacy=("matmul_v2", {"trans_x": False, "trans_y": True})),
    "linear": Case(lambda: _n().Linear(4, 5), (("x", (None, 4), "float32", (3, 4)),)),
    "reshape": Case(fn(lambda x: x.reshape([0, -1, 2])), (_plain(2, 3, 4),)),
    "flatten": Case(fn(lambda x: x.flatten(1, 2)), (_plain(2, 3, 4, 5),)),
    "transpose": Case(fn(lambda x: x.transpose([2, 0, 1])), (_plain(2, 3, 4),)),
    "squeeze_unsqueeze": Case(fn(lambda x: x.unsqueeze(1).squeeze(3)), (_plain(2, 3, 1, 4),)),
    "concat": Case(fn(lambda a, b: _p().concat([a, b, a], axis=1)), (_plain(2, 3, 4, name="a"), _plain(2, 2, 4, name="b"))),
    "split": Case(fn(lambda x: _p().split(x, [1, 3], axis=2)), (_plain(2, 3, 4),)),
    "split_num": Case(fn(lambda x: _p().split(x, 2, axis=-1)), (_plain(2, 3, 4),)),
    "slice": Case(fn(lambda x: x[:, 1:, ::2]), (_plain(2, 3, 4),)),
    "slice_index": Case(fn(lambda x: x[:, 1]), (_plain(2, 3, 4),)),
    "stack": Case(fn(lambda a, b: _p().stack([a, b], axis=1)), (_plain(2, 3, name="a"), _plain(2, 3, name="b"))),
    "full_add": Case(fn(lambda x: x + _p().full([4], 2.0)), (_plain(2, 3, 4),)),
    "cast": Case(fn(lambda x: (x * 3).cast("int32").cast("float32")), (_plain(2, 3, 4),)),
    "expand": Case(fn(lambda x: x.expand([2, 3, 4])), (_plain(3, 1),)),
    "tile": Case(fn(lambda x: _p().tile(x, [2, 1, 3])), (_plain(2, 3),)),
    "gather": Case(fn(lambda x: _p().gather(x, _p().to_tensor([2, 0]), axis=1)), (_plain(2, 3, 4),)),
    "embedding": Case(lambda: _n().Embedding(10, 4), (("x", (2, 3), "int64", (2, 3)),)),
    "conv": Case(lambda: _n().Conv2D(3, 4, 3, padding=1, stride=2), _image()),
    "conv_group": Case(lambda: _n().Conv2D(4, 8, 3, padding=[1, 2], groups=2, dilation=2), _image(4)),
    "conv_same": Case(lambda: _n().Conv2D(3, 4, 3, padding="SAME", stride=2), _image(3, 9, 9)),
    "depthwise": Case(lambda: _n().Conv2D(4, 4, 3, padding=1, groups=4), _image(4)),
    "conv_transpose": Case(lambda: _n().Conv2DTranspose(3, 4, 3, stride=2, padding=1, output_padding=1), _image()),
    "batch_norm": Case(lambda: _n().BatchNorm2D(3), _image()),
    "layer_norm": Case(lambda: _n().LayerNorm([4]), (_plain(2, 3, 4),)),
    "max_pool": Case(fn(lambda x: _f().max_pool2d(x, 3, 2, padding=1)), _image(3, 9, 9)),
    "max_pool_ceil": Case(fn(lambda x: _f().max_pool2d(x, 2, 2, ceil_mode=True)), _image(3, 9, 9)),
    "avg_pool": Case(fn(lambda x: _f().avg_pool2d(x, 3, 2, padding=1)), _image(3, 9, 9)),
    "avg_pool_inclusive": Case(fn(lambda x: _f().avg_pool2d(x, 3, 2, padding=1, exclusive=False)), _image(3, 9, 9)),
    "adaptive_avg_pool": Case(fn(lambda x: _f().adaptive_avg_pool2d(x, 1)), _image()),
    "adaptive_avg_pool_2x3": Case(fn(lambda x: _f().adaptive_avg_pool2d(x, [2, 3])), _image(3, 8, 9)),
    "adaptive_max_pool": Case(fn(lambda x: _f().adaptive_max_pool2d(x, 2)), _image()),
    "dropout": Case(lambda: _n().Dropout(0.3), (_plain(2, 3, 4),)),
    "dropout_downscale": Case(lambda: _n().Dropout(0.3, mode="downscale_in_infer"), (_plain(2, 3, 4),)),
    "sum": Case(fn(lambda x: x.sum(axis=[1, 2], keepdim=True)), (_plain(2, 3, 4),),
                legacy=("reduce_sum", {"dim": [1, 2], "keep_dim": True, "reduce_all": False})),
    "sum_all": Case(fn(lambda x: x.sum()), (_plain(2, 3, 4),),
                    legacy=("reduce_sum", {"dim": [], "keep_dim": False, "reduce_all": True})),
    "mean": Case(fn(lambda x: x.mean(axis=-1)), (_plain(2, 3, 4),)),
    "max": Case(fn(lambda x: x.max(axis=1)), (_plain(2, 3, 4),)),
    "min": Case(fn(lambda x: x.min(axis=0, keepdim=True)), (_plain(2, 3, 4),)),
    "prod": Case(fn(lambda x: x.prod(axis=2)), (_plain(2, 3, 4),)),
    "argmax": Case(fn(lambda x: x.argmax(axis=1)), (_plain(2, 3, 4),),
                   legacy=("arg_max", {"axis": 1, "keepdims": False, "flatten": False, "dtype": 3})),
    "argmin_keepdim": Case(fn(lambda x: x.argmin(axis=-1, keepdim=True)), (_plain(2, 3, 4),),
                           legacy=("arg_min", {"axis": -1, "keepdims": True, "flatten": False, "dtype": 3})),
    "topk": Case(fn(lambda x: _p().topk(x, 2, axis=1)), (_plain(2, 5, 4),)),
    "topk_smallest": Case(fn(lambda x: _p().topk(x, 3, largest=False)), (_plain(2, 5, 6),)),
    "argsort": Case(fn(lambda x: _p().argsort(x, axis=1, descending=True)), (_plain(2, 5, 4),)),
    "sort": Case(fn(lambda x: _p().sort(x, axis=-1)), (_plain(2, 5, 4),)),
    "cumsum": Case(fn(lambda x: _p().cumsum(x, axis=1)), (_plain(2, 3, 4),)),
    "interp_nearest": Case(fn(lambda x: _f().interpolate(x, scale_factor=2, mode="nearest")), _image(3, 4, 5)),
    "interp_nearest_size": Case(fn(lambda x: _f().interpolate(x, size=[7, 9], mode="nearest")), _image(3, 4, 5)),
    "interp_bilinear": Case(fn(lambda x: _f().interpolate(x, size=[7, 9], mode="bilinear")), _image(3, 4, 5)),
    "interp_bilinear_corners": Case(fn(lambda x: _f().interpolate(x, scale_factor=2, mode="bilinear",
                                                                  align_corners=True)), _image(3, 4, 5)),
    "interp_bilinear_mode1": Case(fn(lambda x: _f().interpolate(x, size=[8, 8], mode="bilinear", align_mode=1)),
                                  _image(3, 4, 5)),
    "interp_bicubic": Case(fn(lambda x: _f().interpolate(x, size=[6, 7], mode="bicubic")), _image(3, 4, 5)),
    "upsample_nearest": Case(lambda: _n().Upsample(scale_factor=2, mode="nearest"), _image(3, 4, 5)),
    "pad_constant": Case(fn(lambda x: _f().pad(x, [1, 2, 0, 1], value=0.5)), _image(3, 4, 5)),
    "pad_reflect": Case(fn(lambda x: _f().pad(x, [1, 2, 2, 1], mode="reflect")), _image(3, 4, 5)),
    "pad_replicate": Case(fn(lambda x: _f().pad(x, [1, 0, 2, 1], mode="replicate")), _image(3, 4, 5)),
    "pixel_shuffle": Case(fn(lambda x: _f().pixel_shuffle(x, 2)), _image(8, 3, 4)),
    "group_norm": Case(lambda: _n().GroupNorm(2, 4), _image(4)),
    "instance_norm": Case(lambda: _n().InstanceNorm2D(3), _image()),
    "arange": Case(fn(lambda x: x + _p().arange(0, 4, 1, dtype="float32")), (_plain(2, 3, 4),)),
    "flip": Case(fn(lambda x: _p().flip(x, [0, 2])), (_plain(2, 3, 4),)),
    "roll": Case(fn(lambda x: _p().roll(x, [1, -2], [1, 2])), (_plain(2, 3, 4),)),
    "roll_flat": Case(fn(lambda x: _p().roll(x, 5)), (_plain(2, 3, 4),)),
    "one_hot": Case(fn(lambda x: _f().one_hot(x, 10)), (("x", (2, 3), "int64", (2, 3)),)),
    "index_select": Case(fn(lambda x: _p().index_select(x, _p().to_tensor([2, 0, 2]), axis=2)), (_plain(2, 3, 4),)),
    "take_along_axis": Case(fn(lambda x: _p().take_along_axis(x, x.argsort(axis=1), 1)), (_plain(2, 3, 4),)),
    "nonzero": Case(fn(lambda x: _p().nonzero(x > 0.5)), (_plain(3, 4),)),
    "unstack": Case(fn(lambda x: _p().unstack(x, axis=1)), (_plain(2, 3, 4),)),
    "add_n": Case(fn(lambda a, b: _p().add_n([a, b, a])), (_plain(2, 3, name="a"), _plain(2, 3, name="b"))),
    "atan2": Case(fn(lambda a, b: _p().atan2(a, b)), (_plain(2, 3, name="a"), _plain(2, 3, name="b"))),
    "bmm": Case(fn(lambda a, b: _p().bmm(a, b)), (_plain(2, 3, 4, name="a"), _plain(2, 4, 5, name="b"))),
    "round": Case(fn(lambda x: _p().round(x * 3)), (_plain(2, 3, 4),), legacy=("round", {})),
    "log2": Case(fn(lambda x: _p().log2(x)), (_plain(2, 3, 4),), positive=True, legacy=("log2", {})),
    "softshrink": Case(fn(lambda x: _f().softshrink(x, 0.3)), (_plain(2, 3, 4),)),
    "tanhshrink": Case(fn(lambda x: _f().tanhshrink(x)), (_plain(2, 3, 4),)),
    "hardtanh": Case(fn(lambda x: _f().hardtanh(x, -0.5, 0.7)), (_plain(2, 3, 4),)),
    "thresholded_relu": Case(fn(lambda x: _f().thresholded_relu(x, 0.4)), (_plain(2, 3, 4),)),
    "tril": Case(fn(lambda x: _p().tril(x, 1)), (_plain(2, 4, 5),)),
    "triu": Case(fn(lambda x: _p().triu(x, -1)), (_plain(2, 4, 5),)),
    "meshgrid": Case(fn(lambda a, b: _p().meshgrid(a, b)), (_plain(3, name="a"), _plain(4, name="b"))),
    "linspace": Case(fn(lambda x: x + _p().linspace(-1, 2, 4)), (_plain(2, 3, 4),)),
    "scatter": Case(fn(lambda x: _p().scatter(x, _p().to_tensor([2, 0]), x[:2] * 3)), (_plain(4, 3),)),
    "scatter_add": Case(fn(lambda x: _p().scatter(x, _p().to_tensor([1, 1]), x[:2] * 3, overwrite=False)),
                        (_plain(4, 3),)),
    "scatter_nd_add": Case(fn(lambda x: _p().scatter_nd_add(x, _p().to_tensor([[1], [3], [1]]), x[:3] + 1)),
                           (_plain(4, 3),)),
    "grid_sample": Case(fn(lambda a, b: _f().grid_sample(a, _p().tanh(b))), (_plain(1, 2, 5, 6, name="a"),
                                                                           _plain(1, 3, 4, 2, name="b"))),
    "var": Case(fn(lambda x: _p().var(x, axis=1)), (_plain(2, 3, 4),)),
    "p_norm": Case(fn(lambda x: _p().linalg.norm(x, p=2, axis=1)), (_plain(2, 3, 4),),
                   legacy=("p_norm", {"porder": 2.0, "axis": 1, "epsilon": 1e-12, "keepdim": False,
                                      "asvector": False})),
    "p_norm_3_keepdim": Case(fn(lambda x: _p().linalg.norm(x, p=3, axis=-1, keepdim=True)), (_plain(2, 3, 4),),
                             legacy=("p_norm", {"porder": 3.0, "axis": -1, "epsilon": 1e-12, "keepdim": True,
                                                "asvector": False})),
    "p_norm_inf": Case(fn(lambda x: _p().linalg.norm(x, p=float("inf"), axis=0)), (_plain(2, 3, 4),),
                       legacy=("p_norm", {"porder": float("inf"), "axis": 0, "epsilon": 1e-12, "keepdim": False,
                                          "asvector": False})),
    "p_norm_1_vector": Case(fn(lambda x: _p().linalg.norm(x.flatten(), p=1, axis=0)), (_plain(2, 3, 4),),
                            legacy=("p_norm", {"porder": 1.0, "axis": 0, "epsilon": 1e-12, "keepdim": False,
                                               "asvector": True})),
    "eye": Case(fn(lambda x: x + _p().eye(3, 4)), (_plain(2, 3, 4),),
                legacy=lambda x: [x + _legacy_eye(3, 4)]),
    "eye_square": Case(fn(lambda x: x * _p().eye(4)), (_plain(2, 4, 4),), legacy=lambda x: [x * _legacy_eye(4, -1)]),
    "variance": Case(fn(lambda x: x), (_plain(2, 3, 4),), forms=("legacy",),
                     legacy=("variance", {"axis": [0, 2], "keepdim": False}, {"x": ["x"]}, "out")),
    "variance_all_keepdim": Case(fn(lambda x: x), (_plain(2, 3, 4),), forms=("legacy",),
                                 legacy=("variance", {"axis": [], "keepdim": True}, {"x": ["x"]}, "out")),
    "numel": Case(fn(lambda x: x / _p().numel(x).cast("float32")), (_plain(2, 3, 4),)),
    "partial_sum": Case(fn(lambda a, b: a[:, 1:3] + b[:, 1:3]), (_plain(2, 5, name="a"), _plain(2, 5, name="b")),
                        legacy=("partial_sum", {"start_index": 1, "length": 2}, {"X": ["a", "b"]})),
    "partial_concat": Case(fn(lambda a, b: _p().concat([a[:, 2:], b[:, 2:]], 1)),
                           (_plain(2, 5, name="a"), _plain(2, 5, name="b")),
                           legacy=("partial_concat", {"start_index": 2, "length": -1}, {"X": ["a", "b"]})),
    "diagonal": Case(fn(lambda x: _p().diagonal(x, offset=1, axis1=1, axis2=2)), (_plain(2, 4, 5),)),
    "fill_batch_size_like": Case(fn(lambda x: _p().full_like(x[:, :1], 1.5).expand([-1, 4])),
                                 (("x", (None, 3), "float32", (2, 3)),),
                                 legacy=("fill_constant_batch_size_like", {"shape": [-1, 4], "value": 1.5, "dtype": 5,
                                         "input_dim_idx": 0, "output_dim_idx": 0}, {"Input": ["x"]})),
    "set_value": Case(fn(lambda x: _set(x, (slice(None), slice(1, 3)), 2.5)), (_plain(2, 4, 5),)),
    "set_value_tensor": Case(fn(lambda a, b: _set(a, (0, slice(None), slice(None, None, 2)), b[0, :, ::2])),
                             (_plain(2, 4, 5, name="a"), _plain(2, 4, 5, name="b"))),
    "if_positive": Case(fn(_branchy), (_plain(2, 3),)),
    "if_negative": Case(fn(_branchy_shifted), (_plain(2, 3),)),
    "if_two_results": Case(fn(_two_results), (_plain(2, 3),)),
    "conditional_block_true": Case(fn(lambda a, b: a), (_plain(2, 3, name="a"), _plain(2, 3, name="b")),
                                   forms=("legacy",), legacy=_legacy_cond(-10.0)),
    "conditional_block_false": Case(fn(lambda a, b: a), (_plain(2, 3, name="a"), _plain(2, 3, name="b")),
                                    forms=("legacy",), legacy=_legacy_cond(10.0)),
    "conditional_block_overwrite_true": Case(fn(lambda x: x), (_plain(2, 3),), forms=("legacy",),
                                             legacy=_legacy_overwrite(-10.0)),
    "conditional_block_overwrite_false": Case(fn(lambda x: x), (_plain(2, 3),), forms=("legacy",),
                                              legacy=_legacy_overwrite(10.0)),
    "unique": Case(fn(lambda x: _p().unique((x * 2).round(), return_index=True, return_inverse=True,
                                            return_counts=True)), (_plain(3, 4),)),
    "deform_conv": Case(lambda: _DeformConv(mask=True), (_plain(1, 4, 6, 7, name="x"),)),
    "deform_conv_v1": Case(lambda: _DeformConv(mask=False), (_plain(1, 4, 6, 7, name="x"),)),
    "lstm": Case(lambda: _Recurrent("LSTM", num_layers=2), (_plain(2, 3, 4),)),
    "lstm_bidirectional": Case(lambda: _Recurrent("LSTM", direction="bidirect"), (_plain(2, 3, 4),)),
    "gru": Case(lambda: _Recurrent("GRU", direction="bidirect", num_layers=2), (_plain(2, 3, 4),)),
    "simple_rnn": Case(lambda: _Recurrent("SimpleRNN", activation="relu"), (_plain(2, 3, 4),)),
    "dynamic_reshape": Case(fn(lambda x: x.reshape([_p().shape(x)[0], -1]) * 2), (("x", (None, 3, 4), "float32", (2, 3, 4)),)),
    "dynamic_full": Case(fn(lambda x: x.sum(axis=[1, 2]).unsqueeze(1) + _p().full([_p().shape(x)[0], 4], 1.5)),
                         (("x", (None, 3, 4), "float32", (2, 3, 4)),)),
    "dynamic_expand": Case(fn(lambda x: x[:, :1].expand([_p().shape(x)[0], 5, 4])), (("x", (None, 3, 4), "float32", (2, 3, 4)),)),
    "dynamic_zeros_like_shape": Case(fn(lambda x: x + _p().zeros([_p().shape(x)[0], _p().shape(x)[1], 1])),
                                     (("x", (None, None, 4), "float32", (2, 3, 4)),)),
    "while": Case(fn(_loop), (_plain(2, 3),)),
    "while_until": Case(fn(_loop_until), (_plain(2, 3),)),
    "tensor_array": Case(fn(_appended), (_plain(2, 3),)),
    "tensor_array_until": Case(fn(_appended_until), (_plain(2, 3),)),
    "quantize_linear": Case(fn(lambda x, s, z: x), (_plain(2, 3, 4), _plain(1, name="s"), _plain(1, name="z")),
                            positive=True, forms=("legacy",), legacy=("quantize_linear", {"bit_length": 8, "quant_axis": -1,
                                                                       "round_type": 0, "is_test": True},
                                                   {"X": ["x"], "Scale": ["s"], "ZeroPoint": ["z"]}, "Y")),
    "dequantize_linear": Case(fn(lambda x, s, z: x), (_plain(2, 3, 4), _plain(3, name="s"), _plain(3, name="z")),
                              positive=True, forms=("legacy",), legacy=("dequantize_linear", {"bit_length": 8, "quant_axis": 1},
                                                     {"X": ["x"], "Scale": ["s"], "ZeroPoint": ["z"]}, "Y")),
    "channel_shuffle": Case(fn(lambda x: _f().channel_shuffle(x, 2)), _image(4)),
})


def vision(name: str, size: int = 64) -> Case:
    """A ``paddle.vision.models`` network with random weights, at batch 2 and ``size``x``size``."""

    def build() -> Any:
        from paddle.vision import models

        return getattr(models, name)()

    return Case(build, (("x", (None, 3, size, size), "float32", (2, 3, size, size)),))


VISION: dict[str, Case] = {name: vision(name) for name in (
    "resnet18", "resnet50", "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "shufflenet_v2_x0_25", "shufflenet_v2_swish", "densenet121", "squeezenet1_1", "vgg11", "resnext50_32x4d",
    "wide_resnet50_2")}
# Networks whose classifier is sized for their native input (fixed-size fully connected layers).
VISION.update({"googlenet": vision("googlenet", 224), "alexnet": vision("alexnet", 224),
               "inception_v3": vision("inception_v3", 299)})


#: Models for the refusal tests: two operators irconv-paddle has no extractor for.
UNSUPPORTED: dict[str, Case] = {
    "unsupported": Case(fn(lambda x: _p().kron(x, x).sum() + _p().linalg.det(x)), (_plain(3, 3),)),
}


def _boxes(raw: Any) -> Any:
    """Valid corner boxes (x1 <= x2, y1 <= y2) from any values."""
    paddle = _p()
    corner = paddle.nn.functional.sigmoid(raw[..., :2])
    return paddle.concat([corner, corner + paddle.abs(raw[..., 2:]) * 0.3], axis=-1)


def _YoloHead() -> Any:  # noqa: N802 (a layer factory, named like the layer)
    """A detection-style network: a small convolutional backbone, a YOLOv3 head decoded by
    yolo_box for 320x320 images, and multiclass_nms3 over its boxes."""
    paddle = _p()

    class YoloHead(paddle.nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.backbone = paddle.nn.Sequential(
                paddle.nn.Conv2D(3, 8, 3, stride=2, padding=1), paddle.nn.BatchNorm2D(8), paddle.nn.LeakyReLU(0.1),
                paddle.nn.Conv2D(8, 16, 3, stride=2, padding=1), paddle.nn.BatchNorm2D(16), paddle.nn.LeakyReLU(0.1))
            self.head = paddle.nn.Conv2D(16, 3 * (5 + 4), 1)

        def forward(self, x: Any) -> Any:
            raw = self.head(self.backbone(x))
            size = paddle.full([x.shape[0], 2], 320, dtype="int32")
            boxes, scores = paddle.vision.ops.yolo_box(raw, size, anchors=[10, 13, 16, 30, 33, 23], class_num=4,
                                                       conf_thresh=0.3, downsample_ratio=4)
            nms = paddle._C_ops.multiclass_nms3(boxes, scores.transpose([0, 2, 1]), None, 0.3, 50, 10, 0.45,
                                                False, 1.0, -1)
            return boxes, scores, nms[0], nms[2]

    return YoloHead()


def _proposal_inputs(batch: int) -> tuple[Any, Any, Any]:
    """Anchors [4, 5, 3, 4] (valid corner boxes on a 64x80 image), their variances, the images' sizes."""
    import numpy as np

    rng = np.random.default_rng(3)
    corner = rng.uniform(0, 60, (4, 5, 3, 2))
    anchors = np.concatenate([corner, corner + rng.uniform(2, 30, (4, 5, 3, 2))], -1).astype(np.float32)
    variances = np.broadcast_to(np.float32([0.1, 0.1, 0.2, 0.2]), (4, 5, 3, 4)).copy()
    return anchors, variances, np.float32([[64, 80], [48, 60]][:batch])


def _proposals(min_size: float, pixel_offset: bool, batch: int, keep: int) -> Callable[[], Any]:
    """paddle.vision.ops.generate_proposals over scores [batch, 3, 4, 5] and deltas [batch, 12, 4, 5],
    at most ``keep`` boxes per image."""

    def run(s: Any, d: Any) -> Any:
        anchors, variances, image = (_p().to_tensor(v) for v in _proposal_inputs(batch))
        rois, probabilities, count = _p().vision.ops.generate_proposals(
            s, d * 0.5, image, anchors, variances, pre_nms_top_n=40, post_nms_top_n=keep, nms_thresh=0.5,
            min_size=min_size, eta=1.0, pixel_offset=pixel_offset, return_rois_num=True)
        return rois, probabilities, count

    return fn(run)


def _legacy_proposals(min_size: float, pixel_offset: bool, batch: int, keep: int) -> Callable[..., list[Any]]:
    """The legacy ``generate_proposals_v2`` operator with the inputs of :func:`_proposals`."""

    def build(s: Any, d: Any) -> list[Any]:
        from paddle.base.layer_helper import LayerHelper

        paddle = _p()
        anchors, variances, image = (paddle.assign(v) for v in _proposal_inputs(batch))
        helper = LayerHelper("generate_proposals_v2")
        outs = [helper.create_variable_for_type_inference(dtype=t) for t in ("float32", "float32", "int32")]
        helper.append_op(type="generate_proposals_v2",
                         inputs={"Scores": [s], "BboxDeltas": [d * 0.5], "ImShape": [image], "Anchors": [anchors],
                                 "Variances": [variances]},
                         outputs={"RpnRois": [outs[0]], "RpnRoiProbs": [outs[1]], "RpnRoisNum": [outs[2]]},
                         attrs={"pre_nms_topN": 40, "post_nms_topN": keep, "nms_thresh": 0.5, "min_size": min_size,
                                "eta": 1.0, "pixel_offset": pixel_offset})
        return outs

    return build




def _legacy_yolo_head(x: Any) -> list[Any]:
    """:func:`_YoloHead` written through the static-graph API (its ``multiclass_nms3`` as the
    legacy operator): the same outputs, the weights the startup program draws."""
    import numpy as np
    from paddle.base.layer_helper import LayerHelper

    paddle = _p()
    static = paddle.static.nn
    h = x
    for channels in (8, 16):
        h = static.batch_norm(static.conv2d(h, channels, 3, stride=2, padding=1), is_test=True)
        h = paddle.nn.functional.leaky_relu(h, 0.1)
    raw = static.conv2d(h, 3 * (5 + 4), 1)
    size = paddle.assign(np.full([1, 2], 320, np.int32))
    boxes, scores = paddle.vision.ops.yolo_box(raw, size, anchors=[10, 13, 16, 30, 33, 23], class_num=4,
                                               conf_thresh=0.3, downsample_ratio=4)
    helper = LayerHelper("multiclass_nms3")
    out, index = (helper.create_variable_for_type_inference(dtype=t) for t in ("float32", "int32"))
    count = helper.create_variable_for_type_inference(dtype="int32")
    helper.append_op(type="multiclass_nms3", inputs={"BBoxes": [boxes], "Scores": [paddle.transpose(scores, [0, 2, 1])]},
                     outputs={"Out": [out], "Index": [index], "NmsRoisNum": [count]},
                     attrs={"score_threshold": 0.3, "nms_top_k": 50, "keep_top_k": 10, "nms_threshold": 0.45,
                            "normalized": False, "nms_eta": 1.0, "background_label": -1})
    return [boxes, scores, out, count]


DETECTION: dict[str, Case] = {
    "generate_proposals": Case(_proposals(0.1, True, 1, 12), (_plain(1, 3, 4, 5, name="s"), _plain(1, 12, 4, 5, name="d")),
                               legacy=_legacy_proposals(0.1, True, 1, 12)),
    "generate_proposals_two_images": Case(_proposals(6.0, False, 2, 30),
                                          (_plain(2, 3, 4, 5, name="s"), _plain(2, 12, 4, 5, name="d")),
                                          legacy=_legacy_proposals(6.0, False, 2, 30)),
    "yolo_network": Case(_YoloHead, (("x", (1, 3, 16, 16), "float32", (1, 3, 16, 16)),), legacy=_legacy_yolo_head),
    "prior_box": Case(fn(lambda x: _p().vision.ops.prior_box(
        x, _p().zeros([1, 3, 64, 48]), min_sizes=[8.0, 16.0], max_sizes=[12.0, 24.0], aspect_ratios=[2.0, 3.0],
        variance=[0.1, 0.1, 0.2, 0.2], flip=True, clip=True)), _image(4, 5, 6)),
    "prior_box_order": Case(fn(lambda x: _p().vision.ops.prior_box(
        x, _p().zeros([1, 3, 40, 40]), min_sizes=[10.0], max_sizes=[20.0], aspect_ratios=[2.0], flip=False,
        steps=[8.0, 8.0], offset=0.5, min_max_aspect_ratios_order=True)), _image(4, 5, 5)),
    "yolo_box": Case(fn(lambda x: _p().vision.ops.yolo_box(
        x, _p().to_tensor([[320, 416], [256, 256]], dtype="int32"), anchors=[10, 13, 16, 30, 33, 23], class_num=3,
        conf_thresh=0.4, downsample_ratio=32, clip_bbox=True)), _image(24, 5, 7)),
    "yolo_box_scaled": Case(fn(lambda x: _p().vision.ops.yolo_box(
        x, _p().to_tensor([[320, 320], [320, 320]], dtype="int32"), anchors=[10, 13, 16, 30], class_num=2,
        conf_thresh=0.01, downsample_ratio=16, clip_bbox=False, scale_x_y=1.05)), _image(14, 4, 4)),
    "multiclass_nms3": Case(fn(lambda b, s: _p()._C_ops.multiclass_nms3(
        _boxes(b), _p().nn.functional.sigmoid(s), None, 0.3, 20, 8, 0.5, True, 1.0, 0)),
        (_plain(1, 12, 4, name="b"), _plain(1, 4, 12, name="s"))),
    "matrix_nms": Case(fn(lambda b, s: _p().vision.ops.matrix_nms(
        _boxes(b), _p().nn.functional.sigmoid(s), 0.3, 0.4, 20, 8, return_index=True, return_rois_num=True)),
        (_plain(2, 12, 4, name="b"), _plain(2, 4, 12, name="s"))),
    "matrix_nms_gaussian": Case(fn(lambda b, s: _p().vision.ops.matrix_nms(
        _boxes(b), _p().nn.functional.sigmoid(s), 0.2, 0.3, 10, 5, use_gaussian=True, gaussian_sigma=1.5,
        background_label=-1, return_index=True, return_rois_num=True)),
        (_plain(1, 10, 4, name="b"), _plain(1, 3, 10, name="s"))),
    "roi_align": Case(fn(lambda a, b: _p().vision.ops.roi_align(
        a, _boxes(b)[0] * 12, _p().to_tensor([2, 3], dtype="int32"), output_size=(3, 2), spatial_scale=0.5,
        sampling_ratio=2, aligned=True)), (_plain(2, 3, 8, 9, name="a"), _plain(1, 5, 4, name="b"))),
    "roi_align_two_images": Case(fn(lambda a, b: _p().vision.ops.roi_align(
        a, _boxes(b)[0] * 12, _p().to_tensor([2, 3], dtype="int32"), output_size=(3, 2), spatial_scale=0.5,
        sampling_ratio=2, aligned=False)), (_plain(2, 3, 8, 9, name="a"), _plain(1, 5, 4, name="b"))),
    "roi_align_adaptive": Case(fn(lambda a, b: _p().vision.ops.roi_align(
        a, _boxes(b)[0] * 8, _p().to_tensor([5], dtype="int32"), output_size=2, aligned=False)),
        (_plain(1, 3, 8, 9, name="a"), _plain(1, 5, 4, name="b"))),
    "box_coder": Case(fn(lambda a, b: _p().vision.ops.box_coder(
        _boxes(a)[0], [0.1, 0.1, 0.2, 0.2], b, code_type="decode_center_size", box_normalized=True, axis=0)),
        (_plain(1, 6, 4, name="a"), _plain(3, 6, 4, name="b"))),
    "box_coder_var": Case(fn(lambda a, b: _p().vision.ops.box_coder(
        _boxes(a)[0] * 20, _p().nn.functional.sigmoid(a[0]), b, code_type="decode_center_size", box_normalized=False,
        axis=1)), (_plain(1, 3, 4, name="a"), _plain(3, 5, 4, name="b"))),
}
