from core_toy_ops import Add, Multiply, Relu, Sigmoid
from irconv.graph import any_, const, find_matches, match_at, op
from irconv.testing import GraphBuilder

X = any_("x")
SWISH = op("Multiply", X, op("Sigmoid", X, bind="sig", single_use=True), bind="mul", commutative=True)


def swish_graph(swap: bool = False, other_input: bool = False):
    b = GraphBuilder()
    x = b.parameter("x", (1, 8))
    y = b.parameter("y", (1, 8))
    sig = b.op(Sigmoid(), y if other_input else x, name="sig")
    inputs = (sig, x) if swap else (x, sig)
    b.result(b.op(Multiply(), *inputs, name="mul"), "out")
    return b.graph


def test_swish_matches_in_either_operand_order():
    for swap in (False, True):
        matches = list(find_matches(swish_graph(swap), SWISH))
        assert len(matches) == 1
        assert matches[0]["mul"].name == "mul" and matches[0]["sig"].name == "sig"
        assert matches[0].port("x").node.name == "x"


def test_shared_binding_must_meet_the_same_tensor():
    assert list(find_matches(swish_graph(other_input=True), SWISH)) == []


def test_single_use_rejects_a_shared_intermediate():
    g = swish_graph()
    g.add_node(Relu(), "extra_user", [g.node("sig").out_port(0)])
    assert list(find_matches(g, SWISH)) == []


def test_matching_only_visits_nodes_of_the_root_type():
    g = swish_graph()
    visited = []

    def spy(node):
        visited.append(node.name)
        return True

    pattern = op("Multiply", any_(), any_(), where=spy)
    list(find_matches(g, pattern))
    assert visited == ["mul"]


def test_const_pattern_and_match_at():
    b = GraphBuilder()
    x = b.parameter("x", (2,))
    add = b.node(Add(), x, b.const([1.0, 2.0], "float32"), name="add")
    b.result(add.out_port(0))
    found = match_at(op("Add", any_("x"), const("c")), add)
    assert found is not None and found["c"].type == "Const"
    assert match_at(op("Add", const("c"), any_("x")), add) is None


def test_a_pattern_whose_op_types_the_graph_lacks_is_never_tried():
    from irconv.graph.pattern import required_types
    from irconv.rewrite.driver import rewrite_greedily

    tried: list[str] = []

    def counted(node):  # type: ignore[no-untyped-def]
        tried.append(node.name)
        return True

    relu_of_sigmoid = op("Multiply", X, op(("Sigmoid", "Relu"), X), where=counted, commutative=True)
    needs_add = op("Multiply", X, op("Add", X, X), where=counted, commutative=True)
    assert required_types(needs_add) == [("Multiply",), ("Add",)]

    class Rule:
        def __init__(self, pattern):  # type: ignore[no-untyped-def]
            self.roots = [pattern]

        def rewrite(self, match, rewriter):  # type: ignore[no-untyped-def]
            return False

    graph = swish_graph()  # Multiply(x, Sigmoid(x)), no Add
    assert list(find_matches(graph, needs_add)) == [] and tried == []
    assert rewrite_greedily(graph, [Rule(needs_add)]) == 0 and tried == []
    rewrite_greedily(graph, [Rule(relu_of_sigmoid)])  # its types are all there: tried
    assert tried == ["mul"]
