"""Hook implementations of irconv-testplug."""

from __future__ import annotations

from irconv import Option, hookimpl
from irconv.frontend import extractor

FACTOR = Option("testplug.factor", float, default=2.0, help="how much Sharpen sharpens")


@hookimpl
def declare_ops():  # type: ignore[no-untyped-def]
    from irconv_testplug.ops import Sharpen

    return [Sharpen]


@hookimpl
def declare_options():  # type: ignore[no-untyped-def]
    return [FACTOR]


@hookimpl
def extract_op():  # type: ignore[no-untyped-def]
    from irconv_testplug.ops import Sharpen

    def extract(node, ctx):  # type: ignore[no-untyped-def]
        return Sharpen(factor=ctx.attrs.float("factor", ctx.options.get(FACTOR)))

    return [extractor("onnx", "Sharpen", extract, domain="com.example.test", produces=[Sharpen])]


@hookimpl
def middle_transform():  # type: ignore[no-untyped-def]
    from irconv_testplug.fuse import FuseSharpen

    return [FuseSharpen()]
