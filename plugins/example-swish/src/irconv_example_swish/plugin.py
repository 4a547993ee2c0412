"""Hook implementations of irconv-example-swish: each hook returns records, nothing else.

- ``declare_ops``: ExampleSwish, an op of the custom opset ``irconv_example``;
- ``declare_options``: the lowering switch and the sub-graph selections;
- ``extract_op``: ONNX ``com.example::Swish``, TF ``ExampleSwish``, Caffe ``ExampleSwish``;
- ``front_transform``: named sub-graphs computing x * sigmoid(beta * x) -> ExampleSwish;
- ``back_transform``: ExampleSwish -> stock ops, when ``--example-lower-swish`` is given;
- ``runtime_extensions``: how OpenVINO runs ExampleSwish (for ``--verify`` and the test kit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irconv import Extractor, Op, Option, Transform, hookimpl
from irconv.plugins import RuntimeExtension


@hookimpl
def declare_ops() -> Sequence[type[Op]]:
    from irconv_example_swish.ops import ExampleSwish

    return [ExampleSwish]


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_example_swish.options import OPTIONS

    return list(OPTIONS)


@hookimpl
def extract_op(framework: str | None) -> Sequence[Extractor]:
    """Asked per framework (``framework`` is the model's; None for all, as ``irconv ops``
    asks): a plugin with one module per framework imports only the one asked for."""
    from irconv_example_swish.extractors import extractors

    return extractors(framework)


@hookimpl
def front_transform() -> Sequence[Transform]:
    from irconv_example_swish.replace_swish_subgraph import ReplaceSwishSubgraph

    return [ReplaceSwishSubgraph()]


@hookimpl
def back_transform() -> Sequence[Transform]:
    from irconv_example_swish.lower_swish import LowerExampleSwish

    return [LowerExampleSwish()]


@hookimpl
def runtime_extensions() -> Sequence[RuntimeExtension]:
    from irconv_example_swish.ops import OPSET

    def add_to(core: object) -> None:
        from irconv_example_swish.runtime import add_to as add_extension  # imports openvino

        add_extension(core)

    return [RuntimeExtension(OPSET, add_to, "ExampleSwish as a Python OpExtension")]
