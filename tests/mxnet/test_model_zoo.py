"""Gluon model-zoo classification networks: random seeded weights and BatchNorm statistics,
exported with ``HybridBlock.export``, converted, run in OpenVINO, compared with MXNet."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

mx = pytest.importorskip("mxnet")

from irconv_mxnet.testing import relative_error  # noqa: E402

RTOL = 1e-4

#: (model-zoo name, input size): small inputs where the architecture allows; DenseNet,
#: Inception and SqueezeNet end in fixed-size average pools.
NETWORKS = [
    ("resnet18_v1", 64),
    ("resnet50_v1", 64),
    ("resnet18_v2", 64),
    ("resnet50_v2", 64),
    ("mobilenet1.0", 64),
    ("mobilenetv2_1.0", 64),
    ("densenet121", 224),
    ("inceptionv3", 299),
    ("squeezenet1.0", 224),
    ("squeezenet1.1", 224),
    ("vgg16", 32),
    ("vgg16_bn", 32),
    ("alexnet", 64),
]


#: The rest of the model zoo: same ops, run with IRCONV_MXNET_FULL_ZOO=1 (a few minutes more).
MORE_NETWORKS = [
    *[(f"densenet{d}", 224) for d in (161, 169, 201)],
    *[(f"mobilenet{w}", 64) for w in ("0.25", "0.5", "0.75")],
    *[(f"mobilenetv2_{w}", 64) for w in ("0.25", "0.5", "0.75")],
    *[(f"resnet{d}_v{v}", 64) for d in (34, 101, 152) for v in (1, 2)],
    *[(f"vgg{d}{b}", 32) for d in (11, 13, 19) for b in ("", "_bn")],
]
FULL_ZOO = pytest.mark.skipif(not os.environ.get("IRCONV_MXNET_FULL_ZOO"), reason="set IRCONV_MXNET_FULL_ZOO=1")


def randomize(net: object, seed: int) -> None:
    """Seeded values for every parameter: Xavier weights, and BatchNorm gamma/beta and
    running statistics far from their identity initialisation."""
    rng = np.random.default_rng(seed)
    for name, param in net.collect_params().items():  # type: ignore[attr-defined]
        if name.endswith(("running_mean", "beta")):
            param.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, param.shape)))
        elif name.endswith(("running_var", "gamma")):
            param.set_data(mx.nd.array(rng.uniform(0.5, 1.5, param.shape)))


def export_zoo_model(name: str, size: int, directory: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    """``(symbol path, input, MXNet output)`` for a model-zoo network."""
    from mxnet.gluon.model_zoo import vision

    seed = sum(map(ord, name))
    mx.random.seed(seed)
    net = vision.get_model(name, pretrained=False)
    net.initialize(mx.init.Xavier(magnitude=2.0))
    x = mx.nd.array(np.random.default_rng(seed).uniform(-1, 1, (1, 3, size, size)).astype(np.float32))
    net(x)  # shapes the deferred parameters
    randomize(net, seed)
    net.hybridize()
    want = net(x).asnumpy()
    net.export(str(directory / name))
    return directory / f"{name}-symbol.json", x.asnumpy(), want


@pytest.mark.parametrize(
    "name,size",
    NETWORKS + [pytest.param(n, s, marks=(FULL_ZOO, pytest.mark.slow), id=n) for n, s in MORE_NETWORKS],
    ids=[n for n, _ in NETWORKS] + [n for n, _ in MORE_NETWORKS],
)
def test_model_zoo_network_matches_mxnet(name: str, size: int, tmp_path: Path, convert_run) -> None:  # type: ignore[no-untyped-def]
    symbol, x, want = export_zoo_model(name, size, tmp_path)
    (got,) = convert_run(symbol, {"data": x})
    assert got.shape == want.shape
    error = relative_error(got, want)
    print(f"{name}[{size}x{size}]: max relative error {error:.2e}")
    assert error <= RTOL


def test_params_path_and_epoch_are_found(tmp_path: Path, convert_run) -> None:  # type: ignore[no-untyped-def]
    """The model may be given by its .params file; a symbol picks the newest epoch."""
    symbol, x, want = export_zoo_model("mobilenet0.25", 32, tmp_path)
    params = tmp_path / "mobilenet0.25-0000.params"
    newer = tmp_path / "mobilenet0.25-0007.params"
    newer.write_bytes(params.read_bytes())
    (got,) = convert_run(newer, {"data": x})
    assert relative_error(got, want) <= RTOL
    (got,) = convert_run(symbol, {"data": x}, mxnet_epoch=0)
    assert relative_error(got, want) <= RTOL


def test_dynamic_batch_and_size(tmp_path: Path, convert_run) -> None:  # type: ignore[no-untyped-def]
    """``--input data[?,3,?,?]`` keeps the IR reshapeable: run at batch 2 and another size."""
    symbol, x, _ = export_zoo_model("resnet18_v1", 64, tmp_path)
    net = mx.gluon.SymbolBlock.imports(str(symbol), ["data"], str(tmp_path / "resnet18_v1-0000.params"))
    batch = np.random.default_rng(5).uniform(-1, 1, (2, 3, 48, 48)).astype(np.float32)
    want = net(mx.nd.array(batch)).asnumpy()
    (got,) = convert_run(symbol, {"data": batch}, inputs=["data[?,3,?,?]"])
    assert relative_error(got, want) <= RTOL


def test_output_cut_at_an_internal_tensor(tmp_path: Path, convert_run, mxnet_run) -> None:  # type: ignore[no-untyped-def]
    """``--output <node name>`` ends the model there; MXNet's internal output is the reference."""
    symbol_path, x, _ = export_zoo_model("mobilenet0.25", 32, tmp_path)
    symbol = mx.sym.load(str(symbol_path))
    name = next(n for n in symbol.get_internals().list_outputs() if n.endswith("relu5_fwd_output"))
    loaded = mx.nd.load(str(tmp_path / "mobilenet0.25-0000.params"))
    args = {k[4:]: v.asnumpy() for k, v in loaded.items() if k.startswith("arg:")}
    aux = {k[4:]: v.asnumpy() for k, v in loaded.items() if k.startswith("aux:")}
    internal = symbol.get_internals()[name]
    used = set(internal.list_arguments()) | set(internal.list_auxiliary_states())
    (want,) = mxnet_run(internal, {"data": x}, {k: v for k, v in args.items() if k in used},
                        {k: v for k, v in aux.items() if k in used})
    (got,) = convert_run(symbol_path, {"data": x}, outputs=[name.removesuffix("_output")])
    assert got.shape == want.shape
    assert relative_error(got, want) <= RTOL


