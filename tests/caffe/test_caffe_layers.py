"""One small network per layer form not covered by the public models: irconv vs OpenCV.

Each case is a deploy prototxt body applied to input ``data``; random weights come from
the same seeded generator as the model tests; the last layer's top is compared.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv.api import convert_model
from irconv.testing.runtime import emit_ir, run_ir
from irconv_caffe.testing import write_random_caffemodel
from irconv_caffe.testing.compare import assert_close

cv2 = pytest.importorskip("cv2")


def layer(name: str, kind: str, bottoms: str = "data", params: str = "", top: str | None = None) -> str:
    bottom_lines = " ".join(f'bottom: "{b}"' for b in bottoms.split(",") if b)
    tops = top if top is not None else name
    top_lines = " ".join(f'top: "{t}"' for t in tops.split(","))
    return f'layer {{ name: "{name}" type: "{kind}" {bottom_lines} {top_lines} {params} }}\n'


CONV = layer("c", "Convolution", params="convolution_param { num_output: 4 kernel_size: 3 pad: 1 }")

CASES = {
    "deconv_group": layer(
        "d", "Deconvolution", params="convolution_param { num_output: 4 kernel_size: 4 stride: 2 pad: 1 group: 2 }"
    ),
    "conv_dilated_rect": layer(
        "d",
        "Convolution",
        params=(
            "convolution_param { num_output: 6 kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 1 pad_h: 2 pad_w: 0 "
            "dilation: 2 }"
        ),
    ),
    "conv_depthwise": layer("d", "Convolution", params="convolution_param { num_output: 4 kernel_size: 3 group: 4 }"),
    "conv_no_bias": layer(
        "d", "Convolution", params="convolution_param { num_output: 3 kernel_size: 1 bias_term: false }"
    ),
    "max_pool_ceil_pad": layer("p", "Pooling", params="pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 }"),
    "ave_pool_ceil_pad": layer("p", "Pooling", params="pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 }"),
    "ave_pool_same_pad": layer("p", "Pooling", params="pooling_param { pool: AVE kernel_size: 3 stride: 1 pad: 1 }"),
    "ave_pool_floor": layer(
        "p", "Pooling", params="pooling_param { pool: AVE kernel_size: 2 stride: 2 ceil_mode: false }"
    ),
    "global_max_pool": layer("p", "Pooling", params="pooling_param { pool: MAX global_pooling: true }"),
    "lrn_within_channel": layer(
        "n", "LRN", params="lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 norm_region: WITHIN_CHANNEL }"
    ),
    "eltwise_prod_max_coeff": CONV
    + layer("e1", "Eltwise", "c,data", "eltwise_param { operation: PROD }")
    + layer("e2", "Eltwise", "e1,c", "eltwise_param { operation: MAX }")
    + layer("e3", "Eltwise", "e2,c,e1", "eltwise_param { operation: SUM coeff: 0.5 coeff: -1 coeff: 2 }"),
    "scale_bias_term": layer("s", "Scale", params="scale_param { bias_term: true }"),
    "scale_two_inputs": CONV + layer("s", "Scale", "data,c", "scale_param { axis: 0 }"),
    "activations": layer("a1", "ELU", params="elu_param { alpha: 0.7 }")
    + layer("a2", "Sigmoid", "a1")
    + layer("a3", "TanH", "a2")
    + layer("a4", "AbsVal", "a3")
    + layer("a5", "BNLL", "a4")
    + layer("a6", "Power", "a5", "power_param { power: 2 scale: 0.5 shift: 0.1 }")
    + layer("a7", "ReLU", "a6", "relu_param { negative_slope: 0.1 }"),
    "exp_natural": layer("a1", "Exp"),
    "exp_base": layer("a1", "Exp", params="exp_param { base: 2 scale: 0.5 shift: 0.1 }"),
    "mvn": layer("m", "MVN", params="mvn_param { across_channels: true }"),
    "mvn_mean_only": layer("m", "MVN", params="mvn_param { normalize_variance: false }"),
    "normalize_channel": layer("n", "Normalize", params="norm_param { across_spatial: false channel_shared: false }"),
    "normalize_spatial_shared": layer(
        "n", "Normalize", params="norm_param { across_spatial: true channel_shared: true }"
    ),
    "slice_equal": layer("sl", "Slice", params="slice_param { axis: 1 }", top="s1,s2")
    + layer("cat", "Concat", "s2,s1", "concat_param { axis: 1 }"),
    "slice_points_axis3": layer(
        "sl", "Slice", params="slice_param { axis: 3 slice_point: 1 slice_point: 5 }", top="s1,s2,s3"
    )
    + layer("cat", "Concat", "s3,s1,s2", "concat_param { axis: -1 }"),
    "flatten_reshape_permute": layer("f", "Flatten", params="flatten_param { axis: 2 }")
    + layer("r", "Reshape", "f", "reshape_param { shape { dim: 0 dim: -1 dim: 4 } }")
    + layer("p", "Permute", "r", "permute_param { order: 0 order: 2 order: 1 }"),
    "flatten_middle": layer("f", "Flatten", params="flatten_param { axis: 1 end_axis: 2 }"),
    "reshape_axis": layer("r", "Reshape", params="reshape_param { axis: 2 shape { dim: 4 dim: -1 } }"),
    "inner_product_axis2": layer("i", "InnerProduct", params="inner_product_param { num_output: 5 axis: 2 }"),
    "softmax_axis": layer("s", "Softmax", params="softmax_param { axis: 2 }"),
    "crop_offsets": layer("pool", "Pooling", params="pooling_param { pool: MAX kernel_size: 2 stride: 2 }")
    + layer("cr", "Crop", "data,pool", "crop_param { axis: 2 offset: 1 offset: 2 }"),
    "shuffle_channel": layer("s", "ShuffleChannel", params="shuffle_channel_param { group: 2 }"),
    "relu6": layer("r", "ReLU6"),
    "interp_zoom": layer("i", "Interp", params="interp_param { zoom_factor: 2 }"),
    "interp_size": layer("i", "Interp", params="interp_param { height: 5 width: 7 }"),
    "batchnorm_2d": layer("i", "InnerProduct", params="inner_product_param { num_output: 6 }")
    + layer("bn", "BatchNorm", "i", "batch_norm_param { eps: 0.001 }")
    + layer("sc", "Scale", "bn", "scale_param { bias_term: true }"),
    "dropout_split": layer("dr", "Dropout") + layer("sp", "Split", "dr", top="x1,x2") + layer("e", "Eltwise", "x1,x2"),
}

# Layers OpenCV's importer has no (or a different) implementation for: checked against NumPy.
NUMPY_CASES = {
    "argmax_axis": (
        layer("a", "ArgMax", params="argmax_param { axis: 1 top_k: 2 }"),
        lambda x: np.argsort(-x, axis=1, kind="stable")[:, :2].astype(np.float32),
    ),
    "tile": (layer("t", "Tile", params="tile_param { axis: 2 tiles: 3 }"), lambda x: np.tile(x, (1, 1, 3, 1))),
    "reduction_sumsq": (
        layer("r", "Reduction", params="reduction_param { axis: 1 operation: SUMSQ coeff: 0.5 }"),
        lambda x: 0.5 * (x * x).reshape(x.shape[0], -1).sum(axis=1),
    ),
    "reduction_asum": (
        layer("r", "Reduction", params="reduction_param { axis: -1 operation: ASUM }"),
        lambda x: np.abs(x).sum(axis=-1),
    ),
    "bias": (layer("b", "Bias"), lambda x, w: x + w["b"][0].reshape(1, -1, 1, 1)),
    "prelu_shared": (
        layer("p", "PReLU", params="prelu_param { channel_shared: true }"),
        lambda x, w: np.where(x > 0, x, x * w["p"][0]),
    ),
    "inner_product_transposed": (
        layer("i", "InnerProduct", params="inner_product_param { num_output: 5 transpose: true }"),
        lambda x, w: x.reshape(1, -1) @ w["i"][0] + w["i"][1],
    ),
    "scale_param_span": (
        layer("s", "Scale", params="scale_param { axis: 1 num_axes: 2 bias_term: true }"),
        lambda x, w: x * w["s"][0][None, :, :, None] + w["s"][1][None, :, :, None],
    ),
    "im2col": (
        layer("i", "Im2col", params="convolution_param { kernel_h: 3 kernel_w: 2 stride: 2 pad: 1 dilation: 1 }"),
        lambda x: caffe_im2col(x, (3, 2), (2, 2), (1, 1)),
    ),
    "clip": (layer("c", "Clip", params="clip_param { min: -0.2 max: 0.3 }"), lambda x: np.clip(x, -0.2, 0.3)),
    "log_base": (layer("l", "Log", params="log_param { base: 10 scale: 2 shift: 3 }"), lambda x: np.log10(2 * x + 3)),
    "threshold": (
        layer("t", "Threshold", params="threshold_param { threshold: 0.2 }"),
        lambda x: (x > 0.2).astype(np.float32),
    ),
    "swish": (layer("s", "Swish", params="swish_param { beta: 1.5 }"), lambda x: x / (1 + np.exp(-1.5 * x))),
}


def caffe_im2col(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int], pad: tuple[int, int]) -> np.ndarray:
    """Caffe's im2col: output channel c * kh * kw + i * kw + j holds x[c] at kernel cell (i, j)."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - kernel[0]) // stride[0] + 1
    ow = (w + 2 * pad[1] - kernel[1]) // stride[1] + 1
    out = np.zeros((n, c * kernel[0] * kernel[1], oh, ow), x.dtype)
    for ch in range(c):
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                rows = padded[:, ch, i : i + stride[0] * oh : stride[0], j : j + stride[1] * ow : stride[1]]
                out[:, (ch * kernel[0] + i) * kernel[1] + j] = rows
    return out


