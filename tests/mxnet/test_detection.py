"""Detection ops against MXNet: MultiBoxPrior alone, an SSD head ending in
MultiBoxDetection (detections compared as sets), ROIPooling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

mx = pytest.importorskip("mxnet")
sym = mx.sym

from irconv_mxnet.testing import relative_error  # noqa: E402

X = sym.Variable("data")


def rand(*shape: int, low: float = -1.0, high: float = 1.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(4321 + seed).uniform(low, high, shape).astype(np.float32)


@pytest.mark.parametrize(
    "attrs,shape",
    [
        ({"sizes": (0.2, 0.4), "ratios": (1.0, 2.0, 0.5)}, (1, 3, 5, 7)),
        ({"sizes": (0.9,), "ratios": (1.0,), "clip": True}, (1, 3, 4, 4)),
        ({"sizes": (0.3, 0.5), "ratios": (1.0, 3.0), "steps": (0.1, 0.2), "offsets": (0.3, 0.6)}, (2, 3, 3, 5)),
    ],
)
def test_multibox_prior(attrs: dict[str, object], shape: tuple[int, ...], check_symbol) -> None:  # type: ignore[no-untyped-def]
    symbol = sym.contrib.MultiBoxPrior(X, **attrs)
    check_symbol(symbol, {"data": rand(*shape)}, rtol=1e-5)


NUM_CLASSES = 3  # foreground classes


def ssd_head(nms_topk: int = -1, force_suppress: bool = False) -> tuple[object, dict[str, np.ndarray]]:
    """Two feature maps, anchors, class and box predictions: the layout of MXNet's SSD example."""
    args: dict[str, np.ndarray] = {}

    def conv(x: object, name: str, filters: int, channels: int, stride: int = 1) -> object:
        args[f"{name}_weight"] = rand(filters, channels, 3, 3, low=-0.5, high=0.5, seed=len(args))
        args[f"{name}_bias"] = rand(filters, low=-0.5, high=0.5, seed=len(args))
        return sym.Convolution(x, name=name, kernel=(3, 3), pad=(1, 1), stride=(stride, stride), num_filter=filters)

    feature1 = sym.Activation(conv(X, "body1", 8, 3, 2), act_type="relu")
    feature2 = sym.Activation(conv(feature1, "body2", 8, 8, 2), act_type="relu")
    sizes = [(0.2, 0.35), (0.5, 0.7)]
    ratios = (1.0, 2.0, 0.5)
    anchors_per_pixel = len(sizes[0]) + len(ratios) - 1
    classes, boxes, anchors = [], [], []
    for i, feature in enumerate((feature1, feature2)):
        cls = conv(feature, f"cls{i}", anchors_per_pixel * (NUM_CLASSES + 1), 8)
        loc = conv(feature, f"loc{i}", anchors_per_pixel * 4, 8)
        classes.append(sym.Flatten(sym.transpose(cls, axes=(0, 2, 3, 1))))
        boxes.append(sym.Flatten(sym.transpose(loc, axes=(0, 2, 3, 1))))
        anchors.append(sym.Flatten(sym.contrib.MultiBoxPrior(feature, sizes=sizes[i], ratios=ratios, clip=True)))
    cls_preds = sym.Reshape(sym.Concat(*classes, dim=1), shape=(0, -1, NUM_CLASSES + 1))
    cls_prob = sym.SoftmaxActivation(sym.transpose(cls_preds, axes=(0, 2, 1)), mode="channel")
    loc_preds = sym.Concat(*boxes, dim=1)
    anchor_boxes = sym.Reshape(sym.Concat(*anchors, dim=1), shape=(0, -1, 4))
    detection = sym.contrib.MultiBoxDetection(cls_prob, loc_preds, anchor_boxes, name="detection",
                                              nms_threshold=0.45, threshold=0.2, nms_topk=nms_topk, clip=True,
                                              force_suppress=force_suppress)
    return detection, args


