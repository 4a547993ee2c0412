"""The loader on hand-written symbols (old and new attribute keys) and spec-written params."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from irconv import ConversionOptions, LoadContext, PluginHost
from irconv.contract.options import InputSpec
from irconv.errors import ModelFileError, UserError
from irconv.ops import Const, Parameter, SourceOp
from irconv_mxnet.loader import load_mxnet
from irconv_mxnet.sniff import looks_like_mxnet
from irconv_mxnet.testing import write_ndarray_file


def variable(name: str, **attrs: str) -> dict[str, Any]:
    node: dict[str, Any] = {"op": "null", "name": name, "inputs": []}
    if attrs:
        node["attrs"] = attrs
    return node


def conv_net(attr_key: str = "attrs") -> dict[str, Any]:
    """data -> Convolution(weight, bias) -> SoftmaxOutput(label)."""
    conv = {"op": "Convolution", "name": "conv0", attr_key: {"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)"},
            "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}
    return {
        "nodes": [variable("data"), variable("conv0_weight"), variable("conv0_bias"), conv,
                  variable("softmax_label"),
                  {"op": "SoftmaxOutput", "name": "softmax", "inputs": [[3, 0, 0], [4, 0, 0]]}],
        "arg_nodes": [0, 1, 2, 4],
        "heads": [[5, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    }


def write_model(tmp_path: Path, symbol: dict[str, Any], params: dict[str, np.ndarray] | None = None,
                prefix: str = "net", fmt: str = "v2") -> Path:
    path = tmp_path / f"{prefix}-symbol.json"
    path.write_text(json.dumps(symbol))
    if params is not None:
        write_ndarray_file(tmp_path / f"{prefix}-0000.params", dict(params), fmt)
    return path


def conv_params() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"arg:conv0_weight": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
            "arg:conv0_bias": rng.standard_normal(4).astype(np.float32)}


def load(path: Path, *inputs: str, **options: Any) -> Any:
    opts = ConversionOptions(inputs=[InputSpec.parse(i) for i in inputs], **options)
    registry = PluginHost(autoload=False).registry()
    return load_mxnet(path, LoadContext(opts, registry.ops, registry.find_extractor))


@pytest.mark.parametrize("attr_key", ["attrs", "param", "attr"])
def test_graph_from_symbol_and_params(tmp_path: Path, attr_key: str) -> None:
    path = write_model(tmp_path, conv_net(attr_key), conv_params())
    graph = load(path, "data[1,3,8,8]")
    (parameter,) = graph.parameters()
    assert isinstance(parameter.op, Parameter) and parameter.op.shape == (1, 3, 8, 8)
    conv = graph.node("conv0")
    assert isinstance(conv.op, SourceOp) and conv.op.op_type == "Convolution"
    assert conv.op.attributes is not None and conv.op.attributes.get("kernel") == (3, 3)
    weight = conv.in_port(1).get_source().node
    assert isinstance(weight.op, Const) and weight.name == "conv0_weight"
    softmax = graph.node("softmax")
    assert len(softmax.in_ports()) == 1  # the label is not a model input
    assert [r.in_port(0).get_source().node.name for r in graph.results()] == ["softmax"]
    assert "softmax_output" in softmax.out_port(0).data.names


def test_missing_input_shape_is_one_clear_error(tmp_path: Path) -> None:
    path = write_model(tmp_path, conv_net(), conv_params())
    with pytest.raises(UserError, match=r"input 'data' has no shape.*--input data\["):
        load(path)


def test_declared_shape_is_used(tmp_path: Path) -> None:
    symbol = conv_net()
    symbol["nodes"][0] = variable("data", __shape__="(2, 3, 5, 5)")
    graph = load(write_model(tmp_path, symbol, conv_params()))
    assert graph.parameters()[0].op.shape == (2, 3, 5, 5)


def test_unprefixed_names_and_params_path(tmp_path: Path) -> None:
    params = {k.split(":", 1)[1]: v for k, v in conv_params().items()}
    write_model(tmp_path, conv_net(), params, fmt="v1")
    graph = load(tmp_path / "net-0000.params", "data[1,3,8,8]")
    assert isinstance(graph.node("conv0_weight").op, Const)


def test_missing_params_file(tmp_path: Path) -> None:
    path = write_model(tmp_path, conv_net())
    with pytest.raises(ModelFileError, match=r"no parameters file.*net-0000.params.*conv0_weight"):
        load(path, "data[1,3,8,8]")


@pytest.mark.parametrize("op_type", ["my_scale", "1e5", "None"])
def test_custom_op_carries_its_op_type(tmp_path: Path, op_type: str) -> None:
    symbol = {
        "nodes": [variable("data"),
                  {"op": "Custom", "name": "my", "attrs": {"op_type": op_type, "factor": "2.5"},
                   "inputs": [[0, 0, 0]]}],
        "arg_nodes": [0],
        "heads": [[1, 0, 0]],
    }
    graph = load(write_model(tmp_path, symbol), "data[2,3]")
    op = graph.node("my").op
    assert isinstance(op, SourceOp) and op.domain == op_type and op.attributes.get("factor") == 2.5


def test_bad_symbol_files(tmp_path: Path) -> None:
    path = tmp_path / "bad-symbol.json"
    path.write_text("{not json")
    with pytest.raises(ModelFileError, match="not valid JSON"):
        load(path)
    path.write_text(json.dumps({"nodes": [variable("a"), {"op": "relu", "name": "r", "inputs": [[5, 0, 0]]}],
                                "heads": [[1, 0, 0]]}))
    with pytest.raises(ModelFileError, match="does not come before it"):
        load(path, "a[1]")


def test_symbol_without_outputs_is_refused(tmp_path: Path) -> None:
    """Empty ``heads`` gave an IR without a single Result (mutation run: mxnet, seed 41, case 22)."""
    symbol = conv_net()
    symbol["heads"] = []
    path = write_model(tmp_path, symbol, conv_params())
    with pytest.raises(ModelFileError, match=r"'heads' \(model outputs\) is empty"):
        load(path, "data[1,3,8,8]")


def test_sniff(tmp_path: Path) -> None:
    path = write_model(tmp_path, conv_net(), conv_params())
    assert looks_like_mxnet(path)
    assert looks_like_mxnet(tmp_path / "net-0000.params")
    other = tmp_path / "config.json"
    other.write_text('{"name": "x"}')
    assert not looks_like_mxnet(other)


def test_unnamed_input_spec_for_the_only_input(tmp_path: Path) -> None:
    graph = load(write_model(tmp_path, conv_net(), conv_params()), "[1,3,6,6]")
    assert graph.parameters()[0].op.shape == (1, 3, 6, 6)


def test_plugin_hooks_are_cheap() -> None:
    """Listing the plugin's records imports neither NumPy nor networkx (fresh interpreter)."""
    import subprocess
    import sys

    code = ("import sys, irconv_mxnet.plugin as p; p.declare_options(); p.load_model(); "
            "print([m for m in ('numpy', 'networkx', 'openvino') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"
