"""Writes examples/tiny_cnn.onnx: a small image classifier with seeded random weights.

Conv -> Relu -> MaxPool -> Conv (grouped) -> Relu -> GlobalAveragePool -> Flatten -> Gemm
-> Softmax, input "image" [1,3,32,32], output "probabilities" [1,10]. Regenerate with
`python examples/make_tiny_cnn.py` (needs the `onnx` package).
"""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        return numpy_helper.from_array((rng.standard_normal(shape) * np.sqrt(2 / fan_in)).astype(np.float32), name)

    initializers = [
        weight("conv1.w", 16, 3, 3, 3),
        numpy_helper.from_array(np.zeros(16, np.float32), "conv1.b"),
        weight("conv2.w", 32, 4, 3, 3),
        numpy_helper.from_array(rng.standard_normal(32).astype(np.float32) * 0.1, "conv2.b"),
        weight("fc.w", 10, 32),
        numpy_helper.from_array(np.zeros(10, np.float32), "fc.b"),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], "conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], "relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], "pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"], "conv2", pads=[1, 1, 1, 1], group=4),
        helper.make_node("Relu", ["c2"], ["r2"], "relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], "gap"),
        helper.make_node("Flatten", ["g"], ["f"], "flatten"),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], "fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], "softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="irconv-example")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    out = Path(__file__).with_name("tiny_cnn.onnx")
    onnx.save(build(), out)
    print(f"wrote {out}")
