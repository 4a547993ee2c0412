import numpy as np
from irconv.testing import GraphBuilder
from irconv_opset import Add, Divide, Multiply, Subtract
from irconv_transforms.merge_linear_chains import MergeLinearChains

RNG = np.random.default_rng(5)
A, B, C, D = (RNG.uniform(0.5, 2, (3, 1, 1)).astype(np.float32) for _ in range(4))


def chain(second="const", name="m2"):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 3, 4, 4))
        other = b.parameter("p", (1, 3, 1, 1)) if second == "parameter" else b.const(B)
        t = b.op(Multiply(), b.op(Multiply(), x, b.const(A)), other, name=name)
        t = b.op(Add(), b.op(Subtract(), t, b.const(C)), b.const(D))
        t = b.op(Multiply(), b.op(Divide(m_pythondiv=False), t, b.const(B)), b.const(A))
        b.result(t, "y")
        return b.graph

    return build


def test_chain_becomes_one_multiply_and_one_add(check_fuses):
    graph = check_fuses(chain(), MergeLinearChains(), gone=("Subtract", "Divide"))
    types = [n.type for n in graph.topological_order()]
    assert types.count("Multiply") == 1 and types.count("Add") == 1


def test_adding_zero_and_multiplying_by_one_disappear(check_fuses):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (2, 3))
        y = b.op(Multiply(), b.op(Add(), x, b.const(np.zeros(3, np.float32))), b.const(np.float32(1)))
        b.result(b.op(Multiply(), y, y), "y")
        return b.graph

    graph = check_fuses(build, MergeLinearChains(), gone=("Add",))
    assert len(graph.by_type("Multiply")) == 1


def test_multiply_by_a_non_constant_is_left_alone(check_untouched):
    def build():
        b = GraphBuilder()
        x, p = b.parameter("x", (1, 3, 4, 4)), b.parameter("p", (1, 3, 1, 1))
        b.result(b.op(Multiply(), b.op(Multiply(), x, p), b.const(B)), "y")
        return b.graph

    check_untouched(build, MergeLinearChains())


def test_frozen_nodes_are_left_alone(check_untouched, frozen):
    def build():
        b = GraphBuilder()
        x = b.parameter("x", (1, 3, 4, 4))
        b.result(b.op(Multiply(), b.op(Multiply(), x, b.const(A), name="m1"), b.const(B), name="m2"), "y")
        return b.graph

    check_untouched(build, MergeLinearChains(), frozen("m1"))
