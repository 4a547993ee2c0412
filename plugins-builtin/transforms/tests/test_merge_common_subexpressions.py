"""fuse.merge_common_subexpressions on graphs built in memory: what merges, what stays, and the
old id ``llm.merge_equal_ops`` still accepted by ``--disable-transform``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from irconv import Graph, convert_model
from irconv.testing import GraphBuilder, run_transform
from irconv.testing.runtime import emit_ir, run_ir
from irconv_opset import Add, Concat, Multiply, ReLU, Reshape, ShapeOf
from irconv_transforms._fusion import FUSIONS, LATE_FUSIONS
from irconv_transforms.attention_mask_as_bias import AttentionMaskAsBias
from irconv_transforms.merge_common_subexpressions import MergeCommonSubexpressions


def _types(graph: Graph) -> Counter[str]:
    return Counter(node.type for node in graph.nodes())


def repeated_shape_graph() -> Graph:
    """y = Reshape(x, Concat(ShapeOf(x), [-1])) + Reshape(x, Concat(ShapeOf(x), [-1])) * 2, each
    branch with its own ShapeOf, Concat and constants; r1, r2 = ReLU(x) twice, both model outputs."""
    b = GraphBuilder()
    x = b.parameter("x", (None, 3, 4))
    branches = []
    for i in range(2):
        target = b.op(Concat(axis=0), b.op(ShapeOf(), x), b.const(np.array([-1], np.int64), name=f"rest{i}"))
        branches.append(b.op(Reshape(), x, target))
    b.result(b.op(Add(), branches[0], b.op(Multiply(), branches[1], b.const(np.float32(2)))), "y")
    b.result(b.op(ReLU(), x), "r1")
    b.result(b.op(ReLU(), x), "r2")
    return b.graph


def test_repeated_branches_are_computed_once_and_give_the_same_values(tmp_path: Path) -> None:
    graph = repeated_shape_graph()
    assert _types(graph)["Reshape"] == 2
    assert run_transform(graph, MergeCommonSubexpressions()) is True
    types = _types(graph)
    assert (types["Reshape"], types["ShapeOf"], types["Concat"]) == (1, 1, 1)
    assert types["ReLU"] == 2  # model outputs stay one op each
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    got = run_ir(emit_ir(graph, tmp_path / "merged.xml"), {"x": x})
    flat = x.reshape(2, 3, 4, -1)
    np.testing.assert_allclose(got["y"], flat * 3, rtol=1e-6)
    np.testing.assert_array_equal(got["r1"], np.maximum(x, 0))
    np.testing.assert_array_equal(got["r2"], np.maximum(x, 0))


def test_ops_with_other_attributes_or_inputs_stay_apart() -> None:
    b = GraphBuilder()
    x, z = b.parameter("x", (2, 3)), b.parameter("z", (2, 3))
    b.result(b.op(ReLU(), b.op(Concat(axis=0), x, z)), "rows")
    b.result(b.op(ReLU(), b.op(Concat(axis=1), x, z)), "columns")
    b.result(b.op(Add(), b.op(Add(), x, z), b.op(Add(), z, x)), "w")
    graph = b.graph
    assert run_transform(graph, MergeCommonSubexpressions()) is False
    assert _types(graph)["Concat"] == 2 and _types(graph)["Add"] == 3


def test_it_runs_after_every_fusion_of_the_plugin(installed_host) -> None:
    from irconv.plugins import Phase

    plan = [p.item.id for p in installed_host.registry().plan(Phase.MIDDLE)]
    # Both run after every fusion FUSIONS lists; the mask's bias must still be merged.
    last = (MergeCommonSubexpressions.id, AttentionMaskAsBias.id)
    fusions = [tid for tid in plan if tid.startswith("fuse.") and tid not in last]
    # FUSIONS and LATE_FUSIONS list every other fusion of the plugin
    assert sorted(fusions) == sorted((*FUSIONS, *LATE_FUSIONS))
    assert plan.index(MergeCommonSubexpressions.id) > max(plan.index(tid) for tid in (*fusions, AttentionMaskAsBias.id))


def test_the_former_id_still_disables_it(tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    emit_ir(repeated_shape_graph(), path)  # an IR keeps both branches: it is read back as written
    with pytest.warns(FutureWarning, match="fuse.merge_common_subexpressions"):
        kept = convert_model(path, disabled_transforms=["llm.merge_equal_ops"])
    assert _types(kept)["Reshape"] == 2
    assert _types(convert_model(path))["Reshape"] == 1
