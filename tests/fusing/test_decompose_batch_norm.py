import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import BatchNormInference
from irconv_transforms.decompose_batch_norm import DecomposeBatchNorm

RNG = np.random.default_rng(4)
GAMMA, BETA, MEAN = (RNG.standard_normal(5).astype(np.float32) for _ in range(3))
VAR = RNG.uniform(0.5, 2, 5).astype(np.float32)


def batch_norm(mean_input="const", name="bn"):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 5, 4, 4))
        mean = b.parameter("m", (5,)) if mean_input == "parameter" else b.const(MEAN)
        b.result(
            b.op(BatchNormInference(epsilon=1e-3), x, b.const(GAMMA), b.const(BETA), mean, b.const(VAR), name=name), "y"
        )
        return b.graph

    return build


def test_batch_norm_becomes_multiply_add_and_matches_the_formula(check_fuses):
    graph = check_fuses(batch_norm(), DecomposeBatchNorm(), gone=("BatchNormInference",), present=("Multiply", "Add"))
    assert graph.node("bn").type == "Add"


def test_batch_norm_with_computed_statistics_is_left_alone(check_untouched):
    check_untouched(batch_norm("parameter"), DecomposeBatchNorm())


def test_frozen_batch_norm_is_left_alone(check_untouched, frozen):
    check_untouched(batch_norm(), DecomposeBatchNorm(), frozen("bn"))
