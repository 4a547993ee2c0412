"""Custom layers: an MXNet ``Custom`` op (Python CustomOp, ``op_type="scale_shift"``) is
converted by an extractor plugin keyed on its op_type, registered here as a third party would."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

mx = pytest.importorskip("mxnet")

from irconv import ExtractContext, Extractor, PluginHost, hookimpl  # noqa: E402
from irconv.errors import UnsupportedOpsError  # noqa: E402
from irconv.frontend import extractor, f32  # noqa: E402
from irconv.graph import Node, OutPort  # noqa: E402
from irconv_opset import Add, Multiply  # noqa: E402

OP_TYPE = "scale_shift"


class ScaleShift(mx.operator.CustomOp):
    """y = x * factor + shift, in MXNet (the reference)."""

    def __init__(self, factor: float, shift: float) -> None:
        super().__init__()
        self.factor, self.shift = factor, shift

    def forward(self, is_train, req, in_data, out_data, aux):  # type: ignore[no-untyped-def]
        self.assign(out_data[0], req[0], in_data[0] * self.factor + self.shift)


@mx.operator.register(OP_TYPE)
class ScaleShiftProp(mx.operator.CustomOpProp):
    def __init__(self, factor: str = "1.0", shift: str = "0.0") -> None:
        super().__init__(need_top_grad=False)
        self.factor, self.shift = float(factor), float(shift)

    def infer_shape(self, in_shape):  # type: ignore[no-untyped-def]
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):  # type: ignore[no-untyped-def]
        return ScaleShift(self.factor, self.shift)


class ScaleShiftPlugin:
    """What a third-party plugin for this custom layer provides: one extractor keyed on the
    op_type (the extractor's ``domain``), building opset ops from the layer's attributes."""

    @staticmethod
    def extract(node: Node, ctx: ExtractContext) -> list[OutPort]:
        x = ctx.input(0)
        factor = f32(ctx, ctx.attrs.float("factor", 1.0), suffix="factor")
        shift = f32(ctx, ctx.attrs.float("shift", 0.0), suffix="shift")
        return [ctx.op(Add(), ctx.op(Multiply(), x, factor, suffix="scale"), shift)]

    @hookimpl
    def extract_op(self) -> list[Extractor]:
        return [extractor("mxnet", "Custom", self.extract, domain=OP_TYPE, produces=[Multiply, Add])]


def custom_model() -> object:
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, name="conv", kernel=(1, 1), num_filter=2)
    custom = mx.sym.Custom(conv, op_type=OP_TYPE, factor=2.5, shift=-0.5, name="custom")
    return mx.sym.Activation(custom, act_type="tanh", name="out")


ARGS = {"conv_weight": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3, 1, 1),
        "conv_bias": np.asarray([0.1, -0.2], np.float32)}


def test_custom_op_converts_with_its_plugin(check_symbol) -> None:  # type: ignore[no-untyped-def]
    host = PluginHost(strict=True)
    host.register(ScaleShiftPlugin(), "scale_shift_example", distribution="irconv-scale-shift-example")
    x = np.random.default_rng(3).uniform(-1, 1, (1, 3, 4, 4)).astype(np.float32)
    check_symbol(custom_model(), {"data": x}, ARGS, host=host)


def test_custom_op_without_plugin_is_reported(tmp_path: Path, checkpoint) -> None:  # type: ignore[no-untyped-def]
    import irconv

    path = checkpoint("custom", custom_model(), ARGS)
    with pytest.raises(UnsupportedOpsError, match=rf"mxnet {OP_TYPE}::Custom .*custom"):
        irconv.convert_model(path, inputs=["data[1,3,4,4]"])
