"""Every opB op class is the version OpenVINO has in each opset the catalog assigns it.

The oracle is OpenVINO's node factory: in opset N, creating the op by its IR type must
give the op version the class declares (``version_id`` names the opset of that version).
Opsets the Python factory does not know yet (17 in OpenVINO 2026.4) are left out.
"""

from __future__ import annotations

import pytest
from irconv.ops import Op
from irconv_opset.catalog import NEWEST_OPSET, opset_ranges
from irconv_opset.ops import convolution, detection, image, linear, pooling, sequence

FAMILIES = (linear, convolution, pooling, image, detection, sequence)
OPS = [op for family in FAMILIES for op in family.OPS]
# Opsets that leave an op out although it exists before and after them.
RUNTIME_GAPS = {("RNNCell", 2)}


def _factory_knows(opset: int) -> bool:
    """The Python node factory may lag behind the runtime's newest opset."""
    return _runtime_version("Add", opset) is not None


def _runtime_version(op_type: str, opset: int) -> str | None:
    from openvino.utils.node_factory import NodeFactory

    try:
        node = NodeFactory(f"opset{opset}").create(op_type)
    except RuntimeError:
        return None
    return node.get_type_info().version_id


@pytest.mark.parametrize("op", OPS, ids=[f"{op.__name__}" for op in OPS])
def test_catalog_range_matches_the_runtime_opsets(op: type[Op]) -> None:
    ranges = opset_ranges()[op]
    opsets = [n for n in ranges if n <= NEWEST_OPSET and _factory_knows(n) and (op.type, n) not in RUNTIME_GAPS]
    assert opsets, f"{op.__name__} is in no opset up to {NEWEST_OPSET}"
    found = {n: _runtime_version(op.type, n) for n in opsets}
    wrong = {n: v for n, v in found.items() if v != f"opset{op.version}"}
    assert not wrong, f"{op.__name__} ({op.type}-{op.version}): the runtime has {wrong}"