def detections(rows: np.ndarray) -> np.ndarray:
    """Valid rows (class >= 0) in a canonical order: the set of detections."""
    valid = rows[rows[:, 0] >= 0]
    order = np.lexsort(valid.T[::-1])
    return valid[order]


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("force_suppress", [False, True], ids=["per_class", "force_suppress"])
def test_ssd_head_detections_match_as_sets(force_suppress: bool, batch: int, checkpoint, convert_run,  # type: ignore[no-untyped-def]
                                           mxnet_run) -> None:
    symbol, args = ssd_head(force_suppress=force_suppress)
    x = rand(batch, 3, 32, 32, low=-2, high=2, seed=99)
    (want,) = mxnet_run(symbol, {"data": x}, args, {})
    path = checkpoint("ssd", symbol, args)
    (got,) = convert_run(path, {"data": x})
    assert got.shape == want.shape
    for image in range(batch):
        expected, found = detections(want[image]), detections(got[image])
        assert 5 <= len(expected) < want.shape[1], "the test head should keep some boxes and drop others"
        assert len(found) == len(expected)
        assert relative_error(found, expected) <= 1e-4
        print(f"SSD head (force_suppress={force_suppress}, image {image + 1}/{batch}): "
              f"{len(expected)} detections of {want.shape[1]} anchors match")


def test_ssd_head_with_nms_topk(checkpoint, convert_run, mxnet_run) -> None:  # type: ignore[no-untyped-def]
    """With ``nms_topk`` below the candidate count MXNet sorts only the top k candidates into
    its output and leaves the rest of the rows as they were (anchor-order candidates, some
    duplicates) before NMS; DetectionOutput keeps the top k per class. The detections ranked
    within the top k are the same in both."""
    topk = 400
    symbol, args = ssd_head(topk)
    x = rand(1, 3, 32, 32, low=-2, high=2, seed=99)
    (want,) = mxnet_run(symbol, {"data": x}, args, {})
    (cls_prob,) = mxnet_run(symbol.get_children()[0], {"data": x}, args, {})
    scores = np.sort(cls_prob[0, 1:].max(axis=0))[::-1]
    assert (scores >= 0.2).sum() > topk, "the test needs more candidates than nms_topk"
    kth_score = scores[topk - 1]
    (got,) = convert_run(checkpoint("ssd_topk", symbol, args), {"data": x})
    expected, found = detections(want[0]), detections(got[0])
    expected, found = expected[expected[:, 1] >= kth_score], found[found[:, 1] >= kth_score]
    assert len(expected) > 5 and len(found) == len(expected)
    assert relative_error(found, expected) <= 1e-4
    print(f"SSD head, nms_topk={topk}: the {len(found)} detections ranked within the top {topk} match")


def test_roi_pooling(check_symbol) -> None:  # type: ignore[no-untyped-def]
    rois = np.asarray([[0, 1, 2, 20, 25], [0, 0, 0, 31, 31], [0, 10.4, 5.6, 17.2, 30.1]], np.float32)
    symbol = sym.ROIPooling(X, sym.Variable("rois"), pooled_size=(3, 4), spatial_scale=0.25)
    check_symbol(symbol, {"data": rand(1, 2, 8, 8, low=-2, high=2), "rois": rois})


def test_model_file_round_trip_keeps_detection_names(tmp_path: Path, checkpoint) -> None:  # type: ignore[no-untyped-def]
    import irconv

    symbol, args = ssd_head()
    path = checkpoint("ssd_names", symbol, args)
    graph = irconv.convert_model(path, inputs=["data[1,3,32,32]"])
    names = {name for r in graph.results() for name in r.in_port(0).get_source().data.names}
    assert "detection_output" in names


PROPOSAL_CONFIGS = {
    "default_like": dict(rpn_pre_nms_top_n=200, rpn_post_nms_top_n=50, threshold=0.7, rpn_min_size=4,
                         feature_stride=16, scales=(2, 4, 8, 16), ratios=(0.5, 1, 2)),
    "scores_small_stride": dict(rpn_pre_nms_top_n=100, rpn_post_nms_top_n=30, threshold=0.5, rpn_min_size=8,
                                feature_stride=8, scales=(1, 3), ratios=(1, 2), output_score=True),
    "few_left": dict(rpn_pre_nms_top_n=60, rpn_post_nms_top_n=80, threshold=0.3, rpn_min_size=16,
                     feature_stride=16, scales=(4, 8), ratios=(0.5, 1, 2)),
}