def test_module_checkpoint_with_softmax_output(tmp_path: Path, convert_run) -> None:  # type: ignore[no-untyped-def]
    """A symbolic-API network trained with ``mx.mod.Module`` and saved by ``save_checkpoint``:
    the label input is dropped, SoftmaxOutput becomes a softmax."""
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, kernel=(5, 5), num_filter=8, name="conv1")
    net = mx.sym.Activation(net, act_type="tanh")
    net = mx.sym.Pooling(net, pool_type="max", kernel=(2, 2), stride=(2, 2))
    net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn")
    net = mx.sym.FullyConnected(mx.sym.flatten(net), num_hidden=10, name="fc")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    module = mx.mod.Module(net, data_names=["data"], label_names=["softmax_label"])
    module.bind(data_shapes=[("data", (2, 1, 16, 16))], label_shapes=[("softmax_label", (2,))], for_training=False)
    mx.random.seed(11)
    module.init_params(mx.init.Uniform(0.5))
    args, aux = module.get_params()
    rng = np.random.default_rng(11)
    aux = {k: mx.nd.array(rng.uniform(0.5, 1.5, v.shape)) for k, v in aux.items()}
    module.set_params(args, aux)
    module.save_checkpoint(str(tmp_path / "lenet"), 3)
    x = rng.uniform(-1, 1, (2, 1, 16, 16)).astype(np.float32)
    module.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    want = module.get_outputs()[0].asnumpy()
    (got,) = convert_run(tmp_path / "lenet-0003.params", {"data": x})
    assert relative_error(got, want) <= RTOL
