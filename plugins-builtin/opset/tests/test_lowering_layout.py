"""irconv_opset.lowering.layout: the typed channels-last marks and the node they go on."""

from __future__ import annotations

import pytest
from irconv.testing import GraphBuilder
from irconv_opset import ReLU
from irconv_opset.lowering.layout import LayoutMark, laid_out
from irconv_opset.testing_lowering import lowering_context


@pytest.mark.parametrize(("rank", "mark", "wrapped"), [(3, "NWC", "NCW"), (4, "NHWC", "NCHW"), (5, "NDHWC", "NCDHW")])
def test_mark_of_each_rank(rank: int, mark: str, wrapped: str) -> None:
    found = LayoutMark.for_rank(rank)
    assert found == mark and found.rank == rank and found.channels_first == wrapped
    assert LayoutMark.parse(mark) is found
    assert str(found) == f"{found}" == mark


def test_no_mark_for_other_ranks_or_layouts() -> None:
    with pytest.raises(ValueError, match="rank 2"):
        LayoutMark.for_rank(2)
    assert LayoutMark.parse("NCHW") is None
    assert LayoutMark.parse(None) is None


@pytest.mark.parametrize("mark", [LayoutMark.NHWC, None])
def test_laid_out_marks_the_node_it_adds(mark: LayoutMark | None) -> None:
    b = GraphBuilder()
    x = b.parameter("x", (1, 4, 4, 3))
    ctx = lowering_context(b, [x])
    node = laid_out(ctx, ReLU(), [x], mark)
    assert node.layout is mark
    assert node.in_port(0).get_source() == x
    assert node.name == "lowered/ReLU"
