"""Sizes and weight bytes a model file declares (issue 42, items 1 and 3).

Each row is a small file with one edit. A size is checked by ``irconv.graph.budget.declared_size``
before anything is allocated from it, a weight's bytes by ``check_weight_bytes``: the
conversion ends in one ``irconv: error:`` line naming the field (or tensor) and the value.
Every case runs fenced (forked child, 4 GiB address space beyond the driver, time limit)
through the command line, so a regression is an ``oom`` outcome, not a dead machine.
"""

from __future__ import annotations

import dataclasses
import json
import runpy
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from robust_harness import Limits, Outcome, convert_case

ROOT = Path(__file__).resolve().parents[2]


def convert(model: Path, tmp_path: Path, *, openvino: bool = False) -> Outcome:
    return convert_case(model, tmp_path / "out" / "model.xml", ["-q"], Limits(seconds=120, check_openvino=openvino))


def refused(outcome: Outcome, *parts: str) -> None:
    """One clean error line (exit 1) holding every one of ``parts``."""
    assert outcome.outcome == "clean-error" and outcome.exit_code == 1, outcome
    assert all(p in outcome.message for p in parts), outcome.message


def _module(path: Path, name: str) -> SimpleNamespace:
    """The names a helper module of another test folder defines (runpy keeps it in
    ``sys.modules`` while it runs, as its dataclasses need)."""
    return SimpleNamespace(**runpy.run_path(str(path), run_name=name))


def _rezip(source: Path, target: Path, edit: dict[str, bytes]) -> Path:
    """``source`` with the members named in ``edit`` replaced, order and names kept."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as z:
        members = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(target, "w") as out:
        for info, data in members:
            out.writestr(info, edit.get(info.filename, data))
    return target


# ---------------------------------------------------------------- TFLite: sparsity dense_size
@pytest.fixture(scope="module")
def tiny_tflite() -> SimpleNamespace:
    pytest.importorskip("irconv_tflite")
    return _module(ROOT / "plugins/tflite/tests/tiny_models.py", "tiny_tflite_models")


def _sparse_add(tiny: SimpleNamespace, tmp_path: Path, dense_sizes: list[int]) -> Path:
    """y = relu(x + c), the [1, 4] constant c stored with sparsity parameters (every level DENSE)."""
    spec = tiny.add_model()
    tensors = spec.subgraphs[0].tensors
    tensors[1] = dataclasses.replace(tensors[1], dense_sizes=dense_sizes)
    path = tmp_path / "in" / "sparse.tflite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(tiny.build(spec))
    return path


def test_tflite_dense_sparsity_within_the_shape_converts(tiny_tflite: SimpleNamespace, tmp_path: Path) -> None:
    outcome = convert(_sparse_add(tiny_tflite, tmp_path, [1, 4]), tmp_path, openvino=True)
    assert outcome.outcome == "accepted", outcome


def test_tflite_dense_size_past_the_shape_is_refused_before_allocating(
    tiny_tflite: SimpleNamespace, tmp_path: Path
) -> None:
    """Was: ``np.arange(2147483647)`` (16 GiB) before any check."""
    outcome = convert(_sparse_add(tiny_tflite, tmp_path, [1, 2147483647]), tmp_path)
    refused(outcome, "sparse tensor 'c'", "dense_size 2147483647", "allows")


# ---------------------------------------------------------------- .keras: keras_history index
@pytest.fixture(scope="module")
def keras_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    keras = pytest.importorskip("keras")
    pytest.importorskip("irconv_tf")
    inputs = keras.Input((8,), name="x")
    hidden = keras.layers.Dense(4, name="dense")(inputs)
    path = tmp_path_factory.mktemp("keras") / "net.keras"
    keras.Model(inputs, keras.layers.ReLU(name="relu")(hidden)).save(path)
    return path


def test_keras_history_index_of_1e12_is_refused(keras_file: Path, tmp_path: Path) -> None:
    """Was: a 10^12-long list of the call's outputs (34 s, 3.7 GB, then MemoryError)."""
    with zipfile.ZipFile(keras_file) as z:
        config = json.loads(z.read("config.json"))
    relu = next(layer for layer in config["config"]["layers"] if layer["name"] == "relu")
    relu["inbound_nodes"][0]["args"][0]["config"]["keras_history"][2] = 10**12
    broken = _rezip(keras_file, tmp_path / "in" / "history.keras", {"config.json": json.dumps(config).encode()})
    refused(convert(broken, tmp_path), "layer 'dense'", "keras_history output index 1000000000000")


