"""MXNet seeds (a hand-written ``-symbol.json`` and a spec-written ``-0000.params``, as the
MXNet tests write them without MXNet) and their mutators: the symbol JSON (op names, attrs,
input indices, heads, arg_nodes) and the params file's header and NDArray records (counts,
shapes, dtypes, data lengths, names)."""

from __future__ import annotations

import json
import random
import shutil
import struct
from pathlib import Path

import numpy as np
from robust_tf import WEIRD_DIMS, _json_edit

OPS = ("Convolution", "FullyConnected", "Activation", "Pooling", "Reshape", "Concat", "elemwise_add",
       "BatchNorm", "softmax", "null", "Junk", "_contrib_box_nms", "RNN", "")  # fmt: skip
ATTR_VALUES = ("0", "-1", "(0, 0)", "(1099511627776, 1)", "(3, 3, 3)", "()", "nan", "True", "junk", "(", "")
#: The input each seed is converted with (``--input``), by the seed's prefix.
INPUTS = {"cnn": "data[2,3,8,8]", "mlp": "data[4,6]"}


def _node(op: str, name: str, inputs: list[int], **attrs: str) -> dict[str, object]:
    return {"op": op, "name": name, "attrs": attrs, "inputs": [[i, 0, 0] for i in inputs]}


