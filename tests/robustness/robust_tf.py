"""TensorFlow seeds (frozen GraphDef, SavedModel, Keras) and their mutators."""

from __future__ import annotations

import json
import random
import shutil
import zipfile
from pathlib import Path

import numpy as np

WEIRD_DIMS = (0, -1, 1, 2, 7, 1 << 31, 1 << 40, -(1 << 40))
OPS = ("Relu", "AddV2", "Conv2D", "MatMul", "Reshape", "ConcatV2", "Identity", "Const", "Placeholder",
       "Fill", "Range", "Tile", "StridedSlice", "Transpose", "Junk", "While", "If", "PartitionedCall")  # fmt: skip


def _quiet_tf():  # type: ignore[no-untyped-def]
    import os

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    return tf


def _functions():  # type: ignore[no-untyped-def]
    tf = _quiet_tf()
    rng = np.random.default_rng(0)
    w = tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32))
    b = tf.constant(rng.standard_normal(4).astype(np.float32))
    fw = tf.constant(rng.standard_normal((64, 5)).astype(np.float32))
    m = tf.constant(rng.standard_normal((4, 3)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 3], tf.float32, name="x")])
    def convnet(x):  # type: ignore[no-untyped-def]
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b))
        y = tf.nn.max_pool2d(y, 2, 2, "VALID")
        return tf.nn.softmax(tf.matmul(tf.reshape(y, [1, -1]), fw))

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def shapes(x):  # type: ignore[no-untyped-def]
        n = tf.shape(x)[0]
        y = tf.reshape(tf.matmul(x, m), tf.stack([n, 3]))
        z = tf.fill(tf.stack([n, 3]), 0.5) + tf.tile(tf.range(3, dtype=tf.float32)[None], [n, 1])
        return tf.transpose(tf.reduce_mean(y * z, axis=1, keepdims=True))

    return {"convnet": convnet, "shapes": shapes}


