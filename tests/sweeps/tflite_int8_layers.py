"""Where a full-integer TFLite model's IR leaves LiteRT: every quantized tensor compared.

The .tflite is converted by irconv; LiteRT runs a copy of it whose outputs are all its int8/uint8
activation tensors (so its default delegate, XNNPACK, computes every operator as it does
for the model itself); the IR runs on OpenVINO's CPU plugin with every tensor's value
(its FakeQuantize, or its operator's last node) added as an output (with ``--kernels off``: ``LP_TRANSFORMS_MODE=False``, its FakeQuantize
graph computed in f32, not by the int8 kernels). Per tensor, in execution order, it prints the
fraction of elements equal to LiteRT's and within one step, and the largest difference in
steps. A difference in one layer travels to the next, so the first rows that fall are the
ones to read.

    python tests/sweeps/tflite_int8_layers.py model.tflite [--kernels on|off] [--low 0 --high 255] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

#: TFLite's TensorType codes of integer activations
_INT8, _UINT8 = 9, 3


def with_every_tensor_out(path: Path, folder: Path) -> tuple[Path, list[int]]:
    """A copy of ``path`` whose sub-graph 0 also outputs every int8/uint8 operator result."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(path.read_bytes(), 0))
    graph = model.subgraphs[0]
    outputs = list(graph.outputs)
    probed = []
    for op in graph.operators:
        for index in op.outputs:
            if graph.tensors[index].type in (_INT8, _UINT8):
                probed.append(int(index))
                if index not in outputs:
                    outputs.append(index)
    graph.outputs = outputs
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    copy = folder / f"{path.stem}_every_tensor.tflite"
    copy.write_bytes(bytes(builder.Output()))
    return copy, probed


def litert_tensors(path: Path, feed: np.ndarray, probed: list[int]) -> tuple[dict[int, np.ndarray], dict[int, Any]]:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interpreter = Interpreter(model_path=str(path), num_threads=1)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], feed)
    interpreter.invoke()
    details = {d["index"]: d for d in interpreter.get_tensor_details()}
    # operator names from an interpreter without the delegate (which names its nodes DELEGATE)
    plain = Interpreter(
        model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    )
    producers = {int(o): op["op_name"] for op in plain._get_ops_details() for o in op["outputs"]}  # noqa: SLF001
    values = {i: interpreter.get_tensor(i).copy() for i in probed}
    return values, {i: (details[i], producers.get(i, "?")) for i in probed}


def ir_tensors(
    path: Path, folder: Path, feed: np.ndarray, names: dict[int, str], kernels: bool
) -> dict[int, np.ndarray]:
    """The IR's value of each named tensor (its FakeQuantize's output), NHWC like TFLite's."""
    import openvino as ov
    from irconv.api import convert_model, save_model
    from irconv.runtime import compile_for_comparison

    xml = folder / f"{path.stem}.xml"
    save_model(convert_model(path), xml, compress_to_fp16=False)
    core = ov.Core()
    model = core.read_model(str(xml))
    by_name = {op.get_friendly_name(): op for op in model.get_ops()}
    probes = {}
    for index, name in names.items():
        # the tensor's FakeQuantize, or the operator's last node when its integer form
        # computes the grid values (no FakeQuantize: extractors/integer.py)
        node = next(
            (by_name[n] for n in (f"{name}/quantized_tensor", f"{name}/quantized_tensor/fq", name) if n in by_name),
            None,
        )
        if node is not None:
            node.output(0).add_names({f"probe:{index}"})
            probes[index] = node.output(0)
    model.add_outputs(list(probes.values()))
    config: dict[str, Any] = {} if kernels else {"LP_TRANSFORMS_MODE": False}
    compiled = compile_for_comparison(model, core=core, config=config)
    results = compiled([feed.astype(np.float32)] if feed.dtype == np.float32 else [feed])
    found = {}
    for index in probes:
        try:
            found[index] = np.asarray(results[compiled.output(f"probe:{index}")])
        except RuntimeError:  # an output the compiled model merged away
            continue
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--kernels", choices=["on", "off"], default="on", help="OpenVINO's int8 kernels")
    parser.add_argument("--low", type=float, default=0.0)
    parser.add_argument("--high", type=float, default=255.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/tflite-int8-layers"))
    args = parser.parse_args(argv)
    from ai_edge_litert.interpreter import Interpreter

    args.dir.mkdir(parents=True, exist_ok=True)
    detail = Interpreter(model_path=str(args.model)).get_input_details()[0]
    image = np.random.default_rng(args.seed).uniform(args.low, args.high, detail["shape"]).astype(np.float32)
    if detail["dtype"] != np.float32:
        scale, zero = detail["quantization"]
        info = np.iinfo(detail["dtype"])
        image = np.clip(np.round(image / scale + zero), info.min, info.max).astype(detail["dtype"])
    copy, probed = with_every_tensor_out(args.model, args.dir)
    expected, described = litert_tensors(copy, image, probed)
    got = ir_tensors(
        args.model, args.dir, image, {i: d["name"] for i, (d, _) in described.items()}, args.kernels == "on"
    )
    print(f"{args.model.name}, OpenVINO's int8 kernels {args.kernels}\n")
    print("| # | operator | tensor | exact | within 1 step | max steps |")
    print("|---:|---|---|---:|---:|---:|")
    for row, index in enumerate(i for i in probed if i in got):
        detail, op = described[index]
        scale, zero = detail["quantization"]
        value = got[index]
        reference = expected[index].astype(np.float64)
        if value.ndim == 4 and value.shape != reference.shape:
            value = value.transpose(0, 2, 3, 1)  # the IR computes NCHW
        if value.shape != reference.shape:
            continue
        steps = np.abs(value.astype(np.float64) / scale + zero - reference)
        print(
            f"| {row} | {op} | {detail['name'][:60]} | {np.mean(steps < 0.01):.4f} | "
            f"{np.mean(steps <= 1.0001):.4f} | {steps.max():.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
