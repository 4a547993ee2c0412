"""Every opset runtime case survives IR emit -> irconv IR reader with the same op and attributes.

This checks the op declarations (attribute names, types, enum spellings, versions) against
the IR plugin's reader: an attribute the reader cannot parse back into the declared field,
or an op version it maps to another class, fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv import ConversionOptions, LoadContext
from irconv.pipeline.extract import check_supported, extract_graph
from irconv.pipeline.run import pick_loader
from irconv.testing.runtime import emit_ir
from irconv_opset.testing import build_case_graph, case_params, load_case_files

CASES_DIR = Path(__file__).resolve().parents[2] / "plugins-builtin" / "opset" / "tests"
PARAMS = [(i, c) for i, c, dynamic in case_params(load_case_files(CASES_DIR)) if not dynamic]


@pytest.mark.parametrize("case", [c for _, c in PARAMS], ids=[i for i, _ in PARAMS])
def test_op_reads_back_from_ir(case, tmp_path, installed_host):
    built = build_case_graph(case, dynamic=False)
    xml = emit_ir(built.graph, tmp_path / "case.xml", installed_host)
    options = ConversionOptions.from_kwargs(compress_to_fp16=False)
    registry = installed_host.registry()
    graph = pick_loader(xml, options, registry).item.load(xml, LoadContext(options, registry.ops, registry.find_extractor))
    check_supported(graph, registry)
    extract_graph(graph, registry, options)
    read = graph.node("op").op
    assert type(read) is type(case.op), f"read back as {type(read).__name__}"
    assert read.ir_attributes() == case.op.ir_attributes()