def graphdef_seeds(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, fn in _functions().items():
        path = folder / f"{name}.pb"
        path.write_bytes(fn.get_concrete_function().graph.as_graph_def().SerializeToString())
        out.append(path)
    return out


def mutate_graph_def(graph, rng: random.Random) -> str:  # type: ignore[no-untyped-def]
    nodes = list(graph.node)
    n = rng.choice(nodes)
    action = rng.randrange(8)
    if action == 0 and n.attr:
        key = rng.choice(sorted(n.attr))
        a = n.attr[key]
        if a.HasField("tensor"):
            t = a.tensor
            if t.tensor_content and rng.random() < 0.5:
                size = len(t.tensor_content)
                t.tensor_content = t.tensor_content[: rng.choice((0, 1, size // 2, size - 1))]
                return f"{n.name}.{key}: tensor_content {size} -> {len(t.tensor_content)}"
            if t.tensor_shape.dim:
                d = rng.choice(t.tensor_shape.dim)
                d.size = rng.choice(WEIRD_DIMS)
                return f"{n.name}.{key}: tensor dim -> {d.size}"
            t.dtype = rng.randrange(0, 30)
            return f"{n.name}.{key}: tensor dtype -> {t.dtype}"
        if a.HasField("shape") and a.shape.dim:
            d = rng.choice(a.shape.dim)
            d.size = rng.choice(WEIRD_DIMS)
            return f"{n.name}.{key}: shape dim -> {d.size}"
        if a.HasField("type"):
            a.type = rng.randrange(0, 30)
            return f"{n.name}.{key}: type -> {a.type}"
        if a.HasField("list") and a.list.i:
            a.list.i[rng.randrange(len(a.list.i))] = rng.choice(WEIRD_DIMS)
            return f"{n.name}.{key}: list.i edited"
        a.i = rng.choice(WEIRD_DIMS)
        return f"{n.name}.{key}: i -> {a.i}"
    if action == 1 and n.attr:
        key = rng.choice(sorted(n.attr))
        del n.attr[key]
        return f"{n.name}: attr {key} removed"
    if action == 2 and n.input:
        i = rng.randrange(len(n.input))
        n.input[i] = rng.choice(["missing", "", rng.choice(nodes).name, f"{rng.choice(nodes).name}:7", "^x"])
        return f"{n.name}.input[{i}] -> {n.input[i]!r}"
    if action == 3:
        old, n.op = n.op, rng.choice(OPS)
        return f"{n.name}: op {old} -> {n.op}"
    if action == 4:
        i = nodes.index(n)
        del graph.node[i]
        return f"{n.name} deleted"
    if action == 5:
        graph.node.add().CopyFrom(n)
        return f"{n.name} duplicated"
    if action == 6 and n.input:
        later = nodes[rng.randrange(nodes.index(n), len(nodes))]
        n.input[0] = later.name
        return f"{n.name} reads {later.name} (cycle)"
    n.name = rng.choice(["", "<&\"'>\n", "名前", "a" * 2000, n.name + ":0"])
    return f"node renamed to {n.name[:20]!r}"


def mutate_graphdef(seed: Path, out: Path, rng: random.Random) -> str:
    from irconv_tf.proto import graph_pb2

    data = seed.read_bytes()
    if rng.random() < 0.08:
        buf = bytearray(data)
        for _ in range(rng.randrange(1, 6)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        out.write_bytes(bytes(buf))
        return "bytes: flipped"
    graph = graph_pb2.GraphDef.FromString(data)
    done = [mutate_graph_def(graph, rng) for _ in range(rng.choice((1, 1, 2)))]
    out.write_bytes(graph.SerializeToString())
    return "; ".join(done)


# --------------------------------------------------------------------------- SavedModel
def savedmodel_seeds(folder: Path) -> list[Path]:
    tf = _quiet_tf()
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    rng = np.random.default_rng(1)

    class Dense(tf.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable(rng.standard_normal((4, 3)).astype(np.float32))
            self.b = tf.Variable(rng.standard_normal(3).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
        def __call__(self, x):  # type: ignore[no-untyped-def]
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    module = Dense()
    path = folder / "dense"
    tf.saved_model.save(module, str(path), signatures=module.__call__)
    out.append(path)
    return out


def make_savedmodel_case(seed: Path, in_dir: Path, rng: random.Random) -> tuple[Path, list[str], str]:
    from irconv_tf.proto import saved_model_pb2

    model = in_dir / "model"
    shutil.copytree(seed, model)
    pb_path = model / "saved_model.pb"
    if rng.random() < 0.25:
        files = [p for p in (model / "variables").iterdir() if p.is_file()]
        target = rng.choice(files)
        data = bytearray(target.read_bytes())
        if rng.random() < 0.5 and data:
            for _ in range(rng.randrange(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            what = f"variables/{target.name}: bytes flipped"
        else:
            data = data[: rng.randrange(len(data) + 1)]
            what = f"variables/{target.name}: truncated to {len(data)}"
        target.write_bytes(bytes(data))
        return model, [], what
    saved = saved_model_pb2.SavedModel.FromString(pb_path.read_bytes())
    meta = saved.meta_graphs[0]
    graphs = [meta.graph_def] + [f for f in []]
    functions = list(meta.graph_def.library.function)
    if functions and rng.random() < 0.6:
        fn = rng.choice(functions)
        what = f"function {fn.signature.name[:30]}: " + _mutate_function(fn, rng)
    else:
        what = mutate_graph_def(graphs[0], rng)
    pb_path.write_bytes(saved.SerializeToString())
    return model, [], what


def _mutate_function(fn, rng: random.Random) -> str:  # type: ignore[no-untyped-def]
    if not fn.node_def:
        return "nothing"
    n = rng.choice(fn.node_def)
    action = rng.randrange(4)
    if action == 0 and n.input:
        n.input[rng.randrange(len(n.input))] = rng.choice(["missing", "", "x", n.name])
        return f"{n.name} input rewired"
    if action == 1:
        n.op = rng.choice(OPS)
        return f"{n.name} op -> {n.op}"
    if action == 2 and n.attr:
        key = rng.choice(sorted(n.attr))
        del n.attr[key]
        return f"{n.name} attr {key} removed"
    if n.attr:
        key = rng.choice(sorted(n.attr))
        a = n.attr[key]
        if a.HasField("type"):
            a.type = rng.randrange(0, 30)
        elif a.HasField("shape") and a.shape.dim:
            a.shape.dim[0].size = rng.choice(WEIRD_DIMS)
        else:
            a.i = rng.choice(WEIRD_DIMS)
        return f"{n.name} attr {key} edited"
    return "nothing"


# ------------------------------------------------------------------------------- Keras
def keras_seeds(folder: Path) -> list[Path]:
    tf = _quiet_tf()
    folder.mkdir(parents=True, exist_ok=True)
    keras = tf.keras
    model = keras.Sequential(
        [
            keras.Input((8, 8, 3), name="x"),
            keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Flatten(),
            keras.layers.Dense(5, activation="softmax"),
        ]
    )
    path = folder / "seq.keras"
    model.save(path)
    return [path]


def _json_edit(config: object, rng: random.Random) -> str:
    """Change one scalar, list or key somewhere in a Keras JSON config."""
    spots: list[tuple[object, object]] = []
    stack = [config]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                spots.append((item, k))
                stack.append(v)
        elif isinstance(item, list):
            for i, v in enumerate(item):
                spots.append((item, i))
                stack.append(v)
    container, key = rng.choice(spots)
    old = container[key]  # type: ignore[index]
    if isinstance(container, dict) and rng.random() < 0.2:
        del container[key]
        return f"config: removed {key!r}"
    choices = [0, -1, 3, 1 << 40, None, "junk", "Lambda", [], {}, [1 << 31, 2], 0.5, True, "<&\"'>\n"]
    new = rng.choice(choices)
    container[key] = new  # type: ignore[index]
    return f"config: {str(key)[:20]!r}: {str(old)[:30]!r} -> {str(new)[:30]!r}"


def mutate_keras(seed: Path, out: Path, rng: random.Random) -> str:
    with zipfile.ZipFile(seed) as z:
        members = {name: z.read(name) for name in z.namelist()}
    config_name = "config.json"
    if rng.random() < 0.7 and config_name in members:
        config = json.loads(members[config_name])
        what = "; ".join(_json_edit(config, rng) for _ in range(rng.choice((1, 1, 2))))
        members[config_name] = json.dumps(config).encode()
    else:
        name = rng.choice(sorted(members))
        data = bytearray(members[name])
        if data and rng.random() < 0.6:
            for _ in range(rng.randrange(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            what = f"{name}: bytes flipped"
        else:
            data = data[: rng.randrange(len(data) + 1)]
            what = f"{name}: truncated to {len(data)}"
        members[name] = bytes(data)
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return what
