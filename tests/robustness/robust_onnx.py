"""ONNX seed models and structure-aware mutators (protobuf field edits)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

WEIRD_DIMS = (0, -1, 1, 2, 3, 7, 64, 1 << 31, 1 << 40, 1 << 62, -(1 << 40))
WEIRD_INTS = (0, -1, 1, 2, 3, -7, 100, 1 << 31, 1 << 40, -(1 << 62), (1 << 63) - 1)
WEIRD_FLOATS = (0.0, -1.0, 1e-30, 1e30, float("inf"), float("nan"), -0.5)
OP_TYPES = (
    "Relu",
    "Add",
    "Conv",
    "MatMul",
    "Reshape",
    "Concat",
    "Gather",
    "Slice",
    "Transpose",
    "Split",
    "ConstantOfShape",
    "Range",
    "Tile",
    "Expand",
    "If",
    "Loop",
    "Resize",
    "TopK",
    "NonZero",
    "Where",
    "Pad",
    "Cast",
    "Softmax",
    "LSTM",
    "Einsum",
    "ScatterND",
    "GatherND",
    "ReduceSum",
    "Unknown",
    "",
)


def seeds(folder: Path) -> list[Path]:
    """Small models covering convolution, shape sub-graphs, control flow, constants, RNN."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)

    def init(name: str, array: np.ndarray) -> onnx.TensorProto:
        return numpy_helper.from_array(array, name)

    def save(name: str, nodes, inputs, outputs, inits, opset: int = 17) -> Path:
        graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        path = folder / f"{name}.onnx"
        onnx.save(model, path)
        return path

    f32 = TensorProto.FLOAT
    paths = [
        save(
            "convnet",
            [
                helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                helper.make_node("Relu", ["c"], ["r"]),
                helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                helper.make_node("Flatten", ["p"], ["f"]),
                helper.make_node("Gemm", ["f", "fw"], ["g"], transB=1),
                helper.make_node("Softmax", ["g"], ["y"], axis=1),
            ],
            [helper.make_tensor_value_info("x", f32, [1, 3, 8, 8])],
            [helper.make_tensor_value_info("y", f32, [1, 5])],
            [
                init("w", rng.standard_normal((4, 3, 3, 3)).astype(np.float32)),
                init("b", rng.standard_normal(4).astype(np.float32)),
                init("fw", rng.standard_normal((5, 64)).astype(np.float32)),
            ],
        ),
        save(
            "shapes",
            [
                helper.make_node("Shape", ["x"], ["s"]),
                helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
                helper.make_node("Unsqueeze", ["n", "zero1"], ["n1"]),
                helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
                helper.make_node("Reshape", ["x", "target"], ["flat"]),
                helper.make_node("MatMul", ["flat", "m"], ["mm"]),
                helper.make_node("Transpose", ["mm"], ["t"], perm=[1, 0]),
                helper.make_node("Add", ["t", "bias"], ["y"]),
            ],
            [helper.make_tensor_value_info("x", f32, ["batch", 2, 4])],
            [helper.make_tensor_value_info("y", f32, [3, "batch"])],
            [
                init("zero", np.array(0, np.int64)),
                init("zero1", np.array([0], np.int64)),
                init("minus1", np.array([-1], np.int64)),
                init("m", rng.standard_normal((8, 3)).astype(np.float32)),
                init("bias", rng.standard_normal((3, 1)).astype(np.float32)),
            ],
        ),
        save(
            "control",
            [
                helper.make_node("ReduceSum", ["x"], ["sum"], keepdims=0),
                helper.make_node("Greater", ["sum", "zero"], ["cond"]),
                helper.make_node(
                    "If",
                    ["cond"],
                    ["y"],
                    then_branch=helper.make_graph(
                        [helper.make_node("Relu", ["x"], ["then_out"])],
                        "then",
                        [],
                        [helper.make_tensor_value_info("then_out", f32, [2, 3])],
                    ),
                    else_branch=helper.make_graph(
                        [helper.make_node("Neg", ["x"], ["else_out"])],
                        "else",
                        [],
                        [helper.make_tensor_value_info("else_out", f32, [2, 3])],
                    ),
                ),
            ],
            [helper.make_tensor_value_info("x", f32, [2, 3])],
            [helper.make_tensor_value_info("y", f32, [2, 3])],
            [init("zero", np.array(0, np.float32))],
            opset=13,
        ),
        save(
            "constants",
            [
                helper.make_node(
                    "ConstantOfShape", ["shape"], ["filled"], value=helper.make_tensor("v", f32, [1], [0.5])
                ),
                helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
                helper.make_node("Cast", ["r"], ["rf"], to=f32),
                helper.make_node("Tile", ["rf", "reps"], ["tiled"]),
                helper.make_node("Reshape", ["tiled", "shape"], ["tiled2"]),
                helper.make_node("Expand", ["filled", "shape"], ["expanded"]),
                helper.make_node("Add", ["expanded", "tiled2"], ["sum"]),
                helper.make_node("Slice", ["sum", "starts", "ends"], ["sliced"]),
                helper.make_node("Mul", ["x", "sliced"], ["y"]),
            ],
            [helper.make_tensor_value_info("x", f32, [2, 2])],
            [helper.make_tensor_value_info("y", f32, [2, 2])],
            [
                init("shape", np.array([2, 3], np.int64)),
                init("start", np.array(0, np.int64)),
                init("limit", np.array(3, np.int64)),
                init("delta", np.array(1, np.int64)),
                init("reps", np.array([2], np.int64)),
                init("starts", np.array([0, 0], np.int64)),
                init("ends", np.array([2, 2], np.int64)),
            ],
        ),
        save(
            "recurrent",
            [helper.make_node("LSTM", ["x", "W", "R", "B"], ["", "y"], hidden_size=4)],
            [helper.make_tensor_value_info("x", f32, [5, 1, 3])],
            [helper.make_tensor_value_info("y", f32, [1, 1, 4])],
            [
                init("W", rng.standard_normal((1, 16, 3)).astype(np.float32)),
                init("R", rng.standard_normal((1, 16, 4)).astype(np.float32)),
                init("B", rng.standard_normal((1, 32)).astype(np.float32)),
            ],
        ),
    ]
    return paths