# ---------------------------------------------------------------- TF: a repeated Const as Gather indices
def _gather_graph(tmp_path: Path, indices: int) -> Path:
    """y = Gather(params[10, 1668], indices) + x, the indices a Const of ``indices`` elements
    written as the one value TensorFlow repeats to fill its shape."""
    tf = pytest.importorskip("tensorflow")
    pytest.importorskip("irconv_tf")
    graph = tf.Graph()
    with graph.as_default():
        params = tf.constant(np.random.default_rng(0).random((10, 1668), np.float32), name="params")
        index = tf.constant(np.array([3, 1], np.int32), name="indices")
        x = tf.compat.v1.placeholder(tf.float32, [1, 1668], name="x")
        tf.identity(tf.gather(params, index) + x, name="y")
    graph_def = graph.as_graph_def()
    tensor = next(n for n in graph_def.node if n.name == "indices").attr["value"].tensor
    tensor.ClearField("tensor_content")
    tensor.int_val[:] = [3]
    tensor.tensor_shape.dim[0].size = indices
    path = tmp_path / "in" / "gather.pb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(graph_def.SerializeToString())
    return path


def test_tf_gather_needing_417_gib_is_refused(tmp_path: Path) -> None:
    """Was: exit 0 with a warning; compiling the IR failed with bad_alloc."""
    outcome = convert(_gather_graph(tmp_path, 1 << 26), tmp_path)  # 2^26 x 1668 f32 = 417 GiB
    refused(outcome, "'GatherV2", "417 GiB", "more than the 256 GiB")


def test_tf_repeated_constant_over_the_budget_is_refused(tmp_path: Path) -> None:
    outcome = convert(_gather_graph(tmp_path, 1 << 40), tmp_path)
    refused(outcome, "'indices'", "element count", "1099511627776")


def test_tf_repeated_indices_of_a_sane_size_convert(tmp_path: Path) -> None:
    assert convert(_gather_graph(tmp_path, 4), tmp_path, openvino=True).outcome == "accepted"


def test_tf_output_index_of_1e12_is_refused(tmp_path: Path) -> None:
    """Was: a hang building a port for each of the 10^12 outputs ``sp:1000000000000`` implies."""
    tf = pytest.importorskip("tensorflow")
    pytest.importorskip("irconv_tf")
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 4], name="x")
        tf.identity(tf.split(x, 2, axis=1, name="sp")[1], name="y")
    graph_def = graph.as_graph_def()
    next(n for n in graph_def.node if n.name == "y").input[0] = "sp:1000000000000"
    path = tmp_path / "in" / "port.pb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(graph_def.SerializeToString())
    refused(convert(path, tmp_path), "node 'sp' (read by node 'y')", "output index 1000000000000")


# ---------------------------------------------------------------- .pt2: an emptied weight record
@pytest.fixture(scope="module")
def pt2_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    pytest.importorskip("irconv_torch")
    model = torch.nn.Sequential(torch.nn.Linear(8, 30), torch.nn.ReLU())
    path = tmp_path_factory.mktemp("pt2") / "linear.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(2, 8),)), path)
    return path


def _weight_record(archive: Path, size: int) -> str:
    with zipfile.ZipFile(archive) as z:
        return next(i.filename for i in z.infolist() if "/data/weights/weight_" in i.filename and i.file_size == size)


def test_pt2_emptied_weight_record_is_refused(pt2_file: Path, tmp_path: Path) -> None:
    """Was: converted silently with an all-zero weight (torch reads an empty record as zeros)."""
    broken = _rezip(pt2_file, tmp_path / "in" / "emptied.pt2", {_weight_record(pt2_file, 960): b""})
    refused(convert(broken, tmp_path), "weight '0.weight'", "needs 960 bytes", "holds 0")


def test_pt2_short_weight_record_is_refused(pt2_file: Path, tmp_path: Path) -> None:
    record = _weight_record(pt2_file, 960)
    broken = _rezip(pt2_file, tmp_path / "in" / "short.pt2", {record: bytes(480)})
    refused(convert(broken, tmp_path), "weight '0.weight'", "needs 960 bytes", "holds 480")


