"""One extractor per framework, all producing ``ExampleSwish``.

Each front end names a node it does not know by its framework's words: ONNX by
(domain, op type), TensorFlow by the NodeDef's ``op``, Caffe by the layer ``type``.
Extractors read attributes typed through ``ctx.attrs``, never the framework's protobufs.
"""

from __future__ import annotations

import ast

import numpy as np
from irconv import ExtractContext, Extractor, Node, OutPort
from irconv.frontend import extractor

from irconv_example_swish.caffe_param import PARAM, parse_param
from irconv_example_swish.ops import ExampleSwish

#: ONNX: the domain and op type an exporter writes for the custom op (e.g. a custom
#: PyTorch symbolic ``g.op("com.example::Swish", x, beta_f=1.5)``).
ONNX_DOMAIN = "com.example"
ONNX_OP = "Swish"
#: TensorFlow: the op type a custom kernel registers (``REGISTER_OP("ExampleSwish")``).
TF_OP = "ExampleSwish"
#: Caffe: the layer type of a Caffe fork's custom layer.
CAFFE_LAYER = "ExampleSwish"
#: Caffe: a Python layer is named by its ``python_param`` module and class.
CAFFE_PYTHON_LAYER = "example_layers.ExampleSwishLayer"
#: TF DataType enum values the op accepts (DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16).
_TF_FLOAT_TYPES = {1: "float32", 2: "float64", 19: "float16", 14: "bfloat16"}


def float32_attr(value: float) -> float:
    """A float32 attribute (ONNX, TF and Caffe store 32-bit floats) as the shortest decimal that
    reads back as the same float32: ``beta="1.7"`` in the IR, not ``1.7000000476837158``."""
    return float(str(np.float32(value)))


@extractor("onnx", ONNX_OP, domain=ONNX_DOMAIN, versions=(1, None), produces=[ExampleSwish])
def extract_onnx(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``com.example::Swish(x) {beta: float = 1}``."""
    return [ctx.op(ExampleSwish(beta=float32_attr(ctx.attrs.float("beta", 1.0))), ctx.input(0))]


@extractor("tf", TF_OP, produces=[ExampleSwish])
def extract_tf(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``ExampleSwish(x) {T: type, beta: float = 1}``."""
    dtype = ctx.attrs.int("T", 1)  # a DataType enum value
    if dtype not in _TF_FLOAT_TYPES:
        raise ctx.attrs.bad("T", dtype, "ExampleSwish takes a floating type (DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16)")
    return [ctx.op(ExampleSwish(beta=float32_attr(ctx.attrs.float("beta", 1.0))), ctx.input(0))]


@extractor("caffe", CAFFE_LAYER, produces=[ExampleSwish])
def extract_caffe(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``layer { type: "ExampleSwish" example_swish_param { beta: 1.5 } }``."""
    param = parse_param(ctx.attrs.get(PARAM), ctx.where())
    return [ctx.op(ExampleSwish(beta=float32_attr(param.beta)), ctx.input(0))]


@extractor("caffe", "Python", domain=CAFFE_PYTHON_LAYER, produces=[ExampleSwish])
def extract_caffe_python(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``layer { type: "Python" python_param { module: "example_layers" layer: "ExampleSwishLayer"
    param_str: "'beta': 1.5" } }``: the layer's settings are a Python dict literal."""
    text = ctx.attrs.str("python_param.param_str", "")
    try:
        settings = ast.literal_eval("{" + text + "}") if text.strip() else {}
    except (ValueError, SyntaxError):
        raise ctx.attrs.bad("python_param.param_str", text, "not a Python dict literal's items") from None
    return [ctx.op(ExampleSwish(beta=float32_attr(float(settings.get("beta", 1.0)))), ctx.input(0))]


EXTRACTORS = (extract_onnx, extract_tf, extract_caffe, extract_caffe_python)


def extractors(framework: str | None = None) -> list[Extractor]:
    """The extractors for ``framework`` (None: for every framework)."""
    return [e for e in EXTRACTORS if framework in (None, e.framework)]