# ---------------------------------------------------------------------------- mutators
def _graphs(model) -> list:
    """The main graph and every body graph (attributes of kind GRAPH)."""
    out, stack = [], [model.graph]
    while stack:
        g = stack.pop()
        out.append(g)
        for node in g.node:
            for a in node.attribute:
                if a.type == a.GRAPH:
                    stack.append(a.g)
                stack.extend(a.graphs)
    return out


def _value_infos(g) -> list:
    return [*g.input, *g.output, *g.value_info]


def m_dims(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    choices = [("init", t) for t in g.initializer if t.dims] + [
        ("vi", v) for v in _value_infos(g) if v.type.tensor_type.shape.dim
    ]
    if not choices:
        return "dims: nothing"
    kind, item = rng.choice(choices)
    value = rng.choice(WEIRD_DIMS)
    if kind == "init":
        i = rng.randrange(len(item.dims))
        item.dims[i] = value
        return f"dims: initializer {item.name}[{i}] = {value}"
    dims = item.type.tensor_type.shape.dim
    i = rng.randrange(len(dims))
    if rng.random() < 0.2:
        dims[i].dim_param = rng.choice(["", "N", "a b", "<&>"])
    else:
        dims[i].dim_value = value
    return f"dims: {item.name}[{i}] = {value}"


def m_rank(model, rng: random.Random) -> str:
    g = model.graph
    v = rng.choice(_value_infos(g))
    dims = v.type.tensor_type.shape.dim
    if dims and rng.random() < 0.5:
        del dims[rng.randrange(len(dims))]
        return f"rank: dropped a dim of {v.name}"
    for _ in range(rng.choice((1, 2, 9))):
        dims.add().dim_value = rng.choice((1, 2))
    return f"rank: added dims to {v.name}"


def m_dtype(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    value = rng.randrange(0, 26)
    if g.initializer and rng.random() < 0.5:
        t = rng.choice(g.initializer)
        t.data_type = value
        return f"dtype: initializer {t.name} -> {value}"
    v = rng.choice(_value_infos(g) or [None])
    if v is None:
        return "dtype: nothing"
    v.type.tensor_type.elem_type = value
    return f"dtype: {v.name} -> {value}"


def m_dangling(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    nodes = [n for n in g.node if n.input]
    if not nodes:
        return "dangling: nothing"
    n = rng.choice(nodes)
    i = rng.randrange(len(n.input))
    n.input[i] = rng.choice(["missing_tensor", "", n.output[0] if n.output else "x", "y"])
    return f"dangling: {n.name or n.op_type}.input[{i}] = {n.input[i]!r}"


def m_cycle(model, rng: random.Random) -> str:
    g = model.graph
    if len(g.node) < 2:
        return "cycle: nothing"
    i = rng.randrange(len(g.node) - 1)
    j = rng.randrange(i, len(g.node))
    src, dst = g.node[j], g.node[i]
    if not dst.input or not src.output:
        return "cycle: nothing"
    dst.input[rng.randrange(len(dst.input))] = src.output[0]
    return f"cycle: node {i} reads node {j}'s output"


def m_attribute(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    nodes = list(g.node)
    if not nodes:
        return "attr: nothing"
    n = rng.choice(nodes)
    action = rng.randrange(5)
    if action == 0 or not n.attribute:
        a = n.attribute.add()
        a.name = rng.choice(["axis", "perm", "kernel_shape", "to", "junk", "pads", "mode"])
        a.type = rng.choice([1, 2, 3, 6, 7])
        a.i, a.f, a.s = rng.choice(WEIRD_INTS), rng.choice(WEIRD_FLOATS), b"\xff<&>"
        a.ints.extend(rng.choice(WEIRD_INTS) for _ in range(rng.randrange(0, 5)))
        return f"attr: added {a.name} kind {a.type} to {n.op_type}"
    a = rng.choice(n.attribute)
    if action == 1:
        a.type = rng.randrange(0, 15)
        return f"attr: {n.op_type}.{a.name} kind -> {a.type}"
    if action == 2:
        n.attribute.remove(a)
        return f"attr: removed {n.op_type}.{a.name}"
    if action == 3:
        if a.ints:
            a.ints[rng.randrange(len(a.ints))] = rng.choice(WEIRD_INTS)
        elif a.floats:
            a.floats[rng.randrange(len(a.floats))] = rng.choice(WEIRD_FLOATS)
        else:
            a.i, a.f = rng.choice(WEIRD_INTS), rng.choice(WEIRD_FLOATS)
        return f"attr: {n.op_type}.{a.name} value"
    a.ClearField("ints") if rng.random() < 0.5 else a.ints.extend([rng.choice(WEIRD_INTS)] * rng.randrange(1, 9))
    return f"attr: {n.op_type}.{a.name} ints resized"


def m_raw_data(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    inits = [t for t in g.initializer if t.raw_data]
    if not inits:
        return "raw_data: nothing"
    t = rng.choice(inits)
    size = len(t.raw_data)
    new = rng.choice([0, 1, size - 1, size + 1, size // 2, size * 2, 3])
    t.raw_data = (t.raw_data * 3)[: max(new, 0)]
    return f"raw_data: {t.name} {size} -> {len(t.raw_data)} bytes"


def m_op_type(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    if not g.node:
        return "op: nothing"
    n = rng.choice(g.node)
    old, n.op_type = n.op_type, rng.choice(OP_TYPES)
    return f"op: {old} -> {n.op_type}"


def m_node_count(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    if not g.node:
        return "nodes: nothing"
    i = rng.randrange(len(g.node))
    if rng.random() < 0.5:
        del g.node[i]
        return f"nodes: deleted node {i}"
    g.node.add().CopyFrom(g.node[i])
    return f"nodes: duplicated node {i}"


def m_arity(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    if not g.node:
        return "arity: nothing"
    n = rng.choice(g.node)
    if n.input and rng.random() < 0.5:
        del n.input[-1]
        return f"arity: {n.op_type} lost its last input"
    if rng.random() < 0.5:
        n.input.append(rng.choice([*(i.name for i in g.initializer), "x", ""]))
        return f"arity: {n.op_type} gained an input"
    n.output.append(f"extra_{rng.randrange(9)}")
    return f"arity: {n.op_type} gained an output"


def m_io(model, rng: random.Random) -> str:
    g = model.graph
    action = rng.randrange(4)
    if action == 0 and g.output:
        del g.output[rng.randrange(len(g.output))]
        return "io: removed a graph output"
    if action == 1 and g.input:
        del g.input[rng.randrange(len(g.input))]
        return "io: removed a graph input"
    if action == 2 and g.initializer:
        del g.initializer[rng.randrange(len(g.initializer))]
        return "io: removed an initializer"
    v = rng.choice(_value_infos(g))
    v.name = rng.choice(["", "x", "y", "<&\"'>\n", "名前", "a" * 300])
    return f"io: renamed a value to {v.name[:20]!r}"


def m_opset(model, rng: random.Random) -> str:
    o = model.opset_import[0]
    if rng.random() < 0.7:
        o.version = rng.choice([0, 1, 6, 7, 9, 11, 13, 18, 21, 22, 25, 99, -1])
        return f"opset: {o.version}"
    o.domain = rng.choice(["ai.onnx.ml", "com.example", "junk"])
    return f"opset: domain {o.domain}"


def m_names(model, rng: random.Random) -> str:
    g = rng.choice(_graphs(model))
    if not g.node:
        return "names: nothing"
    n = rng.choice(g.node)
    n.name = rng.choice(["", "<&\"'>\n\t", "名前 ünïcode", "a" * 5000, "\x00bad", "x"])
    return f"names: node name {n.name[:20]!r}"


MUTATORS: tuple[Callable[..., str], ...] = (
    m_dims, m_rank, m_dtype, m_dangling, m_cycle, m_attribute, m_raw_data,
    m_op_type, m_node_count, m_arity, m_io, m_opset, m_names,
)  # fmt: skip


def mutate(seed: Path, out: Path, rng: random.Random) -> str:
    """Write a mutant of ``seed`` to ``out``; returns what was changed."""
    import onnx

    data = seed.read_bytes()
    if rng.random() < 0.08:  # a few raw byte edits: the parser itself must cope
        buf = bytearray(data)
        for _ in range(rng.randrange(1, 6)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        out.write_bytes(bytes(buf))
        return "bytes: flipped"
    model = onnx.ModelProto.FromString(data)
    done = [rng.choice(MUTATORS)(model, rng) for _ in range(rng.choice((1, 1, 2, 3)))]
    out.write_bytes(model.SerializeToString())
    return "; ".join(done)
