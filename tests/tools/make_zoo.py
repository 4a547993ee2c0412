"""Write a folder of small ONNX models (a few conv blocks each, seeded weights) for
``irconv convert-many`` tests and the benchmark; ``corrupt=True`` adds one broken file.

    python tests/tools/make_zoo.py OUT_DIR [--count 20] [--blocks 6] [--corrupt]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def conv_net(path: Path, seed: int, blocks: int, channels: int = 16) -> None:
    """Conv -> BatchNormalization -> Relu, ``blocks`` times, then global pooling and a Gemm."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    prev, c_in = "data", 3
    for b in range(blocks):
        w = numpy_helper.from_array(rng.standard_normal((channels, c_in, 3, 3)).astype(np.float32) * 0.2, f"b{b}.w")
        stats = [
            numpy_helper.from_array(rng.uniform(0.5, 1.5, channels).astype(np.float32), f"b{b}.{n}")
            for n in ("scale", "bias", "mean", "var")
        ]
        inits += [w, *stats]
        nodes.append(helper.make_node("Conv", [prev, w.name], [f"b{b}.conv"], pads=[1, 1, 1, 1], name=f"block{b}/conv"))
        nodes.append(
            helper.make_node(
                "BatchNormalization", [f"b{b}.conv", *(s.name for s in stats)], [f"b{b}.bn"], name=f"block{b}/bn"
            )
        )
        nodes.append(helper.make_node("Relu", [f"b{b}.bn"], [f"b{b}.relu"], name=f"block{b}/relu"))
        prev, c_in = f"b{b}.relu", channels
    fc = numpy_helper.from_array(rng.standard_normal((channels, 10)).astype(np.float32), "fc.w")
    inits.append(fc)
    nodes.append(helper.make_node("GlobalAveragePool", [prev], ["pool"], name="head/pool"))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"], name="head/flatten"))
    nodes.append(helper.make_node("MatMul", ["flat", "fc.w"], ["logits"], name="head/fc"))
    graph = helper.make_graph(
        nodes,
        f"net{seed}",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
        inits,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def residual_net(path: Path, seed: int, blocks: int, channels: int = 8) -> None:
    """``blocks`` residual blocks (Conv-Relu-Conv plus the identity, Add, Relu) with flat
    node names (``conv3a``, ``add3``), as Caffe-style models name their layers."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    stem = numpy_helper.from_array(rng.standard_normal((channels, 3, 3, 3)).astype(np.float32) * 0.2, "stem.w")
    inits.append(stem)
    nodes.append(helper.make_node("Conv", ["data", "stem.w"], ["x0"], pads=[1, 1, 1, 1], name="stem"))
    prev = "x0"
    for b in range(blocks):
        for half in "ab":
            w = rng.standard_normal((channels, channels, 3, 3)).astype(np.float32) * 0.1
            inits.append(numpy_helper.from_array(w, f"w{b}{half}"))
        nodes += [
            helper.make_node("Conv", [prev, f"w{b}a"], [f"c{b}a"], pads=[1, 1, 1, 1], name=f"conv{b}a"),
            helper.make_node("Relu", [f"c{b}a"], [f"r{b}a"], name=f"relu{b}a"),
            helper.make_node("Conv", [f"r{b}a", f"w{b}b"], [f"c{b}b"], pads=[1, 1, 1, 1], name=f"conv{b}b"),
            helper.make_node("Add", [f"c{b}b", prev], [f"s{b}"], name=f"add{b}"),
            helper.make_node("Relu", [f"s{b}"], [f"x{b + 1}"], name=f"relu{b}"),
        ]
        prev = f"x{b + 1}"
    graph = helper.make_graph(
        nodes,
        f"res{seed}",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, channels, 16, 16])],
        inits,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def make_zoo(folder: Path, count: int = 20, blocks: int = 6, corrupt: bool = False) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"net{i:02d}.onnx"
        conv_net(path, seed=i, blocks=blocks)
        paths.append(path)
    if corrupt:
        broken = folder / "broken.onnx"
        broken.write_bytes(paths[0].read_bytes()[:200])  # a truncated protobuf
        paths.append(broken)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--corrupt", action="store_true")
    args = parser.parse_args()
    made = make_zoo(args.out, args.count, args.blocks, args.corrupt)
    print(f"wrote {len(made)} model(s) to {args.out}")


if __name__ == "__main__":
    main()