def _write(
    folder: Path, prefix: str, args: list[str], layers: list[dict[str, object]], params: dict[str, np.ndarray], fmt: str
) -> Path:
    from irconv_mxnet.testing import write_ndarray_file

    nodes: list[dict[str, object]] = [{"op": "null", "name": n, "inputs": []} for n in args]
    nodes += layers
    symbol = {
        "nodes": nodes,
        "arg_nodes": list(range(len(args))),
        "heads": [[len(nodes) - 1, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    }
    path = folder / f"{prefix}-symbol.json"
    path.write_text(json.dumps(symbol, indent=2))
    prefixed = {("aux:" if "moving" in k else "arg:") + k: v.astype(np.float32) for k, v in params.items()}
    write_ndarray_file(folder / f"{prefix}-0000.params", prefixed, fmt)
    return path


def seeds(folder: Path) -> list[Path]:
    """A strided conv/BatchNorm/LeakyReLU/global-pool/dense/SoftmaxOutput net (v2 params) and a
    two-branch MLP (v3 params)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    cnn = _write(
        folder,
        "cnn",
        [
            "data",
            "conv_weight",
            "bn_gamma",
            "bn_beta",
            "bn_moving_mean",
            "bn_moving_var",
            "fc_weight",
            "fc_bias",
            "softmax_label",
        ],  # fmt: skip
        [
            _node("Convolution", "conv", [0, 1], kernel="(3, 3)", stride="(2, 2)", num_filter="4", no_bias="True"),
            _node("BatchNorm", "bn", [9, 2, 3, 4, 5], eps="0.001"),
            _node("LeakyReLU", "act", [10], act_type="leaky", slope="0.1"),
            _node("Pooling", "gap", [11], kernel="(1, 1)", global_pool="True", pool_type="avg"),
            _node("Flatten", "flat", [12]),
            _node("Dropout", "drop", [13], p="0.5"),
            _node("FullyConnected", "fc", [14, 6, 7], num_hidden="5"),
            _node("SoftmaxOutput", "prob", [15, 8]),
        ],
        {
            "conv_weight": rng.standard_normal((4, 3, 3, 3)),
            "bn_gamma": rng.uniform(0.5, 1.5, 4),
            "bn_beta": rng.uniform(-0.5, 0.5, 4),
            "bn_moving_mean": rng.uniform(-0.5, 0.5, 4),
            "bn_moving_var": rng.uniform(0.5, 1.5, 4),
            "fc_weight": rng.standard_normal((5, 4)),
            "fc_bias": rng.standard_normal(5),
        },
        "v2",
    )
    mlp = _write(
        folder,
        "mlp",
        ["data", "a_weight", "a_bias", "b_weight", "b_bias"],
        [
            _node("FullyConnected", "a", [0, 1, 2], num_hidden="8"),
            _node("Activation", "tanh", [5], act_type="tanh"),
            _node("FullyConnected", "b", [0, 3, 4], num_hidden="8"),
            _node("elemwise_add", "sum", [6, 7]),
            _node("Concat", "both", [8, 5], dim="1"),
            _node("sum", "total", [9], axis="1", keepdims="True"),
        ],
        {
            "a_weight": rng.standard_normal((8, 6)),
            "a_bias": rng.standard_normal(8),
            "b_weight": rng.standard_normal((8, 6)),
            "b_bias": rng.standard_normal(8),
        },
        "v3",
    )
    return [cnn, mlp]


def _well_formed(symbol: object) -> bool:
    """Nodes, heads and arg_nodes still shaped as the structured edits expect (an earlier
    edit of the same case may have replaced any of them)."""
    if not isinstance(symbol, dict):
        return False
    nodes, heads, args = symbol.get("nodes"), symbol.get("heads"), symbol.get("arg_nodes")
    return (
        isinstance(nodes, list)
        and bool(nodes)
        and all(isinstance(n, dict) and isinstance(n.get("inputs"), list) for n in nodes)
        and all(isinstance(e, list) and e for n in nodes for e in n["inputs"])
        and all(isinstance(n.get("attrs", {}), dict) and isinstance(n.get("name"), str) for n in nodes)
        and isinstance(heads, list)
        and bool(heads)
        and isinstance(heads[0], list)
        and bool(heads[0])
        and isinstance(args, list)
    )


def mutate_symbol(symbol: dict, rng: random.Random) -> str:  # type: ignore[type-arg]
    if not _well_formed(symbol):
        return _json_edit(symbol, rng) if symbol else "nothing"
    nodes = symbol["nodes"]
    i = rng.randrange(len(nodes))
    node = nodes[i]
    roll = rng.randrange(7)
    if roll == 0:
        old, node["op"] = node["op"], rng.choice(OPS)
        return f"node {i}: op {old} -> {node['op']!r}"
    if roll == 1 and node.get("attrs"):
        key = rng.choice(sorted(node["attrs"]))
        if rng.random() < 0.3:
            del node["attrs"][key]
            return f"node {i}: attr {key} removed"
        node["attrs"][key] = rng.choice(ATTR_VALUES)
        return f"node {i}: attr {key} -> {node['attrs'][key]!r}"
    if roll == 2 and node["inputs"]:
        k = rng.randrange(len(node["inputs"]))
        entry = node["inputs"][k]
        j = rng.randrange(len(entry))
        entry[j] = rng.choice((-1, i, i + 1, len(nodes), 1 << 40, rng.randrange(len(nodes)), "0", None))
        return f"node {i}: inputs[{k}][{j}] -> {entry[j]!r}"
    if roll == 3:
        heads = symbol["heads"]
        head = heads[0]
        j = rng.randrange(len(head))
        head[j] = rng.choice((-1, len(nodes), 0, rng.randrange(len(nodes)), 5))
        if rng.random() < 0.2:
            heads.clear()
        return f"heads -> {heads}"
    if roll == 4:
        args = symbol["arg_nodes"]
        if args and rng.random() < 0.5:
            del args[rng.randrange(len(args))]
        else:
            args.append(rng.choice((len(nodes) - 1, len(nodes), -1)))
        return f"arg_nodes -> {args}"
    if roll == 5:
        if rng.random() < 0.5:
            del nodes[i]
            return f"node {i} removed"
        node["name"] = rng.choice(("", nodes[0]["name"], "a" * 3000, "<&\"'>\n", "名前"))
        return f"node {i}: renamed to {node['name'][:20]!r}"
    return _json_edit(symbol, rng)


def _records(buf: bytes) -> list[tuple[str, int, str]]:
    """(what, position, struct format) of the params file's header and record fields."""
    fields = [("array count", 16, "<Q")]
    pos = 24
    count = struct.unpack_from("<Q", buf, 16)[0]
    for a in range(count):
        magic = struct.unpack_from("<I", buf, pos)[0]
        fields.append((f"array {a} magic", pos, "<I"))
        pos += 8  # magic, storage type
        ndim = struct.unpack_from("<i", buf, pos)[0]
        fields.append((f"array {a} ndim", pos, "<i"))
        pos += 4
        shape = struct.unpack_from(f"<{max(ndim, 0)}q", buf, pos)
        fields += [(f"array {a} dim {d}", pos + 8 * d, "<q") for d in range(len(shape))]
        pos += 8 * len(shape)
        if magic == 0xF993FACA and ndim == -1:
            continue
        fields.append((f"array {a} device", pos, "<i"))
        fields.append((f"array {a} dtype", pos + 8, "<i"))
        flag = struct.unpack_from("<i", buf, pos + 8)[0]
        pos += 12 + int(np.prod(shape)) * np.dtype({0: "f4", 1: "f8", 2: "f2"}.get(flag, "f4")).itemsize
    fields.append(("name count", pos, "<Q"))
    names = struct.unpack_from("<Q", buf, pos)[0]
    pos += 8
    for k in range(names):
        fields.append((f"name {k} length", pos, "<Q"))
        pos += 8 + struct.unpack_from("<Q", buf, pos)[0]
    return fields


def mutate_params(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    buf = bytearray(data)
    if rng.random() < 0.15:
        keep = rng.randrange(len(buf))
        return bytes(buf[:keep]), f"params truncated to {keep}"
    what, pos, fmt = rng.choice(_records(data))
    old = struct.unpack_from(fmt, buf, pos)[0]
    if "dtype" in what:
        new = rng.choice((1, 2, 3, 4, 5, 6, 7, 12, 99, -1))
    elif "magic" in what:
        new = rng.choice((0, 0xF993FAC8, 0xF993FAC9, 0xF993FACA, 0xDEADBEEF))
    elif "ndim" in what:
        new = rng.choice((-1, 0, 1, old + 1, 33, 1 << 30))
    elif "length" in what:
        new = rng.choice((0, old + 1, 1 << 40, max(old - 1, 0)))
    else:
        new = rng.choice([v for v in (*WEIRD_DIMS, old + 1, max(old - 1, 0)) if v >= 0 or fmt != "<Q"])
    mask = (1 << (8 * struct.calcsize(fmt))) - 1
    buf[pos : pos + struct.calcsize(fmt)] = (new & mask).to_bytes(struct.calcsize(fmt), "little")
    return bytes(buf), f"params {what}: {old} -> {new}"


def make_case(seed: Path, in_dir: Path, rng: random.Random) -> tuple[Path, list[str], str]:
    prefix = seed.name.removesuffix("-symbol.json")
    symbol_out, params_out = in_dir / "model-symbol.json", in_dir / "model-0000.params"
    params_in = seed.with_name(f"{prefix}-0000.params")
    extra = ["--input", INPUTS[prefix]]
    if rng.random() < 0.6:
        shutil.copyfile(params_in, params_out)
        symbol = json.loads(seed.read_text())
        what = "; ".join(mutate_symbol(symbol, rng) for _ in range(rng.choice((1, 1, 2))))
        symbol_out.write_text(json.dumps(symbol, ensure_ascii=False))
        return symbol_out, extra, what
    shutil.copyfile(seed, symbol_out)
    data, what = mutate_params(params_in.read_bytes(), rng)
    params_out.write_bytes(data)
    return symbol_out, extra, what