@pytest.mark.parametrize("config", sorted(PROPOSAL_CONFIGS))
def test_proposal(config: str, check_symbol) -> None:  # type: ignore[no-untyped-def]
    """Proposal-4 with the deltas re-expressed for its decoding gives MXNet's boxes."""
    attrs = PROPOSAL_CONFIGS[config]
    stride = int(attrs["feature_stride"])  # type: ignore[call-overload]
    anchors = len(attrs["scales"]) * len(attrs["ratios"])  # type: ignore[arg-type]
    height, width = 6, 8
    feeds = {
        "cls": rand(1, 2 * anchors, height, width, low=0, high=1, seed=11),
        "bbox": rand(1, 4 * anchors, height, width, low=-0.3, high=0.3, seed=12),
        "im_info": np.asarray([[height * stride, width * stride, 1.0]], np.float32),
    }
    symbol = sym.contrib.Proposal(sym.Variable("cls"), sym.Variable("bbox"), sym.Variable("im_info"), name="proposal",
                                  **attrs)
    check_symbol(symbol, feeds)


def nms_rows(count: int = 24, seed: int = 21) -> np.ndarray:
    """[1, count, 6] rows (class id, score, x1, y1, x2, y2) with overlapping clusters."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0.2, 0.8, (4, 2))
    pick = rng.integers(0, 4, count)
    xy = centers[pick] + rng.normal(0, 0.03, (count, 2))
    size = rng.uniform(0.1, 0.2, (count, 2))
    boxes = np.concatenate([xy - size / 2, xy + size / 2], axis=1)
    ids = rng.integers(0, 3, (count, 1)).astype(np.float64)
    scores = rng.uniform(0, 1, (count, 1))
    return np.concatenate([ids, scores, boxes], axis=1)[None].astype(np.float32)


@pytest.mark.parametrize("leading", [(1,), (), (2, 3)], ids=["1xNxK", "NxK", "2x3xNxK"])
@pytest.mark.parametrize(
    "attrs",
    [
        {"overlap_thresh": 0.3, "id_index": 0},
        {"overlap_thresh": 0.3, "id_index": 0, "force_suppress": True},
        {"overlap_thresh": 0.5, "id_index": 0, "valid_thresh": 0.2, "background_id": 0},
        {"overlap_thresh": 0.3, "topk": 8},
    ],
    ids=["per_class", "force_suppress", "valid_background", "topk"],
)
def test_box_nms(attrs: dict[str, object], leading: tuple[int, ...], check_symbol) -> None:  # type: ignore[no-untyped-def]
    items = int(np.prod(leading)) if leading else 1
    rows = np.concatenate([nms_rows(seed=21 + i) for i in range(items)]).reshape(*leading, 24, 6)
    check_symbol(sym.contrib.box_nms(X, **attrs), {"data": rows}, rtol=1e-5)


@pytest.mark.parametrize(
    "attrs",
    [{"format": "corner"}, {"format": "center"}, {"format": "corner", "std0": 0.1, "std1": 0.1, "std2": 0.2,
                                                   "std3": 0.2, "clip": 0.5}],
    ids=["corner", "center", "stds_clip"],
)
def test_box_decode(attrs: dict[str, object], check_symbol) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(8)
    corners = np.sort(rng.uniform(0, 1, (1, 10, 2, 2)), axis=2).transpose(0, 1, 3, 2).reshape(1, 10, 4)
    symbol = sym.contrib.box_decode(X, sym.Variable("anchors"), **attrs)
    feeds = {"data": rand(2, 10, 4, low=-1, high=1), "anchors": corners.astype(np.float32)}
    check_symbol(symbol, feeds)