def test_pt2_intact_archive_converts(pt2_file: Path, tmp_path: Path) -> None:
    assert convert(pt2_file, tmp_path, openvino=True).outcome == "accepted"


# ---------------------------------------------------------------- MXNet: output index, sparse dense shape
def _mxnet_relu(tmp_path: Path, head_output: int = 0, params: bytes | None = None) -> Path:
    """data -> relu, the head reading output ``head_output`` of relu; ``params``: the raw params file."""
    pytest.importorskip("irconv_mxnet")
    symbol = {
        "nodes": [
            {"op": "null", "name": "data", "inputs": [], "attrs": {"__shape__": "(1, 4)"}},
            {"op": "relu", "name": "relu0", "inputs": [[0, 0, 0]]},
        ],
        "arg_nodes": [0],
        "heads": [[1, head_output, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    }
    path = tmp_path / "in" / "net-symbol.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(symbol))
    if params is not None:
        (tmp_path / "in" / "net-0000.params").write_bytes(params)
    return path


def test_mxnet_output_index_of_1e12_is_refused(tmp_path: Path) -> None:
    """Was: a port built for each of the 10^12 outputs the index implies."""
    refused(convert(_mxnet_relu(tmp_path, 10**12), tmp_path), "relu0", "output count", "1000000000001")


def test_mxnet_split_num_outputs_past_its_axis_is_refused(tmp_path: Path) -> None:
    """Was: a hang building 10^12 ports for SliceChannel's num_outputs."""
    path = _mxnet_relu(tmp_path)
    symbol = json.loads(path.read_text())
    symbol["nodes"][1] = {
        "op": "SliceChannel",
        "name": "sp",
        "attrs": {"num_outputs": str(10**12), "axis": "1"},
        "inputs": [[0, 0, 0]],
    }
    path.write_text(json.dumps(symbol))
    refused(convert(path, tmp_path), "node 'sp'", "num_outputs 1000000000000", "4 elements of the split axis")


def _row_sparse_params(dense_rows: int) -> bytes:
    """One row-sparse f32 array named ``arg:extra``: one stored row of 4 values, dense shape [dense_rows, 4]."""
    import struct

    from irconv_mxnet.ndarray_file import LIST_MAGIC, ROW_SPARSE, V2_MAGIC

    def shape(*dims: int) -> bytes:
        return struct.pack(f"<i{len(dims)}q", len(dims), *dims)

    array = (
        struct.pack("<Ii", V2_MAGIC, ROW_SPARSE)
        + shape(1, 4)
        + shape(dense_rows, 4)
        + struct.pack("<ii", 1, 0)
        + struct.pack("<i", 0)
        + struct.pack("<i", 6)
        + shape(1)  # values f32, aux (row indices) i64
        + np.ones(4, "<f4").tobytes()
        + np.zeros(1, "<i8").tobytes()
    )
    name = b"arg:extra"
    return struct.pack("<QQQ", LIST_MAGIC, 0, 1) + array + struct.pack("<QQ", 1, len(name)) + name


def test_mxnet_sparse_array_of_a_huge_dense_shape_is_refused(tmp_path: Path) -> None:
    """Was: np.zeros of the declared dense shape (16 TiB) before anything was checked."""
    outcome = convert(_mxnet_relu(tmp_path, params=_row_sparse_params(1 << 40)), tmp_path)
    refused(outcome, "array 0", "dense element count", str(4 << 40))


# ---------------------------------------------------------------- ONNX: raw_data of a shape that wraps int64
def test_onnx_raw_data_of_a_wrapping_shape_is_refused(tmp_path: Path) -> None:
    """dims 2^32 x 2^32 need 2^66 bytes; counted in int64 they were 0, which matched an empty raw_data."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    weight = helper.make_tensor("w", TensorProto.FLOAT, [0], b"", raw=True)
    weight.dims[:] = [1 << 32, 1 << 32]  # past the helper's own check
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [weight],
    )
    path = tmp_path / "in" / "wrap.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    refused(convert(path, tmp_path), "tensor 'w' raw_data", "needs 73786976294838206464 bytes", "holds 0")