def write_case(folder: Path, body: str, shape: tuple[int, ...]) -> tuple[Path, Path, dict]:  # type: ignore[type-arg]
    dims = " ".join(f"dim: {d}" for d in shape)
    proto = folder / "net.prototxt"
    proto.write_text(f'name: "case"\ninput: "data"\ninput_shape {{ {dims} }}\n{body}')
    weights = folder / "net.caffemodel"
    blobs = write_random_caffemodel(proto, weights, seed=5)
    return proto, weights, blobs


def run_converted(proto: Path, weights: Path, host, folder: Path, x: np.ndarray, top: str) -> np.ndarray:  # type: ignore[no-untyped-def]
    graph = convert_model(proto, host=host, weights=weights, outputs=[top])
    xml = emit_ir(graph, folder / "net.xml", host)
    return run_ir(xml, {"data": x})[top]


def last_top(body: str) -> str:
    return body.rsplit('top: "', 1)[1].split('"', 1)[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_opencv(case: str, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    body = CASES[case]
    x = np.random.default_rng(11).uniform(0.05, 1.0, (1, 4, 8, 10)).astype(np.float32)
    if not case.startswith("exp"):
        x = x * np.where(np.random.default_rng(12).random(x.shape) < 0.5, -1, 1).astype(np.float32)
    proto, weights, _ = write_case(tmp_path, body, x.shape)
    top = last_top(body)
    got = run_converted(proto, weights, installed_host, tmp_path, x, top)
    net = cv2.dnn.readNetFromCaffe(str(proto), str(weights))
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.enableFusion(False)
    net.setInput(x, "data")
    writer = [line.split('name: "', 1)[1].split('"', 1)[0] for line in body.splitlines() if f'top: "{top}"' in line][-1]
    assert_close(case, got, net.forward(writer))


@pytest.mark.parametrize("case", sorted(NUMPY_CASES))
def test_layer_matches_numpy(case: str, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    body, reference = NUMPY_CASES[case]
    x = np.random.default_rng(13).uniform(-1.0, 1.0, (1, 4, 8, 10)).astype(np.float32)
    proto, weights, blobs = write_case(tmp_path, body, x.shape)
    got = run_converted(proto, weights, installed_host, tmp_path, x, last_top(body))
    expected = reference(x) if reference.__code__.co_argcount == 1 else reference(x, blobs)
    assert_close(case, got, np.asarray(expected, dtype=np.float32))


def test_bvlc_round_mode_floor_matches_ceil_mode_false(installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """BVLC master's ``round_mode: FLOOR`` (unknown to OpenCV) means OpenCV's ``ceil_mode: false``."""
    x = np.random.default_rng(3).standard_normal((1, 4, 9, 11)).astype(np.float32)
    body = layer("p", "Pooling", params="pooling_param { pool: MAX kernel_size: 2 stride: 2 round_mode: FLOOR }")
    proto, weights, _ = write_case(tmp_path, body, x.shape)
    got = run_converted(proto, weights, installed_host, tmp_path, x, "p")
    assert got.shape == (1, 4, 4, 5)
    reference_proto = tmp_path / "reference.prototxt"
    reference_proto.write_text(proto.read_text().replace("round_mode: FLOOR", "ceil_mode: false"))
    net = cv2.dnn.readNetFromCaffe(str(reference_proto))
    net.setInput(x, "data")
    assert_close("round_mode", got, net.forward("p"))


PROPOSAL = (
    'layer { name: "rois" type: "Proposal" bottom: "scores" bottom: "deltas" bottom: "im_info" top: "rois" '
    "proposal_param { feat_stride: 16 base_size: 16 min_size: 16 ratio: 0.5 ratio: 1 ratio: 2 scale: 8 scale: 16 "
    "scale: 32 pre_nms_topn: 6000 post_nms_topn: 300 nms_thresh: 0.7 } }"
)
PYTHON_PROPOSAL = (
    'layer { name: "rois" type: "Python" bottom: "scores" bottom: "deltas" bottom: "im_info" top: "rois" '
    """python_param { module: "rpn.proposal_layer" layer: "ProposalLayer" param_str: "'feat_stride': 16" } }"""
)


@pytest.mark.parametrize("body", [PROPOSAL, PYTHON_PROPOSAL], ids=["Proposal", "Python-ProposalLayer"])
def test_proposal_matches_opencv(body: str, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Both spellings (py-faster-rcnn's Python layer has the same defaults) against OpenCV's Proposal."""
    header = "".join(
        f'input: "{name}"\ninput_shape {{ {" ".join(f"dim: {d}" for d in shape)} }}\n'
        for name, shape in (("scores", (1, 18, 14, 20)), ("deltas", (1, 36, 14, 20)), ("im_info", (1, 3)))
    )
    proto = tmp_path / "net.prototxt"
    proto.write_text(header + body)
    weights = tmp_path / "net.caffemodel"
    write_random_caffemodel(proto, weights)
    rng = np.random.default_rng(0)
    feed = {
        "scores": rng.random((1, 18, 14, 20)).astype(np.float32),
        "deltas": (rng.standard_normal((1, 36, 14, 20)) * 0.1).astype(np.float32),
        "im_info": np.array([[224, 320, 1]], np.float32),
    }
    graph = convert_model(proto, host=installed_host, weights=weights)
    got = run_ir(emit_ir(graph, tmp_path / "net.xml", installed_host), feed)["rois"].reshape(-1, 5)
    reference_proto = tmp_path / "reference.prototxt"
    reference_proto.write_text(header + PROPOSAL)
    net = cv2.dnn.readNetFromCaffe(str(reference_proto))
    for name, value in feed.items():
        net.setInput(value, name)
    want = net.forward("rois").reshape(-1, 5)
    # OpenVINO ends the list with batch id -1, OpenCV pads with zero rows.
    end = np.nonzero(got[:, 0] < 0)[0]
    count = int(end[0]) if end.size else len(got)
    assert count > 50
    assert_close("proposal", got[:count], want[:count])
    assert not want[count:].any()


def run_net(tmp_path: Path, host, text: str, feed: dict[str, np.ndarray], top: str) -> tuple[np.ndarray, dict]:  # type: ignore[no-untyped-def,type-arg]
    proto = tmp_path / "net.prototxt"
    proto.write_text(text)
    weights = tmp_path / "net.caffemodel"
    blobs = write_random_caffemodel(proto, weights, seed=9)
    graph = convert_model(proto, host=host, weights=weights, outputs=[top])
    return run_ir(emit_ir(graph, tmp_path / "net.xml", host), feed)[top], blobs


def test_embed_parameter_and_batch_reindex(installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = (
        'input: "ids"\ninput_shape { dim: 3 dim: 4 }\n'
        'input: "order"\ninput_shape { dim: 3 }\n'
        + layer("emb", "Embed", "ids", "embed_param { num_output: 5 input_dim: 10 }")
        + layer("par", "Parameter", "", "parameter_param { shape { dim: 3 dim: 4 dim: 5 } }")
        + layer("sum", "Eltwise", "emb,par")
        + layer("re", "BatchReindex", "sum,order")
    )
    ids = np.random.default_rng(1).integers(0, 10, (3, 4)).astype(np.float32)
    order = np.array([2, 0, 2], np.float32)
    got, blobs = run_net(tmp_path, installed_host, text, {"ids": ids, "order": order}, "re")
    table, bias = blobs["emb"]
    expected = (table[ids.astype(int)] + bias + blobs["par"][0])[order.astype(int)]
    assert_close("embed", got, expected)


def test_dummy_data_and_axpy(installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = (
        'input: "data"\ninput_shape { dim: 1 dim: 4 dim: 3 dim: 5 }\n'
        'layer { name: "dummy" type: "DummyData" top: "a" top: "y" dummy_data_param { '
        "shape { dim: 1 dim: 4 dim: 1 dim: 1 } shape { dim: 1 dim: 4 dim: 3 dim: 5 } "
        'data_filler { type: "constant" value: 0.5 } data_filler { type: "constant" value: -2 } } }\n'
        + layer("axpy", "Axpy", "a,data,y")
    )
    x = np.random.default_rng(2).standard_normal((1, 4, 3, 5)).astype(np.float32)
    got, _ = run_net(tmp_path, installed_host, text, {"data": x}, "axpy")
    assert_close("axpy", got, 0.5 * x - 2)


@pytest.mark.parametrize("pool", ["MAX", "AVE"])
def test_spp_matches_the_equivalent_poolings_in_opencv(pool: str, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """SPP (which OpenCV lacks) against the Pooling + Flatten + Concat layers Caffe builds for it."""
    x = np.random.default_rng(4).standard_normal((1, 3, 13, 10)).astype(np.float32)
    proto, weights, _ = write_case(
        tmp_path, layer("spp", "SPP", params=f"spp_param {{ pyramid_height: 3 pool: {pool} }}"), x.shape
    )
    got = run_converted(proto, weights, installed_host, tmp_path, x, "spp")
    parts = []
    for level in range(3):
        bins = 2**level
        kh, kw = -(-13 // bins), -(-10 // bins)
        ph, pw = (kh * bins - 13 + 1) // 2, (kw * bins - 10 + 1) // 2
        parts.append(
            layer(
                f"p{level}",
                "Pooling",
                params=f"pooling_param {{ pool: {pool} kernel_h: {kh} kernel_w: {kw} "
                f"stride_h: {kh} stride_w: {kw} pad_h: {ph} pad_w: {pw} }}",
            )
            + layer(f"f{level}", "Flatten", f"p{level}")
        )
    reference = tmp_path / "reference.prototxt"
    reference.write_text(
        'input: "data"\ninput_shape { dim: 1 dim: 3 dim: 13 dim: 10 }\n'
        + "".join(parts)
        + layer("spp", "Concat", "f0,f1,f2")
    )
    net = cv2.dnn.readNetFromCaffe(str(reference))
    net.setInput(x, "data")
    assert_close(f"spp {pool}", got, net.forward("spp"))


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-v))


def caffe_lstm(x: np.ndarray, cont: np.ndarray, blobs: list[np.ndarray], static: np.ndarray | None) -> np.ndarray:
    """Caffe's LSTM equations, step by step (gates i, f, o, g; cont resets h and c)."""
    w_x, b = blobs[0], blobs[1]
    w_s = blobs[2] if static is not None else None
    w_h = blobs[-1]
    hidden = w_h.shape[1]
    h = np.zeros((x.shape[1], hidden))
    c = np.zeros_like(h)
    out = []
    for t in range(x.shape[0]):
        m = cont[t][:, None]
        gates = x[t].reshape(x.shape[1], -1) @ w_x.T + b + (m * h) @ w_h.T
        if w_s is not None:
            gates = gates + static.reshape(static.shape[0], -1) @ w_s.T  # type: ignore[union-attr]
        i, f, o, g = (gates[:, k * hidden : (k + 1) * hidden] for k in range(4))
        c = m * _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        out.append(h)
    return np.stack(out)


def caffe_rnn(x: np.ndarray, cont: np.ndarray, blobs: list[np.ndarray]) -> np.ndarray:
    w_x, b_h, w_hh, w_ho, b_o = blobs
    h = np.zeros((x.shape[1], w_hh.shape[0]))
    out = []
    for t in range(x.shape[0]):
        h = np.tanh((cont[t][:, None] * h) @ w_hh.T + x[t].reshape(x.shape[1], -1) @ w_x.T + b_h)
        out.append(np.tanh(h @ w_ho.T + b_o))
    return np.stack(out)


@pytest.mark.parametrize("kind", ["LSTM", "LSTM-static", "RNN"])
def test_recurrent_layers_follow_caffe_equations(kind: str, installed_host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    static = kind.endswith("static")
    text = 'input: "x"\ninput_shape { dim: 5 dim: 2 dim: 3 dim: 2 }\ninput: "cont"\ninput_shape { dim: 5 dim: 2 }\n'
    if static:
        text += 'input: "xs"\ninput_shape { dim: 2 dim: 4 }\n'
    bottoms = "x,cont,xs" if static else "x,cont"
    text += layer("rec", kind.split("-")[0], bottoms, "recurrent_param { num_output: 3 }")
    rng = np.random.default_rng(8)
    feed = {
        "x": rng.standard_normal((5, 2, 3, 2)).astype(np.float32),
        "cont": np.array([[0, 0], [1, 1], [1, 0], [1, 1], [0, 1]], np.float32),
    }
    if static:
        feed["xs"] = rng.standard_normal((2, 4)).astype(np.float32)
    got, blobs = run_net(tmp_path, installed_host, text, feed, "rec")
    x64 = feed["x"].astype(np.float64)
    if kind == "RNN":
        expected = caffe_rnn(x64, feed["cont"], [b.astype(np.float64) for b in blobs["rec"]])
    else:
        expected = caffe_lstm(x64, feed["cont"], [b.astype(np.float64) for b in blobs["rec"]], feed.get("xs"))
    assert got.shape == (5, 2, 3)
    assert_close(kind, got, expected)
